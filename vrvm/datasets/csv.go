package datasets

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// Errors wrapped by the errors of ReadCSV and of the loaders; test for them
// with errors.Is. The returned error is a *ParseError giving the place.
var (
	ErrEmpty      = errors.New("empty file: no header line")
	ErrNoRows     = errors.New("no data rows after the header")
	ErrHeader     = errors.New("bad header")
	ErrFieldCount = errors.New("wrong number of fields")
	ErrNotNumber  = errors.New("not a number")
	ErrMissing    = errors.New("missing value")
	ErrNaN        = errors.New("NaN value")
	ErrInf        = errors.New("infinite value")
	ErrLabel      = errors.New("bad label")
	ErrRowCount   = errors.New("wrong number of rows")
	ErrColumn     = errors.New("no such column")
)

// ParseError is the error of reading a CSV file. It names the file, the
// line as a text editor numbers it (the header is line 1) and, for a problem
// with one cell, the column. Err is one of the sentinel errors above, or the
// error of encoding/csv or of the underlying reader, possibly wrapped with
// detail.
type ParseError struct {
	File   string // file name as given to ReadCSV
	Line   int    // 1-based line number; 0 if the problem is not on one line
	Field  int    // 1-based field (column) number; 0 if not about one cell
	Column string // column name from the header; "" if not about one column
	Err    error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	switch {
	case e.Column != "" && e.Field > 0:
		fmt.Fprintf(&b, "column %q (field %d): ", e.Column, e.Field)
	case e.Column != "":
		fmt.Fprintf(&b, "column %q: ", e.Column)
	case e.Field > 0:
		fmt.Fprintf(&b, "field %d: ", e.Field)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// CSVOptions configures ReadCSVOptions. The zero value reads every column
// as numbers.
type CSVOptions struct {
	// Labels maps the name of a column holding text labels to the number
	// each label stands for, for example
	//
	//	map[string]map[string]float64{"type": {"No": 0, "Yes": 1}}
	//
	// A cell of such a column must be one of the keys (after trimming
	// spaces); any other text, numbers included, is an ErrLabel error. The
	// mapped numbers must be finite. A nil or empty Labels means no label
	// columns; a column whose map is empty is read as numbers.
	Labels map[string]map[string]float64

	// Columns, if not nil, is the header the file must have: exactly
	// these names in this order. A header that differs is an ErrHeader
	// error naming the first missing, unexpected or misplaced column.
	Columns []string
}

// Table is a CSV file read into named columns of finite float64 values.
// It is immutable once read.
type Table struct {
	name    string
	columns []string
	data    []float64 // row-major, len(lines)×len(columns)
	lines   []int     // 1-based line number of each data row
}

// ReadCSV reads a CSV file with a header line naming the columns, every
// other cell a finite decimal number. It is ReadCSVOptions with the zero
// options. name is used in error messages only.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	return ReadCSVOptions(r, name, CSVOptions{})
}

// ReadCSVFile reads the CSV file at path with ReadCSVOptions; errors name the
// path.
func ReadCSVFile(path string, opt CSVOptions) (*Table, error) {
	var t *Table
	err := withFile(path, func(r io.Reader) (err error) {
		t, err = ReadCSVOptions(r, path, opt)
		return err
	})
	return t, err
}

// withFile calls read with the file at path, open until read returns.
func withFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(f)
}

