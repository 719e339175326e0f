package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// parquetBatch is the number of rows read from each column at a time:
// a Parquet file is read by row groups, each by batches of this many
// values of the selected columns, one page of each column in memory.
const parquetBatch = 1024

// isParquet reports whether name is read as a Parquet file.
func isParquet(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".parquet")
}

// parquetFile is an open Parquet file of vrvm fit -stream.
type parquetFile struct {
	f    *os.File
	name string
	pf   *parquet.File
}

// openParquet opens the Parquet file name, reading its footer only (the
// schema and the row groups' metadata). A file whose magic bytes or
// footer are missing or unreadable (truncated, or not Parquet) is an
// error naming the file.
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
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a readable Parquet file (truncated or corrupt? its footer, which locates the rows, is unreadable): %v", name, err)
	}
	return &parquetFile{f: f, name: name, pf: pf}, nil
}

func (p *parquetFile) Close() error { return p.f.Close() }

// columns returns the names of the file's leaf columns in schema order
// (a nested column's path joined by dots).
func (p *parquetFile) columns() []string {
	var names []string
	for _, path := range p.pf.Schema().Columns() {
		names = append(names, strings.Join(path, "."))
	}
	return names
}

// sameColumns reports whether a Parquet file's columns are those of the
// first file: the same names, in any order (a CSV's index column aside).
func sameColumns(got, want []string) bool {
	if len(want) > 0 && want[0] == indexColumn {
		want = want[1:]
	}
	return len(got) == len(want) && !slices.ContainsFunc(want, func(c string) bool { return !slices.Contains(got, c) })
}

// parquetColumn reads one selected column of a row group across its
// pages, converting each value to a number.
type parquetColumn struct {
	name  string
	pages parquet.Pages
	page  parquet.Page
	vals  parquet.ValueReader
	label map[string]float64
}

// read fills dst with the column's next values, reading pages as needed;
// it returns fewer only at the end of the chunk.
func (c *parquetColumn) read(dst []parquet.Value) (int, error) {
	n := 0
	for n < len(dst) {
		if c.vals == nil {
			if c.page != nil {
				parquet.Release(c.page)
			}
			pg, err := c.pages.ReadPage()
			if err == io.EOF {
				c.page = nil
				return n, nil
			}
			if err != nil {
				return n, err
			}
			c.page, c.vals = pg, pg.Values()
		}
		k, err := c.vals.ReadValues(dst[n:])
		n += k
		if err == io.EOF {
			c.vals = nil
		} else if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *parquetColumn) close() {
	if c.page != nil {
		parquet.Release(c.page)
	}
	c.pages.Close()
}

// number converts a value of the column: integers, floats and booleans
// (0 and 1) as numbers; text by the number rules of CSV cells, or as a
// label of -labels.
func (c *parquetColumn) number(v parquet.Value) (float64, error) {
	if v.IsNull() {
		return 0, errors.New("missing value (vrvm fit -stream needs every cell of the inputs and the target)")
	}
	var x float64
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			x = 1
		}
	case parquet.Int32:
		x = float64(v.Int32())
	case parquet.Int64:
		x = float64(v.Int64())
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Double:
		x = v.Double()
	case parquet.ByteArray, parquet.FixedLenByteArray:
		s := strings.TrimSpace(string(v.ByteArray()))
		if c.label != nil {
			if l, ok := c.label[s]; ok {
				return l, nil
			}
			return 0, fmt.Errorf("label %s is not one of -labels", strconv.Quote(s))
		}
		return datasets.ParseNumber(s)
	default:
		return 0, fmt.Errorf("a value of type %v, not a number", v.Kind())
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("not a finite number: %v", x)
	}
	return x, nil
}

