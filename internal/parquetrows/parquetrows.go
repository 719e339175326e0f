// Package parquetrows reads numeric columns of Parquet files row by row in
// memory that does not grow with the file: the footer (the schema and the
// row groups' metadata), then each row group by batches of Batch values
// of the selected columns, a page of each column in memory at a time. It
// serves vrvm fit -stream and the Beam pipelines (github.com/parquet-go/
// parquet-go stays out of the library's dependency graph).
package parquetrows

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// Batch is the number of values read from each column at a time.
const Batch = 1024

// File is an open Parquet file.
type File struct {
	name string
	pf   *parquet.File
}

// Open reads the footer of the Parquet file r of size bytes (name is used
// in error messages). A file whose magic bytes or footer are missing or
// unreadable (truncated, or not Parquet) is an error naming the file.
func Open(r io.ReaderAt, size int64, name string) (*File, error) {
	pf, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file (truncated or corrupt? its footer, which locates the rows, is unreadable): %v", name, err)
	}
	return &File{name: name, pf: pf}, nil
}

// Columns returns the names of the file's leaf columns in schema order
// (a nested column's path joined by dots).
func (p *File) Columns() []string {
	var names []string
	for _, path := range p.pf.Schema().Columns() {
		names = append(names, strings.Join(path, "."))
	}
	return names
}

// NumRows returns the number of rows of the file.
func (p *File) NumRows() int64 { return p.pf.NumRows() }

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
func (p *File) leaves(names []string, labels map[string]map[string]float64) ([]parquet.LeafColumn, error) {
	schema := p.pf.Schema()
	out := make([]parquet.LeafColumn, len(names))
	for i, name := range names {
		leaf, ok := schema.Lookup(strings.Split(name, ".")...)
		if !ok {
			return nil, fmt.Errorf("%s: no column %q; columns are %s", p.name, name, strings.Join(p.Columns(), ", "))
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

// Read reads the rows, row group by row group in batches of Batch rows,
// calling fn with each row's 1-based number (counted across the row
// groups) and the values of columns, in their order: booleans (0, 1),
// integers, floats and doubles as numbers, text by the rules of a CSV
// cell (datasets.ParseNumber) or, for a column of labels, mapped by it.
// Decimals, INT96 and repeated columns are refused. Errors name the file
// and the row, or the rows of the batch being read for a corrupt page.
// vals is reused between calls.
func (p *File) Read(columns []string, labels map[string]map[string]float64, fn func(row int, vals []float64) error) error {
	leaves, err := p.leaves(columns, labels)
	if err != nil {
		return err
	}
	if p.pf.NumRows() == 0 {
		return fmt.Errorf("%s: %w", p.name, datasets.ErrNoRows)
	}
	buf := make([][]parquet.Value, len(leaves))
	for j := range buf {
		buf[j] = make([]parquet.Value, Batch)
	}
	vals := make([]float64, len(columns))
	first := 1 // the 1-based row of the group's first row
	for g, rg := range p.pf.RowGroups() {
		n, err := p.readGroup(g, rg, columns, labels, leaves, buf, first, vals, fn)
		if err != nil {
			return err
		}
		first += n
	}
	return nil
}

// readGroup reads one row group (g, 0-based) whose first row is first,
// returning its number of rows.
func (p *File) readGroup(g int, rg parquet.RowGroup, columns []string, labels map[string]map[string]float64, leaves []parquet.LeafColumn, buf [][]parquet.Value, first int, vals []float64, fn func(int, []float64) error) (int, error) {
	chunks := rg.ColumnChunks()
	cols := make([]*parquetColumn, len(leaves))
	for j, leaf := range leaves {
		cols[j] = &parquetColumn{name: columns[j], pages: chunks[leaf.ColumnIndex].Pages(), label: labels[columns[j]]}
		defer cols[j].close()
	}
	total := int(rg.NumRows())
	for done := 0; done < total; {
		k := min(Batch, total-done)
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
				vals[j] = v
			}
			if err := fn(first+done+i, vals); err != nil {
				return 0, err
			}
		}
		done += k
	}
	return total, nil
}