// ReadCSVOptions reads a CSV file from r.
//
// The format is RFC 4180 as read by encoding/csv: comma-separated fields,
// optionally double-quoted; \n or \r\n line ends; blank lines are skipped and
// a leading UTF-8 byte-order mark is ignored. Spaces around a field are
// trimmed, but a closing quote must end its field. The first line is the
// header: one non-empty, distinct name per column, in UTF-8 without control
// characters. Every further line must
// have as many fields as the header. A cell must be a finite decimal number
// ("1", "-0.5", "2.5e-3", ".5"), or, in a column named in opt.Labels, one of
// its labels.
//
// Errors are *ParseError values naming the file, the line and the column,
// wrapping ErrEmpty (no header), ErrNoRows (header only), ErrHeader (an
// empty, repeated or unprintable name, a first line of numbers, or a header
// other than opt.Columns), ErrColumn (opt.Labels names a missing column),
// ErrFieldCount (ragged line), ErrNotNumber, ErrMissing (empty cell or R's
// NA), ErrNaN, ErrInf (including numbers beyond the float64 range) or
// ErrLabel. Hexadecimal numbers and digit separators are not accepted.
//
// Limits: a line longer than 16 MiB is an error, read no further than the
// limit; errors quote at most 40 bytes of a cell or line.
func ReadCSVOptions(r io.Reader, name string, opt CSVOptions) (*Table, error) {
	br := bufio.NewReader(&lineLimiter{r: r, name: name, line: 1})
	if bom, err := br.Peek(3); err == nil && string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	src := csvSource(name)
	t, seen, headerLine, err := src.header(cr)
	if err != nil {
		return nil, err
	}
	if opt.Columns != nil {
		if err := checkHeader(t.columns, opt.Columns); err != nil {
			return nil, src.perr(headerLine, 0, "", err)
		}
	}
	labels, err := src.labels(opt, t.columns, seen, headerLine)
	if err != nil {
		return nil, err
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, src.readErr(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(t.columns) {
			return nil, src.perr(line, 0, "", fmt.Errorf("%w: %d fields, the header has %d columns", ErrFieldCount, len(rec), len(t.columns)))
		}
		for i, f := range rec {
			var v float64
			var err error
			if labels[i] != nil {
				v, err = parseLabel(f, labels[i])
			} else {
				v, err = ParseNumber(f)
			}
			if err != nil {
				l, _ := cr.FieldPos(i)
				return nil, src.perr(l, i+1, t.columns[i], err)
			}
			t.data = append(t.data, v)
		}
		t.lines = append(t.lines, line)
	}
	if len(t.lines) == 0 {
		return nil, src.perr(0, 0, "", ErrNoRows)
	}
	return t, nil
}

// csvSource is the name of the file ReadCSVOptions reads, for its errors.
type csvSource string

// perr is the *ParseError at a line, field and column of the file.
func (s csvSource) perr(line, field int, column string, err error) *ParseError {
	return &ParseError{File: string(s), Line: line, Field: field, Column: column, Err: err}
}

// readErr is the *ParseError of an error of the CSV reader.
func (s csvSource) readErr(err error) *ParseError {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		return s.perr(ce.Line, 0, "", ce.Err)
	}
	return s.perr(0, 0, "", err)
}

// header reads and checks the header line into a Table without rows,
// and returns the columns' positions by name and the header's line.
func (s csvSource) header(cr *csv.Reader) (t *Table, seen map[string]int, headerLine int, err error) {
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, nil, 0, s.perr(0, 0, "", ErrEmpty)
	}
	if err != nil {
		return nil, nil, 0, s.readErr(err)
	}
	headerLine, _ = cr.FieldPos(0)
	t = &Table{name: string(s), columns: make([]string, len(rec))}
	seen = make(map[string]int, len(rec))
	allNumbers := true
	for i, f := range rec {
		c := strings.TrimSpace(f)
		if c == "" {
			return nil, nil, 0, s.perr(headerLine, i+1, "", fmt.Errorf("%w: empty column name", ErrHeader))
		}
		if !utf8.ValidString(c) || strings.IndexFunc(c, unicode.IsControl) >= 0 {
			return nil, nil, 0, s.perr(headerLine, i+1, "", fmt.Errorf("%w: column name %s is not valid UTF-8 or holds a control character", ErrHeader, quotePrefix(c)))
		}
		if j, dup := seen[c]; dup {
			return nil, nil, 0, s.perr(headerLine, i+1, c, fmt.Errorf("%w: column name repeats field %d", ErrHeader, j+1))
		}
		if _, err := ParseNumber(c); err != nil {
			allNumbers = false
		}
		seen[c] = i
		t.columns[i] = c
	}
	if allNumbers {
		return nil, nil, 0, s.perr(headerLine, 0, "", fmt.Errorf("%w: the first line %s holds numbers, not column names; the first line must name the columns", ErrHeader, quotePrefix(strings.Join(t.columns, ","))))
	}
	return t, seen, headerLine, nil
}

