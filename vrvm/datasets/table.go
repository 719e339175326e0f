package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// Limits of ReadTable besides the line limit, maxLineBytes, of
// ReadCSVOptions: a field of at most maxFieldBytes, a record of at most
// maxColumns fields. Input beyond them is an error wrapping ErrLimit that
// quotes at most quoteBytes of the offending line or field, after reading
// no more than the limit.
const (
	maxFieldBytes = 1 << 20 // one field
	maxColumns    = 1 << 20 // fields per record
)

// ErrLimit is wrapped by the errors of ReadTable for input beyond its
// limits: a line longer than 16 MiB (a quoted field may span lines; each
// counts), a field longer than 1 MiB, or more than 1,048,576 fields.
var ErrLimit = errors.New("beyond the input limit")

// IndexColumn is the name ReadTable gives a first column whose header is
// empty: the row names of R's write.csv and the index of pandas' to_csv.
const IndexColumn = "rownames"

// ColumnKind says how ReadTable reads a column.
type ColumnKind int

const (
	// NumericColumn cells are finite decimal numbers; a missing cell
	// (IsMissing) is NaN.
	NumericColumn ColumnKind = iota + 1
	// TextColumn cells are kept as text: categorical inputs, class
	// labels, row names. A missing cell is "": an empty cell, or an
	// unquoted NA or NaN ("NA" in quotes is the text NA).
	TextColumn
)

// ReadOptions configures ReadTable. The zero value reads every column as
// numbers, except an index column (IndexColumn), which is read as text.
type ReadOptions struct {
	// Text names the columns read as text (TextColumn); the others are
	// read as numbers. A name the header lacks is an error wrapping
	// ErrColumn. Ignored if Choose is set.
	Text []string

	// Choose, if not nil, is called once with the header's column names
	// (an empty first name replaced by IndexColumn) and returns how to
	// read each column. Columns it leaves out (or maps to 0) are not
	// parsed, so they may hold anything; an error it returns is returned
	// by ReadTable as it is.
	Choose func(columns []string) (map[string]ColumnKind, error)
}

// spec returns the kind of each column to read.
func (o ReadOptions) spec(header []string) (map[string]ColumnKind, error) {
	if o.Choose != nil {
		return o.Choose(slices.Clone(header))
	}
	spec := make(map[string]ColumnKind, len(header))
	for i, c := range header {
		spec[c] = NumericColumn
		if i == 0 && c == IndexColumn {
			spec[c] = TextColumn
		}
	}
	for _, c := range o.Text {
		if _, ok := spec[c]; !ok {
			return nil, fmt.Errorf("%w %q (ReadOptions.Text); columns are %s", ErrColumn, c, strings.Join(header, ", "))
		}
		spec[c] = TextColumn
	}
	return spec, nil
}

// IsMissing reports whether a cell stands for a missing value: empty, R's
// NA, or pandas' and numpy's NaN (any case). ReadTable reads a missing cell
// of a numeric column as NaN and, unless it is quoted, of a text column as
// "".
func IsMissing(s string) bool {
	return s == "" || s == "NA" || strings.EqualFold(s, "nan")
}

// csvReader reads RFC 4180 records from a stream without ever holding
// more than one record, within the limits above. Unquoted fields are
// trimmed of spaces; a quoted field is taken verbatim ("" is a quote) and
// may hold commas and line breaks. Blank lines are skipped; a leading
// UTF-8 byte-order mark is ignored.
type csvReader struct {
	br      *bufio.Reader
	name    string
	line    int    // 1-based number of the line being read
	lineLen int    // bytes of it read so far
	linePre []byte // its first quoteBytes+1 bytes, for errors
	recLine int    // line where the last record starts
	buf     []byte
	ends    []int
	quoted  []bool
	started bool

	fieldStart int // offset in buf of the field being read
}

func newCSVReader(r io.Reader, name string) *csvReader {
	return &csvReader{br: bufio.NewReaderSize(r, 64<<10), name: name, line: 1}
}

func (r *csvReader) errorf(line, field int, column string, err error) error {
	return &ParseError{File: r.name, Line: line, Field: field, Column: column, Err: err}
}

