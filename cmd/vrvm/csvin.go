package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// Limits of the CSV input of fit and predict. A file beyond them is
// rejected with an error that quotes at most prefixLen bytes of the
// offending line or field, after reading at most maxLineBytes of it.
const (
	maxLineBytes  = 16 << 20 // one line (a quoted field may span lines; each counts)
	maxFieldBytes = 1 << 20  // one field
	maxColumns    = 1 << 20  // fields per record
	prefixLen     = 40       // bytes of a line or field quoted in an error
)

// errLimit is wrapped by the errors of input beyond the limits.
var errLimit = errors.New("beyond the input limit")

// indexColumn is the name given to a first column whose header is empty:
// the row names of R's write.csv and the index of pandas' to_csv.
const indexColumn = "rownames"

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
	linePre []byte // its first prefixLen+1 bytes, for errors
	recLine int    // line where the last record starts
	buf     []byte
	ends    []int
	quoted  []bool
	started bool
}

func newCSVReader(r io.Reader, name string) *csvReader {
	return &csvReader{br: bufio.NewReaderSize(r, 64<<10), name: name, line: 1}
}

func (r *csvReader) errorf(line, field int, column string, err error) error {
	return &datasets.ParseError{File: r.name, Line: line, Field: field, Column: column, Err: err}
}

// quotePrefix quotes the first prefixLen bytes of b, marking a cut.
func quotePrefix(b []byte) string {
	if len(b) <= prefixLen {
		return strconv.Quote(string(b))
	}
	cut := prefixLen
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
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
	if len(r.linePre) <= prefixLen {
		r.linePre = append(r.linePre, c)
	}
	if r.lineLen > maxLineBytes {
		return 0, r.errorf(r.line, 0, "", fmt.Errorf("%w: line longer than %d MiB, starting %s", errLimit, maxLineBytes>>20, quotePrefix(r.linePre)))
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
	// Skip blank lines.
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return nil, nil, io.EOF
			}
			return nil, nil, r.errorf(r.line, 0, "", err)
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
		break
	}
	r.recLine = r.line
	fieldStart := 0
	field := func() int { return len(r.ends) + 1 }
	endField := func(quoted bool) error {
		content := r.buf[fieldStart:]
		if !quoted {
			t := strings.TrimSpace(string(content)) // rare: spaces around a number
			if len(t) != len(content) {
				r.buf = append(r.buf[:fieldStart], t...)
			}
		}
		r.ends = append(r.ends, len(r.buf))
		r.quoted = append(r.quoted, quoted)
		if len(r.ends) > maxColumns {
			return r.errorf(r.recLine, 0, "", fmt.Errorf("%w: more than %d fields", errLimit, maxColumns))
		}
		fieldStart = len(r.buf)
		return nil
	}
	add := func(c byte) error {
		r.buf = append(r.buf, c)
		if len(r.buf)-fieldStart > maxFieldBytes {
			return r.errorf(r.line, field(), "", fmt.Errorf("%w: field longer than %d MiB, starting %s", errLimit, maxFieldBytes>>20, quotePrefix(r.buf[fieldStart:])))
		}
		return nil
	}
	for {
		// Start of a field: skip leading spaces, then quoted or not.
		c, err := r.readByte()
		for err == nil && (c == ' ' || c == '\t') {
			c, err = r.readByte()
		}
		if err != nil && err != io.EOF {
			return nil, nil, r.wrapRead(err)
		}
		if err == nil && c == '"' {
			quoteLine := r.line
			for {
				c, err = r.readByte()
				if err == io.EOF {
					return nil, nil, r.errorf(quoteLine, field(), "", errors.New("quoted field not closed before the end of the file"))
				}
				if err != nil {
					return nil, nil, r.wrapRead(err)
				}
				if c == '"' {
					c, err = r.readByte()
					if err == nil && c == '"' {
						if err := add('"'); err != nil {
							return nil, nil, err
						}
						continue
					}
					break
				}
				if err := add(c); err != nil {
					return nil, nil, err
				}
			}
			for err == nil && (c == ' ' || c == '\t') {
				c, err = r.readByte()
			}
			if err != nil && err != io.EOF {
				return nil, nil, r.wrapRead(err)
			}
			if err := endField(true); err != nil {
				return nil, nil, err
			}
			if err == nil && c == '\r' {
				c, err = r.readByte()
				if err == nil && c != '\n' {
					return nil, nil, r.errorf(r.line, field()-1, "", errors.New(`stray carriage return after a quoted field`))
				}
			}
			if err == io.EOF || c == '\n' {
				return r.record(), r.quoted, nil
			}
			if err != nil {
				return nil, nil, r.wrapRead(err)
			}
			if c != ',' {
				return nil, nil, r.errorf(r.line, field()-1, "", fmt.Errorf("text %q after the closing quote of a field", string(c)))
			}
			continue
		}
		// Unquoted field.
		for {
			if err == io.EOF || (err == nil && (c == ',' || c == '\n')) {
				break
			}
			if err != nil {
				return nil, nil, r.wrapRead(err)
			}
			if c == '"' {
				return nil, nil, r.errorf(r.line, field(), "", errors.New(`bare " in an unquoted field (quote the field and double the quote)`))
			}
			if c == '\r' {
				c, err = r.readByte()
				if err == io.EOF || (err == nil && c == '\n') {
					break
				}
				if err := add('\r'); err != nil {
					return nil, nil, err
				}
				continue
			}
			if err := add(c); err != nil {
				return nil, nil, err
			}
			c, err = r.readByte()
		}
		if err := endField(false); err != nil {
			return nil, nil, err
		}
		if err == io.EOF || c == '\n' {
			return r.record(), r.quoted, nil
		}
	}
}