// labels returns, for every column, the map of opt.Labels that reads its
// cells (nil for a numeric column), checking that each names a column of
// the header and stands for finite numbers.
func (s csvSource) labels(opt CSVOptions, columns []string, seen map[string]int, headerLine int) ([]map[string]float64, error) {
	labels := make([]map[string]float64, len(columns))
	labelCols := make([]string, 0, len(opt.Labels))
	for col, m := range opt.Labels {
		if len(m) > 0 {
			labelCols = append(labelCols, col)
		}
	}
	sort.Strings(labelCols) // the first error in a fixed order
	for _, col := range labelCols {
		m := opt.Labels[col]
		i, ok := seen[col]
		if !ok {
			return nil, s.perr(headerLine, 0, "", fmt.Errorf("%w %q for labels; columns are %s", ErrColumn, col, strings.Join(columns, ", ")))
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if v := m[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, s.perr(0, 0, col, fmt.Errorf("label %q stands for %v; labels must stand for finite numbers", k, v))
			}
		}
		labels[i] = m
	}
	return labels, nil
}

// checkHeader reports how header differs from want.
func checkHeader(header, want []string) error {
	have := make(map[string]bool, len(header))
	for _, c := range header {
		have[c] = true
	}
	wanted := make(map[string]bool, len(want))
	for _, c := range want {
		wanted[c] = true
		if !have[c] {
			return fmt.Errorf("%w: missing column %q; want columns %s", ErrHeader, c, strings.Join(want, ","))
		}
	}
	for _, c := range header {
		if !wanted[c] {
			return fmt.Errorf("%w: unexpected column %q; want columns %s", ErrHeader, c, strings.Join(want, ","))
		}
	}
	if len(header) != len(want) {
		// Only possible with repeated names in want.
		return fmt.Errorf("%w: %d columns, want %d (%s)", ErrHeader, len(header), len(want), strings.Join(want, ","))
	}
	for i := range want {
		if header[i] != want[i] {
			return fmt.Errorf("%w: columns %s, want %s (in this order)", ErrHeader, strings.Join(header, ","), strings.Join(want, ","))
		}
	}
	return nil
}

// Input limits of ReadCSVOptions: a line (a quoted field may span lines;
// each counts) of at most maxLineBytes, and errors that quote at most
// quoteBytes of a cell or a line.
const (
	maxLineBytes = 16 << 20
	quoteBytes   = 40
)

// lineLimiter passes bytes through until a line exceeds maxLineBytes,
// then fails with a ParseError naming the line and quoting its start.
type lineLimiter struct {
	r      io.Reader
	name   string
	line   int    // 1-based line being read
	n      int    // bytes of it so far
	prefix []byte // its first bytes
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.line++
			l.n = 0
			l.prefix = l.prefix[:0]
			continue
		}
		l.n++
		if len(l.prefix) <= quoteBytes {
			l.prefix = append(l.prefix, c)
		}
		if l.n > maxLineBytes {
			return i, &ParseError{File: l.name, Line: l.line, Err: fmt.Errorf("line longer than %d MiB, starting %s", maxLineBytes>>20, quotePrefix(string(l.prefix)))}
		}
	}
	return n, err
}