// readByte reads one byte, counting lines and enforcing the line limit.
func (r *csvReader) readByte() (byte, error) {
	c, err := r.br.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		r.line++
		r.lineLen = 0
		r.linePre = r.linePre[:0]
		return c, nil
	}
	r.lineLen++
	if len(r.linePre) <= quoteBytes {
		r.linePre = append(r.linePre, c)
	}
	if r.lineLen > maxLineBytes {
		return 0, r.errorf(r.line, 0, "", fmt.Errorf("%w: line longer than %d MiB, starting %s", ErrLimit, maxLineBytes>>20, quotePrefix(string(r.linePre))))
	}
	return c, nil
}

// read returns the fields of the next record, or io.EOF. The returned
// strings share one allocation per record; the slice is reused.
func (r *csvReader) read() ([]string, []bool, error) {
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(3); err == nil && string(b) == "\uFEFF" {
			r.br.Discard(3)
		}
	}
	r.buf, r.ends, r.quoted = r.buf[:0], r.ends[:0], r.quoted[:0]
	if err := r.skipBlank(); err != nil {
		return nil, nil, err
	}
	r.recLine = r.line
	r.fieldStart = 0
	for {
		// Start of a field: skip leading spaces, then quoted or not.
		c, err := r.readByte()
		for err == nil && (c == ' ' || c == '\t') {
			c, err = r.readByte()
		}
		if err != nil && err != io.EOF {
			return nil, nil, r.wrapRead(err)
		}
		var end bool
		if err == nil && c == '"' {
			end, err = r.quotedField()
		} else {
			end, err = r.unquotedField(c, err)
		}
		if err != nil {
			return nil, nil, err
		}
		if end {
			return r.record(), r.quoted, nil
		}
	}
}

// skipBlank skips blank lines; it returns io.EOF at the end of the input.
func (r *csvReader) skipBlank() error {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return r.errorf(r.line, 0, "", err)
		}
		if b[0] == '\n' {
			r.readByte()
			continue
		}
		if b[0] == '\r' {
			if b2, err := r.br.Peek(2); err == nil && b2[1] == '\n' {
				r.br.Discard(2)
				r.line++
				r.lineLen = 0
				r.linePre = r.linePre[:0]
				continue
			}
		}
		return nil
	}
}

// field returns the 1-based number of the field being read.
func (r *csvReader) field() int { return len(r.ends) + 1 }

// endField ends the field being read (trimmed of spaces unless quoted).
func (r *csvReader) endField(quoted bool) error {
	content := r.buf[r.fieldStart:]
	if !quoted {
		t := strings.TrimSpace(string(content)) // rare: spaces around a number
		if len(t) != len(content) {
			r.buf = append(r.buf[:r.fieldStart], t...)
		}
	}
	r.ends = append(r.ends, len(r.buf))
	r.quoted = append(r.quoted, quoted)
	if len(r.ends) > maxColumns {
		return r.errorf(r.recLine, 0, "", fmt.Errorf("%w: more than %d fields", ErrLimit, maxColumns))
	}
	r.fieldStart = len(r.buf)
	return nil
}

// add appends c to the field being read.
func (r *csvReader) add(c byte) error {
	r.buf = append(r.buf, c)
	if len(r.buf)-r.fieldStart > maxFieldBytes {
		return r.errorf(r.line, r.field(), "", fmt.Errorf("%w: field longer than %d MiB, starting %s", ErrLimit, maxFieldBytes>>20, quotePrefix(string(r.buf[r.fieldStart:]))))
	}
	return nil
}

// quotedField reads a quoted field after its opening quote, and the
// separator after it; end reports the end of the record.
func (r *csvReader) quotedField() (end bool, err error) {
	quoteLine := r.line
	var c byte
	for {
		c, err = r.readByte()
		if err == io.EOF {
			return false, r.errorf(quoteLine, r.field(), "", errors.New("quoted field not closed before the end of the file"))
		}
		if err != nil {
			return false, r.wrapRead(err)
		}
		if c == '"' {
			c, err = r.readByte()
			if err == nil && c == '"' {
				if err := r.add('"'); err != nil {
					return false, err
				}
				continue
			}
			break
		}
		if err := r.add(c); err != nil {
			return false, err
		}
	}
	for err == nil && (c == ' ' || c == '\t') {
		c, err = r.readByte()
	}
	if err != nil && err != io.EOF {
		return false, r.wrapRead(err)
	}
	if err := r.endField(true); err != nil {
		return false, err
	}
	if err == nil && c == '\r' {
		c, err = r.readByte()
		if err == nil && c != '\n' {
			return false, r.errorf(r.line, r.field()-1, "", errors.New(`stray carriage return after a quoted field`))
		}
	}
	if err == io.EOF || c == '\n' {
		return true, nil
	}
	if err != nil {
		return false, r.wrapRead(err)
	}
	if c != ',' {
		return false, r.errorf(r.line, r.field()-1, "", fmt.Errorf("text %q after the closing quote of a field", string(c)))
	}
	return false, nil
}

