package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vrvm/vrvm/internal/parquetrows"
)

// isParquet reports whether name is read as a Parquet file.
func isParquet(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".parquet")
}

// parquetFile is an open Parquet file of vrvm fit -stream.
type parquetFile struct {
	*parquetrows.File
	f *os.File
}

// openParquet opens the Parquet file name, reading its footer only.
func openParquet(name string) (*parquetFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := parquetrows.Open(f, fi.Size(), name)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &parquetFile{File: pf, f: f}, nil
}

func (p *parquetFile) Close() error { return p.f.Close() }

// sameColumns reports whether a Parquet file's columns are those of the
// first file: the same names, in any order (a CSV's index column aside).
func sameColumns(got, want []string) bool {
	if len(want) > 0 && want[0] == indexColumn {
		want = want[1:]
	}
	return len(got) == len(want) && !slices.ContainsFunc(want, func(c string) bool { return !slices.Contains(got, c) })
}

// readParquet reads the rows of the Parquet file name (parquetrows: by
// row groups, in batches), calling fn with each row's selected columns
// (the inputs, then the target). Errors name the file and the 1-based
// row.
func (s *streamSource) readParquet(name string, row []float64, fn func([]float64) error) error {
	p, err := openParquet(name)
	if err != nil {
		return err
	}
	defer p.Close()
	if !sameColumns(p.Columns(), s.header) {
		return fmt.Errorf("%s: columns %s, want %s (the files of a data set need the columns of the first, %s)", name, strings.Join(p.Columns(), ","), strings.Join(s.header, ","), s.files[0])
	}
	return p.Read(s.columns, s.labels, func(r int, vals []float64) error {
		copy(row, vals)
		if err := s.checkRow(row, func() string { return fmt.Sprintf("%s: row %d", name, r) }); err != nil {
			return err
		}
		return fn(row)
	})
}