func (r *csvReader) wrapRead(err error) error {
	var pe *datasets.ParseError
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

// table is a CSV file read for fit or predict: only the columns asked for
// are kept, numeric ones as numbers (NaN marks a missing cell), text ones
// as strings ("" marks a missing cell).
type table struct {
	name   string
	header []string
	index  map[string]int // column name → field position
	lines  []int          // line of each data row
	num    map[string][]float64
	text   map[string][]string
}

// colKind says how a column is read.
type colKind int

const (
	numeric colKind = iota + 1
	text
)

// readSpec lists the columns to read, chosen from the header.
type readSpec map[string]colKind

// openInput opens a CSV file, or standard input for "-".
func openInput(path string) (io.ReadCloser, string, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), "<stdin>", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	return f, path, nil
}

// readTable reads the CSV file at path ("-": standard input): the header,
// from which choose picks the columns to keep, then every row. Columns not
// chosen are not parsed. A first header field that is empty names an index
// column, indexColumn. An error in a data row returns, with the error, the
// table of the rows before it, so that a caller can report a problem of an
// earlier row first.
func readTable(path string, choose func(t *table) (readSpec, error)) (*table, error) {
	rc, name, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readTableFrom(rc, name, choose)
}

func readTableFrom(rd io.Reader, name string, choose func(t *table) (readSpec, error)) (*table, error) {
	r := newCSVReader(rd, name)
	rec, _, err := r.read()
	if err == io.EOF {
		return nil, r.errorf(0, 0, "", datasets.ErrEmpty)
	}
	if err != nil {
		return nil, err
	}
	headerLine := r.recLine
	header := slices.Clone(rec) // as written, to recognise a repeated header line
	t := &table{name: name, header: rec, index: make(map[string]int, len(rec))}
	allNumbers := true
	for i, c := range rec {
		if c == "" && i == 0 && len(rec) > 1 {
			c = indexColumn
			t.header[0] = c
		}
		if c == "" {
			return nil, r.errorf(headerLine, i+1, "", fmt.Errorf("%w: empty column name", datasets.ErrHeader))
		}
		if !utf8.ValidString(c) || strings.IndexFunc(c, unicode.IsControl) >= 0 {
			hint := ""
			if len(rec) == 1 && strings.Contains(c, "\t") {
				hint = " (one column: the file seems to separate its fields by tabs; vrvm reads comma-separated files)"
			}
			return nil, r.errorf(headerLine, i+1, "", fmt.Errorf("%w: column name %s is not valid UTF-8 or holds a control character%s", datasets.ErrHeader, quotePrefix([]byte(c)), hint))
		}
		if j, dup := t.index[c]; dup {
			return nil, r.errorf(headerLine, i+1, c, fmt.Errorf("%w: column name repeats field %d", datasets.ErrHeader, j+1))
		}
		if _, err := parseNumber(c); err != nil {
			allNumbers = false
		}
		t.index[c] = i
	}
	if allNumbers {
		return nil, r.errorf(headerLine, 0, "", fmt.Errorf("%w: the first line holds numbers, not column names; the first line must name the columns", datasets.ErrHeader))
	}
	spec, err := choose(t)
	if err != nil {
		return nil, err
	}
	type col struct {
		name string
		pos  int
		num  []float64
		text []string
		kind colKind
	}
	cols := make([]*col, 0, len(spec))
	for _, c := range t.header {
		if k, ok := spec[c]; ok {
			cols = append(cols, &col{name: c, pos: t.index[c], kind: k})
		}
	}
	// columns stores the columns of the rows read in t.
	columns := func() {
		t.num, t.text = map[string][]float64{}, map[string][]string{}
		n := len(t.lines) // a bad row's first cells may have been kept
		for _, c := range cols {
			if c.kind == text {
				t.text[c.name] = c.text[:n]
			} else {
				t.num[c.name] = c.num[:n]
			}
		}
	}
	// An error in a data row returns the rows before it too (readTable).
	partial := func(err error) (*table, error) {
		columns()
		return t, err
	}
	for {
		rec, quoted, err := r.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return partial(err)
		}
		if len(rec) != len(t.header) {
			return partial(r.errorf(r.recLine, 0, "", fmt.Errorf("%w: %d fields, the header has %d columns", datasets.ErrFieldCount, len(rec), len(t.header))))
		}
		if slices.Equal(rec, header) {
			// Files joined with their headers (cat a.csv b.csv): the line
			// would be read as a row, a text cell or a class named after
			// its column.
			return partial(r.errorf(r.recLine, 0, "", fmt.Errorf("%w: the line repeats the header line (files joined with their headers?); delete it", datasets.ErrHeader)))
		}
		for _, c := range cols {
			f := rec[c.pos]
			if c.kind == text {
				if isMissing(f) && !quoted[c.pos] || f == "" {
					f = ""
				} else {
					f = strings.Clone(f)
				}
				c.text = append(c.text, f)
				continue
			}
			if isMissing(f) {
				c.num = append(c.num, nan)
				continue
			}
			v, err := parseNumber(f)
			if err != nil {
				return partial(r.errorf(r.recLine, c.pos+1, c.name, err))
			}
			c.num = append(c.num, v)
		}
		t.lines = append(t.lines, r.recLine)
	}
	if len(t.lines) == 0 {
		return nil, r.errorf(0, 0, "", datasets.ErrNoRows)
	}
	columns()
	return t, nil
}

