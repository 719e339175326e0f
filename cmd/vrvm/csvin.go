package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// prefixLen is the number of bytes of a cell or line quoted in an error.
const prefixLen = 40

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

// table is a CSV file read for fit or predict by datasets.ReadTable: only
// the columns asked for are kept, numeric ones as numbers (NaN marks a
// missing cell), text ones as strings ("" marks a missing cell).
type table struct {
	name   string
	header []string
	index  map[string]int // column name → field position
	lines  []int          // line of each data row
	num    map[string][]float64
	text   map[string][]string
}

// How a column is read.
const (
	numeric = datasets.NumericColumn
	text    = datasets.TextColumn
)

// readSpec lists the columns to read, chosen from the header.
type readSpec = map[string]datasets.ColumnKind

// indexColumn is the name given to a first column whose header is empty:
// the row names of R's write.csv and the index of pandas' to_csv.
const indexColumn = datasets.IndexColumn

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
	f, err := datasets.ReadTable(rd, name, datasets.ReadOptions{Choose: func(header []string) (readSpec, error) {
		return choose(headerTable(name, header))
	}})
	if f == nil {
		return nil, err
	}
	// With an error in a data row, f holds the rows before it (readTable).
	t := headerTable(name, f.Columns())
	t.lines = make([]int, f.Len())
	for i := range t.lines {
		t.lines[i] = f.Line(i)
	}
	t.num, t.text = map[string][]float64{}, map[string][]string{}
	for _, c := range t.header {
		if v, ok := f.Numeric(c); ok {
			t.num[c] = v
		}
		if v, ok := f.Text(c); ok {
			t.text[c] = v
		}
	}
	return t, err
}

// headerTable is a table of the columns of header and no rows yet.
func headerTable(name string, header []string) *table {
	t := &table{name: name, header: header, index: make(map[string]int, len(header))}
	for i, c := range header {
		t.index[c] = i
	}
	return t
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