// leaves returns the leaf columns of the names, checking that each
// exists, is not repeated and has a type read as numbers.
func (p *parquetFile) leaves(names []string, labels map[string]map[string]float64) ([]parquet.LeafColumn, error) {
	schema := p.pf.Schema()
	out := make([]parquet.LeafColumn, len(names))
	for i, name := range names {
		leaf, ok := schema.Lookup(strings.Split(name, ".")...)
		if !ok {
			return nil, fmt.Errorf("%s: no column %q; columns are %s", p.name, name, strings.Join(p.columns(), ", "))
		}
		if leaf.MaxRepetitionLevel > 0 {
			return nil, fmt.Errorf("%s: column %q is repeated (a list): vrvm fit -stream reads one number per row and column", p.name, name)
		}
		typ := leaf.Node.Type()
		if lt := typ.LogicalType(); lt != nil {
			if _, dec := lt.Value.(*format.DecimalType); dec {
				return nil, fmt.Errorf("%s: column %q is a decimal (%v): not supported; write it as a double", p.name, name, lt)
			}
		}
		switch typ.Kind() {
		case parquet.Int96:
			return nil, fmt.Errorf("%s: column %q is of type INT96 (a timestamp), not a number", p.name, name)
		case parquet.ByteArray, parquet.FixedLenByteArray:
		default:
			if labels[name] != nil {
				return nil, fmt.Errorf("%s: column %q is numeric (%v): -labels applies to a text column", p.name, name, typ.Kind())
			}
		}
		out[i] = leaf
	}
	return out, nil
}

// readParquet reads the rows of the Parquet file name, row group by row
// group in batches of parquetBatch rows, calling fn with each row's
// selected columns (the inputs, then the target). Errors name the file
// and the 1-based row (counted across the row groups).
func (s *streamSource) readParquet(name string, row []float64, fn func([]float64) error) error {
	p, err := openParquet(name)
	if err != nil {
		return err
	}
	defer p.Close()
	if !sameColumns(p.columns(), s.header) {
		return fmt.Errorf("%s: columns %s, want %s (the files of a data set need the columns of the first, %s)", name, strings.Join(p.columns(), ","), strings.Join(s.header, ","), s.files[0])
	}
	leaves, err := p.leaves(s.columns, s.labels)
	if err != nil {
		return err
	}
	if p.pf.NumRows() == 0 {
		return fmt.Errorf("%s: %w", name, datasets.ErrNoRows)
	}
	buf := make([][]parquet.Value, len(leaves))
	for j := range buf {
		buf[j] = make([]parquet.Value, parquetBatch)
	}
	first := 1 // the 1-based row of the batch's first row
	for g, rg := range p.pf.RowGroups() {
		n, err := s.readGroup(p, g, rg, leaves, buf, first, row, fn)
		if err != nil {
			return err
		}
		first += n
	}
	return nil
}

// readGroup reads one row group (g, 0-based) whose first row is first,
// returning its number of rows.
func (s *streamSource) readGroup(p *parquetFile, g int, rg parquet.RowGroup, leaves []parquet.LeafColumn, buf [][]parquet.Value, first int, row []float64, fn func([]float64) error) (int, error) {
	chunks := rg.ColumnChunks()
	cols := make([]*parquetColumn, len(leaves))
	for j, leaf := range leaves {
		cols[j] = &parquetColumn{name: s.columns[j], pages: chunks[leaf.ColumnIndex].Pages(), label: s.labels[s.columns[j]]}
		defer cols[j].close()
	}
	total := int(rg.NumRows())
	for done := 0; done < total; {
		k := min(parquetBatch, total-done)
		for j, c := range cols {
			n, err := c.read(buf[j][:k])
			if err == nil && n < k {
				err = fmt.Errorf("%d values, the row group has %d rows", done+n, total)
			}
			if err != nil {
				return 0, fmt.Errorf("%s: rows %d–%d (row group %d): column %q: %v", p.name, first+done, first+done+k-1, g+1, c.name, err)
			}
		}
		for i := range k {
			for j, c := range cols {
				v, err := c.number(buf[j][i])
				if err != nil {
					return 0, fmt.Errorf("%s: row %d: column %q: %v", p.name, first+done+i, c.name, err)
				}
				row[j] = v
			}
			if err := s.checkRow(row, func() string { return fmt.Sprintf("%s: row %d", p.name, first+done+i) }); err != nil {
				return 0, err
			}
			if err := fn(row); err != nil {
				return 0, err
			}
		}
		done += k
	}
	return total, nil
}
