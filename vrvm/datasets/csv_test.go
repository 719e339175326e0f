package datasets

import (
	"encoding/csv"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

func TestReadCSV(t *testing.T) {
	t.Parallel()
	// BOM, CRLF, spaces around fields, quotes, a blank line, signs and
	// leading dots.
	in := "\uFEFF x , \"y\",z\r\n 1.5 , \"-2e-3\",-0\r\n\r\n+3,.5,7.\r\n"
	tab, err := ReadCSV(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tab.Columns(), []string{"x", "y", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %q, want %q", got, want)
	}
	if tab.Name() != "in.csv" || tab.Len() != 2 {
		t.Errorf("Name() = %q, Len() = %d, want in.csv, 2", tab.Name(), tab.Len())
	}
	if tab.Line(0) != 2 || tab.Line(1) != 4 {
		t.Errorf("Line(0), Line(1) = %d, %d, want 2, 4", tab.Line(0), tab.Line(1))
	}
	want := map[string][]float64{"x": {1.5, 3}, "y": {-2e-3, 0.5}, "z": {0, 7}}
	for c, w := range want {
		got, err := tab.Column(c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("Column(%q) = %v, want %v", c, got, w)
		}
	}
	z, _ := tab.Column("z")
	if !math.Signbit(z[0]) {
		t.Errorf("-0 read as %v, want negative zero", z[0])
	}
	// Column returns a copy.
	z[1] = 99
	if z2, _ := tab.Column("z"); z2[1] != 7 {
		t.Errorf("Column shares memory with the table")
	}
}

func TestReadCSVLabels(t *testing.T) {
	t.Parallel()
	in := "a,type\n1,Yes\n2, No \n3,\"Yes\"\n"
	tab, err := ReadCSVOptions(strings.NewReader(in), "l.csv", CSVOptions{Labels: map[string]map[string]float64{"type": PimaLabels}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tab.Column("type")
	if want := []float64{1, 0, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels read as %v, want %v", got, want)
	}
	// Without the mapping, labels are not numbers.
	_, err = ReadCSV(strings.NewReader(in), "l.csv")
	checkParseError(t, err, ErrNotNumber, 2, 2, "type", `l.csv:2: column "type" (field 2)`, `"Yes"`)
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	labels := map[string]map[string]float64{"c": {"No": 0, "Yes": 1}}
	for _, tc := range []struct {
		name   string
		in     string
		opt    CSVOptions
		want   error
		line   int
		field  int
		column string
		msg    []string
	}{
		{name: "empty", in: "", want: ErrEmpty, msg: []string{"d.csv: empty file"}},
		{name: "blank lines only", in: "\n\n\n", want: ErrEmpty},
		{name: "header only", in: "a,b\n", want: ErrNoRows, msg: []string{"no data rows"}},
		{name: "ragged short", in: "a,b\n1,2\n3\n", want: ErrFieldCount, line: 3, msg: []string{"d.csv:3:", "1 fields, the header has 2"}},
		{name: "ragged long", in: "a,b\n1,2,3\n", want: ErrFieldCount, line: 2, msg: []string{"3 fields"}},
		{name: "not a number", in: "a,b\n1,2\n3,x\n", want: ErrNotNumber, line: 3, field: 2, column: "b", msg: []string{`d.csv:3: column "b" (field 2): not a number: "x"`}},
		{name: "empty cell", in: "a,b\n1,\n", want: ErrMissing, line: 2, field: 2, column: "b", msg: []string{"empty cell"}},
		{name: "NA", in: "a,b\nNA,1\n", want: ErrMissing, line: 2, field: 1, column: "a", msg: []string{"NA"}},
		{name: "NaN", in: "a,b\n1,NaN\n", want: ErrNaN, line: 2, field: 2, column: "b"},
		{name: "nan lower case", in: "a,b\n1,-nan\n", want: ErrNaN, line: 2, field: 2, column: "b"},
		{name: "Inf", in: "a,b\n1,-Inf\n", want: ErrInf, line: 2, field: 2, column: "b"},
		{name: "infinity", in: "a,b\n+infinity,1\n", want: ErrInf, line: 2, field: 1, column: "a"},
		{name: "overflow", in: "a,b\n1,1e400\n", want: ErrInf, line: 2, field: 2, column: "b", msg: []string{"beyond the float64 range"}},
		{name: "hex", in: "a,b\n1,0x10\n", want: ErrNotNumber, line: 2, field: 2, column: "b"},
		{name: "digit separator", in: "a,b\n1,1_0\n", want: ErrNotNumber, line: 2, field: 2, column: "b"},
		{name: "bad exponent", in: "a,b\n1,1e\n", want: ErrNotNumber, line: 2, field: 2, column: "b"},
		{name: "empty column name", in: "a,,c\n1,2,3\n", want: ErrHeader, line: 1, field: 2, msg: []string{"empty column name"}},
		{name: "duplicate column name", in: "a,b,a\n1,2,3\n", want: ErrHeader, line: 1, field: 3, column: "a", msg: []string{"repeats field 1"}},
		{name: "control character in name", in: "a,\"b\r\nc\"\n1,2\n", want: ErrHeader, line: 1, field: 2, msg: []string{`"b\nc"`, "control character"}},
		{name: "invalid UTF-8 name", in: "a,b\xff\n1,2\n", want: ErrHeader, line: 1, field: 2, msg: []string{"not valid UTF-8"}},
		{name: "no header", in: "1,2\n3,4\n", want: ErrHeader, line: 1, msg: []string{"must name the columns"}},
		{name: "unterminated quote", in: "a,b\n1,\"2\n", want: csv.ErrQuote, line: 2},
		{name: "bare quote", in: "a,b\n1,2\"x\n", want: csv.ErrBareQuote, line: 2},
		{name: "line numbers count blank lines and CRLF", in: "a,b\r\n1,2\r\n\r\n3,y\r\n", want: ErrNotNumber, line: 4, field: 2, column: "b"},
		{name: "line of a multi-line field", in: "a,b\n\"1\",\"2\"\n\"x\ny\",3\n", want: ErrNotNumber, line: 3, field: 1, column: "a"},
		{name: "bad label", in: "a,c\n1,Yes\n2,Maybe\n", opt: CSVOptions{Labels: labels}, want: ErrLabel, line: 3, field: 2, column: "c", msg: []string{`bad label "Maybe", want one of "No", "Yes"`}},
		{name: "number for label", in: "a,c\n1,1\n", opt: CSVOptions{Labels: labels}, want: ErrLabel, line: 2, field: 2, column: "c"},
		{name: "labels for missing column", in: "a,b\n1,2\n", opt: CSVOptions{Labels: labels}, want: ErrColumn, line: 1, msg: []string{`"c"`, "columns are a, b"}},
		{name: "label for NaN", in: "a,c\n1,No\n", opt: CSVOptions{Labels: map[string]map[string]float64{"c": {"No": math.NaN()}}}, column: "c", msg: []string{"finite"}},
		{name: "missing column", in: "a,c\n1,2\n", opt: CSVOptions{Columns: []string{"a", "b"}}, want: ErrHeader, line: 1, msg: []string{`missing column "b"`}},
		{name: "unexpected column", in: "a,b,c\n1,2,3\n", opt: CSVOptions{Columns: []string{"a", "b"}}, want: ErrHeader, line: 1, msg: []string{`unexpected column "c"`}},
		{name: "column order", in: "b,a\n1,2\n", opt: CSVOptions{Columns: []string{"a", "b"}}, want: ErrHeader, line: 1, msg: []string{"columns b,a, want a,b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSVOptions(strings.NewReader(tc.in), "d.csv", tc.opt)
			checkParseError(t, err, tc.want, tc.line, tc.field, tc.column, append([]string{"d.csv"}, tc.msg...)...)
		})
	}
}

func TestReadCSVReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	_, err := ReadCSV(iotest.ErrReader(boom), "r.csv")
	checkParseError(t, err, boom, 0, 0, "", "r.csv", "disk on fire")
}

func TestTableSelect(t *testing.T) {
	t.Parallel()
	tab, err := ReadCSV(strings.NewReader("a,b,c\n1,2,3\n4,5,6\n"), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	d, err := tab.Dataset("b")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Columns, []string{"a", "c"}) || d.Target != "b" {
		t.Errorf("Dataset(b): columns %q target %q, want [a c] b", d.Columns, d.Target)
	}
	if !mat.Equal(d.X, mat.NewDense(2, 2, []float64{1, 3, 4, 6})) || !reflect.DeepEqual(d.T, []float64{2, 5}) {
		t.Errorf("Dataset(b): X = %v, T = %v", mat.Formatted(d.X), d.T)
	}
	if d.Len() != 2 || d.Dim() != 2 {
		t.Errorf("Len, Dim = %d, %d, want 2, 2", d.Len(), d.Dim())
	}

	d, err = tab.Select("a", "c", "b")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Columns, []string{"c", "b"}) || !mat.Equal(d.X, mat.NewDense(2, 2, []float64{3, 2, 6, 5})) || !reflect.DeepEqual(d.T, []float64{1, 4}) {
		t.Errorf("Select(a, c, b) = %q %v %v", d.Columns, mat.Formatted(d.X), d.T)
	}

	for _, tc := range []struct {
		target string
		inputs []string
		msg    string
	}{
		{"z", nil, `s.csv: no such column "z"; columns are a, b, c`},
		{"a", []string{"y"}, `no such column "y"`},
		{"a", []string{"a"}, `column "a" is used twice`},
		{"a", []string{"b", "b"}, `column "b" is used twice`},
	} {
		_, err := tab.Select(tc.target, tc.inputs...)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Select(%q, %q): error %v, want one containing %q", tc.target, tc.inputs, err, tc.msg)
		}
	}
	if _, err := tab.Column("q"); !errors.Is(err, ErrColumn) {
		t.Errorf("Column(q): error %v, want ErrColumn", err)
	}

	one, err := ReadCSV(strings.NewReader("t\n1\n"), "one.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.Dataset("t"); !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), "only column") {
		t.Errorf("Dataset of a one-column table: error %v, want ErrColumn about the only column", err)
	}
}

// endlessLine yields "a,b\n" and then one line of "1," for ever, counting
// the bytes read.
type endlessLine struct{ n int }

func (e *endlessLine) Read(p []byte) (int, error) {
	const head = "a,b\n"
	for i := range p {
		if k := e.n + i; k < len(head) {
			p[i] = head[k]
		} else {
			p[i] = "1,"[k%2]
		}
	}
	e.n += len(p)
	return len(p), nil
}

// TestReadCSVLimits: an endless line is rejected after 16 MiB with a short
// error; a long cell is quoted by its first 40 bytes.
func TestReadCSVLimits(t *testing.T) {
	t.Parallel()
	src := &endlessLine{}
	_, err := ReadCSV(src, "long.csv")
	var pe *ParseError
	want := `long.csv:2: line longer than 16 MiB, starting "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"…`
	if err == nil || err.Error() != want || !errors.As(err, &pe) {
		t.Errorf("error %v, want %q", err, want)
	}
	if src.n > maxLineBytes+1<<20 {
		t.Errorf("read %d bytes for a limit of %d", src.n, maxLineBytes)
	}
	_, err = ReadCSV(strings.NewReader("a,b\n1,"+strings.Repeat("x", 100000)+"\n"), "cell.csv")
	want = `cell.csv:2: column "b" (field 2): not a number: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