// Len returns the number of data rows.
func (t *table) Len() int { return len(t.lines) }

// has reports whether the file has the named column.
func (t *table) has(name string) bool { _, ok := t.index[name]; return ok }

// field returns the 1-based field number of a column.
func (t *table) field(name string) int { return t.index[name] + 1 }

// columnList lists the columns for an error message, shortened for wide
// files.
func (t *table) columnList() string {
	const show = 12
	if len(t.header) <= show {
		return strings.Join(t.header, ", ")
	}
	return fmt.Sprintf("%s, … (%d columns)", strings.Join(t.header[:show], ", "), len(t.header))
}

// noColumn is the error of a column the file lacks. A header read as one
// column that holds semicolons is most likely a file separated by them (as
// spreadsheets with a decimal comma write CSV), which the message says.
func (t *table) noColumn(name, role string) error {
	hint := ""
	if len(t.header) == 1 && strings.Contains(t.header[0], ";") {
		hint = " (one column: the file seems to separate its fields by semicolons; vrvm reads comma-separated files)"
	}
	return fmt.Errorf("%s: %w %q%s; columns are %s%s", t.name, datasets.ErrColumn, name, role, t.columnList(), hint)
}

// isMissing reports whether a cell stands for a missing value: empty, R's
// NA, or pandas' and numpy's NaN (any case).
func isMissing(s string) bool {
	return s == "" || s == "NA" || strings.EqualFold(s, "nan")
}

// parseNumber parses a finite decimal number; the same rules as the
// datasets package.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("%w: empty cell", datasets.ErrMissing)
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity":
		return 0, fmt.Errorf("%w: %q", datasets.ErrInf, s)
	}
	if strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, fmt.Errorf("%w: %s", datasets.ErrNotNumber, quotePrefix([]byte(s)))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %q is beyond the float64 range", datasets.ErrInf, s)
		}
		return 0, fmt.Errorf("%w: %s", datasets.ErrNotNumber, quotePrefix([]byte(s)))
	}
	return v, nil
}
