package datasets

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// RowOptions configures NewRowReader.
type RowOptions struct {
	// Columns names the columns to read, in the order Next returns
	// them. A name the header lacks is an error wrapping ErrColumn.
	Columns []string
	// Labels maps the name of a column of Columns holding text labels
	// to the number each label stands for, as CSVOptions.Labels; a cell
	// that is none of them (and not missing) is an ErrLabel error.
	Labels map[string]map[string]float64
	// Header, if not nil, is the header the file must have: exactly these
	// names in this order (an empty first name as IndexColumn), as for the
	// shards of one data set. A header that differs is an ErrHeader
	// error naming the first missing, unexpected or misplaced column.
	Header []string
}

// RowReader reads a CSV file one row at a time by ReadTable's rules (the
// header, the fields, missing values as NaN, a repeated header line an
// error), holding one row only, for files larger than memory.
type RowReader struct {
	r      *csvReader
	frame  *Frame
	raw    []string // the header as written
	pos    []int    // field of each column read
	names  []string
	labels []map[string]float64
	line   int
	rows   int
}

// NewRowReader reads the header of the CSV file rd (name is used in error
// messages) and returns the reader of its rows. Its errors are those of
// ReadTable for the header, ErrHeader for a header other than opt.Header,
// and ErrColumn for a column of opt.Columns the header lacks.
func NewRowReader(rd io.Reader, name string, opt RowOptions) (*RowReader, error) {
	r := newCSVReader(rd, name)
	f, raw, err := readHeader(r, name)
	if err != nil {
		return nil, err
	}
	if opt.Header != nil {
		if err := checkHeader(f.header, opt.Header); err != nil {
			return nil, r.errorf(r.recLine, 0, "", err)
		}
	}
	rr := &RowReader{r: r, frame: f, raw: raw, names: slices.Clone(opt.Columns)}
	for _, c := range opt.Columns {
		j, ok := f.index[c]
		if !ok {
			return nil, r.errorf(r.recLine, 0, "", fmt.Errorf("%w %q; columns are %s", ErrColumn, c, strings.Join(f.header, ", ")))
		}
		rr.pos = append(rr.pos, j)
		rr.labels = append(rr.labels, opt.Labels[c])
	}
	return rr, nil
}

// Columns returns every column name of the header in file order (an
// empty first name as IndexColumn).
func (r *RowReader) Columns() []string { return slices.Clone(r.frame.header) }

// Line returns the 1-based line of the row Next read last.
func (r *RowReader) Line() int { return r.line }

// Rows returns the number of rows read.
func (r *RowReader) Rows() int { return r.rows }

// Next reads the next row's columns (RowOptions.Columns) into dst, which
// must have one element per column: numbers, NaN for a missing cell. At
// the end of the file it returns io.EOF, or a *ParseError wrapping
// ErrNoRows if the file has no row. Other errors are *ParseErrors naming
// the file, the line and the column, as ReadTable's.
func (r *RowReader) Next(dst []float64) error {
	if len(dst) != len(r.pos) {
		panic("datasets: RowReader.Next: dst does not have one element per column")
	}
	rec, quoted, err := r.r.read()
	if err == io.EOF {
		if r.rows == 0 {
			return r.r.errorf(0, 0, "", ErrNoRows)
		}
		return io.EOF
	}
	if err != nil {
		return err
	}
	line := r.r.recLine
	if len(rec) != len(r.raw) {
		return r.r.errorf(line, 0, "", fmt.Errorf("%w: %d fields, the header has %d columns", ErrFieldCount, len(rec), len(r.raw)))
	}
	if slices.Equal(rec, r.raw) {
		return r.r.errorf(line, 0, "", fmt.Errorf("%w: the line repeats the header line (files joined with their headers?); delete it", ErrHeader))
	}
	for i, j := range r.pos {
		f := rec[j]
		if IsMissing(f) && !(r.labels[i] != nil && quoted[j] && f != "") {
			dst[i] = math.NaN()
			continue
		}
		var v float64
		if r.labels[i] != nil {
			v, err = parseLabel(f, r.labels[i])
		} else {
			v, err = ParseNumber(f)
		}
		if err != nil {
			return r.r.errorf(line, j+1, r.names[i], err)
		}
		dst[i] = v
	}
	r.line = line
	r.rows++
	return nil
}