// unquotedField reads an unquoted field from its first byte c (or the
// error err that reading it gave) to its separator; end reports the end
// of the record.
func (r *csvReader) unquotedField(c byte, err error) (end bool, _ error) {
	for {
		if err == io.EOF || (err == nil && (c == ',' || c == '\n')) {
			break
		}
		if err != nil {
			return false, r.wrapRead(err)
		}
		if c == '"' {
			return false, r.errorf(r.line, r.field(), "", errors.New(`bare " in an unquoted field (quote the field and double the quote)`))
		}
		if c == '\r' {
			c, err = r.readByte()
			if err == io.EOF || (err == nil && c == '\n') {
				break
			}
			if err := r.add('\r'); err != nil {
				return false, err
			}
			continue
		}
		if err := r.add(c); err != nil {
			return false, err
		}
		c, err = r.readByte()
	}
	if err := r.endField(false); err != nil {
		return false, err
	}
	return err == io.EOF || c == '\n', nil
}

func (r *csvReader) wrapRead(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	return r.errorf(r.line, 0, "", err)
}

// record splits the buffer into the fields of the record.
func (r *csvReader) record() []string {
	s := string(r.buf)
	out := make([]string, len(r.ends))
	start := 0
	for i, e := range r.ends {
		out[i] = s[start:e]
		start = e
	}
	return out
}

// Frame is a CSV file read by ReadTable: the header, and the columns asked
// for, numeric ones as numbers (NaN marks a missing cell) and text ones as
// strings ("" marks a missing cell). It is immutable once read.
type Frame struct {
	name   string
	header []string
	index  map[string]int // column name → field position
	lines  []int          // line of each data row
	num    map[string][]float64
	text   map[string][]string
}

// ReadTableFile reads the CSV file at path with ReadTable; errors name the
// path.
func ReadTableFile(path string, opt ReadOptions) (*Frame, error) {
	var t *Frame
	err := withFile(path, func(r io.Reader) (err error) {
		t, err = ReadTable(r, path, opt)
		return err
	})
	return t, err
}

// ReadTable reads a CSV file with a header line from rd, the way the vrvm
// command reads its input: unlike ReadCSV it accepts missing values, text
// (categorical) columns and row names, and it reads only the columns
// asked for (opt). name is used in error messages only.
//
// The format is RFC 4180: comma-separated fields, optionally
// double-quoted ("" in a quoted field is a quote; a quoted field may hold
// commas and line breaks); \n or \r\n line ends; blank lines are skipped
// and a leading UTF-8 byte-order mark is ignored. Unquoted fields are
// trimmed of spaces. The first line is the header: one non-empty, distinct
// name per column, in UTF-8 without control characters, not all numbers;
// an empty first name, as R's write.csv and pandas' to_csv write for the
// row names, becomes IndexColumn. Every further line must have as many
// fields as the header; a line equal to the header line (files joined with
// their headers) is an error.
//
// A missing cell (IsMissing: empty, NA or NaN) is NaN in a numeric column
// and "" in a text column; any other cell of a numeric column must be a
// finite decimal number, as for ReadCSV. What to do with missing values
// (drop the rows, impute, or reject the file) is the caller's choice.
//
// Errors are *ParseError values naming the file, the line and the column,
// wrapping ErrEmpty, ErrNoRows, ErrHeader, ErrFieldCount, ErrNotNumber,
// ErrInf or ErrLimit (see the limits there); ErrColumn for a column of
// opt.Text the header lacks. An error in a data row returns, with the
// error, the Frame of the rows before it (so that a caller can report a
// problem of an earlier row first); other errors return a nil Frame.
func ReadTable(rd io.Reader, name string, opt ReadOptions) (*Frame, error) {
	r := newCSVReader(rd, name)
	t, header, err := readHeader(r, name)
	if err != nil {
		return nil, err
	}
	spec, err := opt.spec(t.header)
	if err != nil {
		return nil, err
	}
	cols := make([]*tableCol, 0, len(spec))
	for _, c := range t.header {
		switch k := spec[c]; k {
		case 0:
		case NumericColumn, TextColumn:
			cols = append(cols, &tableCol{name: c, pos: t.index[c], kind: k})
		default:
			return nil, fmt.Errorf("datasets: ReadTable: column %q: unknown ColumnKind %d", c, k)
		}
	}
	if err := t.readRows(r, cols, header); err != nil {
		// An error in a data row returns the rows before it too.
		t.store(cols)
		return t, err
	}
	if len(t.lines) == 0 {
		return nil, r.errorf(0, 0, "", ErrNoRows)
	}
	t.store(cols)
	return t, nil
}