// quotePrefix quotes s, or its first quoteBytes bytes and an ellipsis.
func quotePrefix(s string) string {
	if len(s) <= quoteBytes {
		return strconv.Quote(s)
	}
	cut := quoteBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// parseNumber parses a finite decimal number.
func ParseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("%w: empty cell", ErrMissing)
	}
	if s == "NA" {
		return 0, fmt.Errorf("%w: NA", ErrMissing)
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan":
		return 0, fmt.Errorf("%w: %q", ErrNaN, s)
	case "inf", "infinity":
		return 0, fmt.Errorf("%w: %q", ErrInf, s)
	}
	if strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, fmt.Errorf("%w: %s", ErrNotNumber, quotePrefix(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %q is beyond the float64 range", ErrInf, s)
		}
		return 0, fmt.Errorf("%w: %s", ErrNotNumber, quotePrefix(s))
	}
	return v, nil
}

// parseLabel maps a label cell to its number.
func parseLabel(s string, m map[string]float64) (float64, error) {
	s = strings.TrimSpace(s)
	if v, ok := m[s]; ok {
		return v, nil
	}
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		keys[i] = strconv.Quote(k)
	}
	return 0, fmt.Errorf("%w %s, want one of %s", ErrLabel, quotePrefix(s), strings.Join(keys, ", "))
}

// Name returns the file name given to ReadCSV.
func (t *Table) Name() string { return t.name }

// Columns returns the column names in file order.
func (t *Table) Columns() []string { return append([]string(nil), t.columns...) }

// Len returns the number of data rows.
func (t *Table) Len() int { return len(t.lines) }

// Line returns the 1-based line number in the file of data row i, for error
// messages about rows found wanting after reading. It panics if i is out of
// range.
func (t *Table) Line(i int) int { return t.lines[i] }

// index returns the position of column name, or an error listing the
// columns.
func (t *Table) index(name string) (int, error) {
	for i, c := range t.columns {
		if c == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%s: %w %q; columns are %s", t.name, ErrColumn, name, strings.Join(t.columns, ", "))
}

// Column returns a copy of the values of the named column. An unknown name
// is an error wrapping ErrColumn that lists the columns.
func (t *Table) Column(name string) ([]float64, error) {
	j, err := t.index(name)
	if err != nil {
		return nil, err
	}
	nc := len(t.columns)
	v := make([]float64, t.Len())
	for i := range v {
		v[i] = t.data[i*nc+j]
	}
	return v, nil
}

// Dataset returns the data set whose target is the named column and whose
// inputs are all other columns, in file order. It is Select(target).
func (t *Table) Dataset(target string) (*Dataset, error) {
	return t.Select(target)
}

// Select returns the data set whose target is the named column and whose
// inputs are the named input columns in the order given, or all columns but
// the target, in file order, if none are named. An unknown column name is an
// error wrapping ErrColumn that lists the columns; so is a target also named
// as an input, a column named twice, and a table with no column left for
// the inputs.
func (t *Table) Select(target string, inputs ...string) (*Dataset, error) {
	tj, err := t.index(target)
	if err != nil {
		return nil, err
	}
	var idx []int
	if len(inputs) == 0 {
		for j := range t.columns {
			if j != tj {
				idx = append(idx, j)
			}
		}
		if len(idx) == 0 {
			return nil, fmt.Errorf("%s: %w: the target %q is the only column, none is left for the inputs", t.name, ErrColumn, target)
		}
	} else {
		used := map[int]bool{tj: true}
		for _, c := range inputs {
			j, err := t.index(c)
			if err != nil {
				return nil, err
			}
			if used[j] {
				return nil, fmt.Errorf("%s: column %q is used twice (inputs %q, target %q)", t.name, c, inputs, target)
			}
			used[j] = true
			idx = append(idx, j)
		}
	}
	n, nc := t.Len(), len(t.columns)
	x := mat.NewDense(n, len(idx), nil)
	y := make([]float64, n)
	cols := make([]string, len(idx))
	for k, j := range idx {
		cols[k] = t.columns[j]
	}
	for i := 0; i < n; i++ {
		row := t.data[i*nc : (i+1)*nc]
		for k, j := range idx {
			x.Set(i, k, row[j])
		}
		y[i] = row[tj]
	}
	return &Dataset{X: x, T: y, Columns: cols, Target: target}, nil
}
