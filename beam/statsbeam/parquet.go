package statsbeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/vrvm/vrvm/internal/parquetrows"
)

func init() {
	register.DoFn3x1[context.Context, fileio.FileMetadata, func([]float64), error](&ParquetFn{})
}

// IsParquet reports whether the input glob names Parquet files (it ends
// in .parquet); other globs are read as CSV.
func IsParquet(glob string) bool { return strings.HasSuffix(strings.ToLower(glob), ".parquet") }

// ParquetFn reads one Parquet file (internal/parquetrows: by row groups
// in batches, columns by name) into rows of Columns (the inputs, then the
// target); every file needs the columns of the first, Header (in any
// order). A local file is read in place; a file of another Beam
// filesystem (gs://, s3://: readers without random access) is read into
// the worker's memory first.
type ParquetFn struct {
	Header  string
	Columns []string
}

// ProcessElement emits the rows of the file m, or returns an error naming
// the file and the row.
func (f *ParquetFn) ProcessElement(ctx context.Context, m fileio.FileMetadata, emit func([]float64)) error {
	pf, closeFn, err := openParquet(ctx, m.Path)
	if err != nil {
		return err
	}
	defer closeFn()
	if want := strings.Split(f.Header, ","); !sameSet(pf.Columns(), want) {
		return fmt.Errorf("%s: columns %s, want %s (every file needs the columns of the first)", m.Path, strings.Join(pf.Columns(), ","), f.Header)
	}
	return pf.Read(f.Columns, nil, func(_ int, vals []float64) error {
		emit(slices.Clone(vals))
		return nil
	})
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(b, func(c string) bool { return !slices.Contains(a, c) })
}

// openParquet opens the Parquet file at url (any Beam filesystem).
func openParquet(ctx context.Context, url string) (*parquetrows.File, func(), error) {
	if st, err := os.Stat(url); err == nil && st.Mode().IsRegular() {
		file, err := os.Open(url)
		if err != nil {
			return nil, nil, err
		}
		pf, err := parquetrows.Open(file, st.Size(), url)
		if err != nil {
			file.Close()
			return nil, nil, err
		}
		return pf, func() { file.Close() }, nil
	}
	fs, err := filesystem.New(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, nil, err
	}
	pf, err := parquetrows.Open(bytes.NewReader(data), int64(len(data)), url)
	if err != nil {
		return nil, nil, err
	}
	return pf, func() {}, nil
}

// parquetRows reads the Parquet files of glob into rows of columns.
func parquetRows(s beam.Scope, glob, header string, columns []string) beam.PCollection {
	return beam.ParDo(s, &ParquetFn{Header: header, Columns: columns}, fileio.MatchFiles(s, glob))
}

// parquetHeader returns the columns of the first Parquet file, joined by
// commas as a CSV header.
func parquetHeader(ctx context.Context, first string) (string, error) {
	pf, closeFn, err := openParquet(ctx, first)
	if err != nil {
		return "", err
	}
	defer closeFn()
	return strings.Join(pf.Columns(), ","), nil
}