// readHeader reads the header line of a ReadTable file into a Frame with
// no rows, and returns the line as written too, to recognise a repeated
// header line.
func readHeader(r *csvReader, name string) (t *Frame, header []string, err error) {
	rec, _, err := r.read()
	if err == io.EOF {
		return nil, nil, r.errorf(0, 0, "", ErrEmpty)
	}
	if err != nil {
		return nil, nil, err
	}
	headerLine := r.recLine
	header = slices.Clone(rec) // as written, to recognise a repeated header line
	t = &Frame{name: name, header: rec, index: make(map[string]int, len(rec))}
	allNumbers := true
	for i, c := range rec {
		if c == "" && i == 0 && len(rec) > 1 {
			c = IndexColumn
			t.header[0] = c
		}
		if c == "" {
			return nil, nil, r.errorf(headerLine, i+1, "", fmt.Errorf("%w: empty column name", ErrHeader))
		}
		if !utf8.ValidString(c) || strings.IndexFunc(c, unicode.IsControl) >= 0 {
			hint := ""
			if len(rec) == 1 && strings.Contains(c, "\t") {
				hint = " (one column: the file seems to separate its fields by tabs; vrvm reads comma-separated files)"
			}
			return nil, nil, r.errorf(headerLine, i+1, "", fmt.Errorf("%w: column name %s is not valid UTF-8 or holds a control character%s", ErrHeader, quotePrefix(c), hint))
		}
		if j, dup := t.index[c]; dup {
			return nil, nil, r.errorf(headerLine, i+1, c, fmt.Errorf("%w: column name repeats field %d", ErrHeader, j+1))
		}
		if _, err := ParseNumber(c); err != nil {
			allNumbers = false
		}
		t.index[c] = i
	}
	if allNumbers {
		return nil, nil, r.errorf(headerLine, 0, "", fmt.Errorf("%w: the first line holds numbers, not column names; the first line must name the columns", ErrHeader))
	}
	return t, header, nil
}

// tableCol is a column that ReadTable reads, with its cells so far.
type tableCol struct {
	name string
	pos  int
	num  []float64
	text []string
	kind ColumnKind
}

// readRows reads the data rows into cols, and their lines into t.
func (t *Frame) readRows(r *csvReader, cols []*tableCol, header []string) error {
	for {
		rec, quoted, err := r.read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(rec) != len(t.header) {
			return r.errorf(r.recLine, 0, "", fmt.Errorf("%w: %d fields, the header has %d columns", ErrFieldCount, len(rec), len(t.header)))
		}
		if slices.Equal(rec, header) {
			// Files joined with their headers (cat a.csv b.csv): the line
			// would be read as a row, a text cell or a class named after
			// its column.
			return r.errorf(r.recLine, 0, "", fmt.Errorf("%w: the line repeats the header line (files joined with their headers?); delete it", ErrHeader))
		}
		for _, c := range cols {
			f := rec[c.pos]
			if c.kind == TextColumn {
				if IsMissing(f) && !quoted[c.pos] || f == "" {
					f = ""
				} else {
					f = strings.Clone(f)
				}
				c.text = append(c.text, f)
				continue
			}
			if IsMissing(f) {
				c.num = append(c.num, math.NaN())
				continue
			}
			v, err := ParseNumber(f)
			if err != nil {
				return r.errorf(r.recLine, c.pos+1, c.name, err)
			}
			c.num = append(c.num, v)
		}
		t.lines = append(t.lines, r.recLine)
	}
}

// store stores the columns of the rows read in t.
func (t *Frame) store(cols []*tableCol) {
	t.num, t.text = map[string][]float64{}, map[string][]string{}
	n := len(t.lines) // a bad row's first cells may have been kept
	for _, c := range cols {
		if c.kind == TextColumn {
			t.text[c.name] = c.text[:n]
		} else {
			t.num[c.name] = c.num[:n]
		}
	}
}

// Name returns the file name given to ReadTable.
func (t *Frame) Name() string { return t.name }

// Columns returns every column name of the header in file order (an empty
// first name as IndexColumn), read or not.
func (t *Frame) Columns() []string { return slices.Clone(t.header) }

// Len returns the number of data rows.
func (t *Frame) Len() int { return len(t.lines) }

// Line returns the 1-based line number in the file of data row i, for
// error messages about rows found wanting after reading. It panics if i is
// out of range.
func (t *Frame) Line(i int) int { return t.lines[i] }

// Field returns the 1-based field number of the named column in the
// header, or 0 if the header lacks it.
func (t *Frame) Field(name string) int {
	j, ok := t.index[name]
	if !ok {
		return 0
	}
	return j + 1
}

// Numeric returns the values of a column read as numbers, NaN marking a
// missing cell, and whether it was read so. The slice is the frame's own:
// do not modify it.
func (t *Frame) Numeric(name string) ([]float64, bool) {
	v, ok := t.num[name]
	return v, ok
}

// Text returns the cells of a column read as text, "" marking a missing
// cell, and whether it was read so. The slice is the frame's own: do not
// modify it.
func (t *Frame) Text(name string) ([]string, bool) {
	v, ok := t.text[name]
	return v, ok
}

// RowNames returns the row names, the text of the index column
// (IndexColumn), or nil if the file has none or it was not read as text.
func (t *Frame) RowNames() []string {
	if t.Field(IndexColumn) != 1 {
		return nil
	}
	return t.text[IndexColumn]
}

// Dataset returns the data set whose target is the named numeric column
// and whose inputs are the named numeric columns in the order given, or
// every other numeric column in file order but the index column if none
// are named. A missing value in any of them is an error wrapping
// ErrMissing that names its line and column (drop or impute such rows
// first, or read the file with ReadCSV's rules); so is a column that was
// not read as numbers (ErrColumn).
func (t *Frame) Dataset(target string, inputs ...string) (*Dataset, error) {
	col := func(c string) ([]float64, error) {
		v, ok := t.num[c]
		if !ok {
			return nil, fmt.Errorf("%s: %w %q read as numbers; numeric columns are %s", t.name, ErrColumn, c, strings.Join(t.numericColumns(), ", "))
		}
		for i, x := range v {
			if math.IsNaN(x) {
				return nil, &ParseError{File: t.name, Line: t.lines[i], Field: t.Field(c), Column: c, Err: fmt.Errorf("%w: the cell is empty, NA or NaN", ErrMissing)}
			}
		}
		return v, nil
	}
	y, err := col(target)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		for _, c := range t.numericColumns() {
			if c != target && !(c == IndexColumn && t.index[c] == 0) {
				inputs = append(inputs, c)
			}
		}
		if len(inputs) == 0 {
			return nil, fmt.Errorf("%s: %w: the target %q is the only numeric column, none is left for the inputs", t.name, ErrColumn, target)
		}
	}
	used := map[string]bool{target: true}
	xs := make([][]float64, len(inputs))
	for k, c := range inputs {
		if used[c] {
			return nil, fmt.Errorf("%s: column %q is used twice (inputs %q, target %q)", t.name, c, inputs, target)
		}
		used[c] = true
		if xs[k], err = col(c); err != nil {
			return nil, err
		}
	}
	n := t.Len()
	d := &Dataset{X: mat.NewDense(n, len(inputs), nil), T: slices.Clone(y), Columns: slices.Clone(inputs), Target: target}
	for k := range inputs {
		for i := 0; i < n; i++ {
			d.X.Set(i, k, xs[k][i])
		}
	}
	return d, nil
}

// numericColumns lists the columns read as numbers, in file order.
func (t *Frame) numericColumns() []string {
	var c []string
	for _, h := range t.header {
		if _, ok := t.num[h]; ok {
			c = append(c, h)
		}
	}
	return c
}
