package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// readAll returns every record of s.
func readAll(s string) ([][]string, error) {
	r := newCSVReader(strings.NewReader(s), "f.csv")
	var out [][]string
	for {
		rec, _, err := r.read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func TestTableReader(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     [][]string
	}{
		{"plain", "a,b\n1,2\n", [][]string{{"a", "b"}, {"1", "2"}}},
		{"no final newline", "a,b\n1,2", [][]string{{"a", "b"}, {"1", "2"}}},
		{"CRLF", "a,b\r\n1,2\r\n", [][]string{{"a", "b"}, {"1", "2"}}},
		{"BOM", "\uFEFFa,b\n1,2\n", [][]string{{"a", "b"}, {"1", "2"}}},
		{"blank lines", "a,b\n\n1,2\r\n\r\n3,4\n\n", [][]string{{"a", "b"}, {"1", "2"}, {"3", "4"}}},
		{"R's write.csv", "\"\",\"sex\",\"FL\"\n\"1\",\"M\",8.1\n\"2\",NA,NA\n", [][]string{{"", "sex", "FL"}, {"1", "M", "8.1"}, {"2", "NA", "NA"}}},
		{"pandas' to_csv", ",sex,FL\n0,M,8.1\n1,,\n", [][]string{{"", "sex", "FL"}, {"0", "M", "8.1"}, {"1", "", ""}}},
		{"quoted comma, quote and newline", "a,b\n\"x, \"\"y\"\"\nz\",2\n", [][]string{{"a", "b"}, {"x, \"y\"\nz", "2"}}},
		{"spaces around fields", "a , b\n 1 ,\t2 \n \"q \" ,3\n", [][]string{{"a", "b"}, {"1", "2"}, {"q ", "3"}}},
		{"empty fields", ",\n,,\n", [][]string{{"", ""}, {"", "", ""}}},
		{"UTF-8", "größe,ü\n1,\"ä\"\n", [][]string{{"größe", "ü"}, {"1", "ä"}}},
	} {
		got, err := readAll(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestTableReaderErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxFieldBytes+1)
	for _, c := range []struct {
		name, in, want string
	}{
		{"bare quote", "a,b\n1,x\"y\n", `f.csv:2: field 2: bare " in an unquoted field`},
		{"unclosed quote", "a,b\n1,\"xy\n2,3\n", "f.csv:2: field 2: quoted field not closed before the end of the file"},
		{"text after quote", "a,b\n\"x\"y,2\n", `f.csv:2: field 1: text "y" after the closing quote`},
		{"long field", "a,b\n1," + long + "\n", `f.csv:2: field 2: beyond the input limit: field longer than 1 MiB, starting "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…`},
	} {
		_, err := readAll(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("%s: error of %d bytes", c.name, len(err.Error()))
		}
	}
}

// endlessPattern yields a pattern for ever, counting the bytes read.
type endlessPattern struct {
	pattern []byte
	n       int
}

func (e *endlessPattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[(e.n+i)%len(e.pattern)]
	}
	e.n += len(p)
	return len(p), nil
}

// TestReadTableLimits: an endless line is rejected after the line limit, with
// a short error, having read not much more than the limit.
func TestReadTableLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, pattern, want string
		limit               int
	}{
		{"endless line of short fields", "0.123456789012345678901234,", `line longer than 16 MiB, starting "0.123456789012345678901234,0.12345678901"…`, maxLineBytes},
		{"endless field", "x", "field longer than 1 MiB", maxFieldBytes},
		{"endless quoted field over many lines", "\"", "", 0},
	} {
		if c.name == "endless quoted field over many lines" {
			// A quoted field spanning short lines: the field limit holds.
			src := &endlessPattern{pattern: []byte("ab\n")}
			r := newCSVReader(io.MultiReader(strings.NewReader("a\n\""), src), "f.csv")
			r.read()
			_, _, err := r.read()
			if err == nil || !strings.Contains(err.Error(), "field longer than 1 MiB") {
				t.Errorf("%s: error %v", c.name, err)
			}
			if src.n > maxFieldBytes+1<<17 {
				t.Errorf("%s: read %d bytes", c.name, src.n)
			}
			continue
		}
		src := &endlessPattern{pattern: []byte(c.pattern)}
		_, err := ReadTable(io.MultiReader(strings.NewReader("a,b\n"), src), "f.csv", ReadOptions{Choose: func([]string) (map[string]ColumnKind, error) { return map[string]ColumnKind{"a": NumericColumn}, nil }})
		if err == nil || !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 200 {
			t.Errorf("%s: error %v", c.name, err)
		}
		if src.n > c.limit+1<<17 {
			t.Errorf("%s: read %d bytes for a limit of %d", c.name, src.n, c.limit)
		}
	}
	// Too many columns.
	var b bytes.Buffer
	b.WriteString("a")
	for range maxColumns {
		b.WriteString(",1")
	}
	_, err := readAll(b.String())
	if err == nil || !strings.Contains(err.Error(), "more than 1048576 fields") {
		t.Errorf("too many columns: %v", err)
	}
}

// FuzzTableReader: no input makes ReadTable's reader panic or exceed its limits;
// every error is a ParseError; records written by encoding/csv are read
// back as written.
func FuzzTableReader(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "\"\",\"x\"\n\"1\",NA\n", ",x,y\n0,,\"a, \"\"b\"\"\"\n", "\uFEFFa\r\n1\r\n\r\n",
		"a,b\n\"x\ny\",2\n", "a\n\"", "a,\"b\"c\n", "a,b\n1,x\"y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newCSVReader(bytes.NewReader(data), "fuzz.csv")
		for {
			rec, quoted, err := r.read()
			if err == io.EOF {
				break
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T %v", err, err)
				}
				break
			}
			if len(rec) != len(quoted) || len(rec) == 0 || len(rec) > maxColumns {
				t.Fatalf("%d fields, %d quote flags", len(rec), len(quoted))
			}
			for _, s := range rec {
				if len(s) > maxFieldBytes {
					t.Fatalf("field of %d bytes", len(s))
				}
			}
		}
		// The table reader on the same bytes, every column numeric.
		ReadTable(bytes.NewReader(data), "fuzz.csv", ReadOptions{Choose: func(header []string) (map[string]ColumnKind, error) {
			spec := map[string]ColumnKind{}
			for i, c := range header {
				spec[c] = NumericColumn
				if i%2 == 1 {
					spec[c] = TextColumn
				}
			}
			return spec, nil
		}})
		// Round trip: fields written by encoding/csv, without spaces at
		// their ends (unquoted fields are trimmed) and not a record of
		// one empty field (a blank line) nor starting with a byte-order mark.
		fields := strings.Split(string(data), "\x00")
		if len(fields) > 20 {
			fields = fields[:20]
		}
		for _, s := range fields {
			if strings.TrimSpace(s) != s {
				return
			}
		}
		if len(fields) == 1 && fields[0] == "" || strings.HasPrefix(fields[0], "\uFEFF") {
			return
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(fields)
		w.Flush()
		got, err := readAll(buf.String())
		if err != nil || len(got) != 1 || strings.Join(got[0], "\x00") != strings.Join(fields, "\x00") {
			t.Fatalf("wrote %q as %q, read back %q, %v", fields, buf.String(), got, err)
		}
	})
}

// TestReadTableOptions reads a file as R's write.csv writes it, with
// missing values, a text column and row names, through the zero options,
// ReadOptions.Text and Choose.
func TestReadTableOptions(t *testing.T) {
	t.Parallel()
	const in = "\"\",\"sex\",\"x\",\"y\"\n\"a\",\"M\",1.5,2\n\"b\",NA,NA,3\n\"c\",\"NA\",nan,5\n"
	// Zero options: every column numeric but the row names.
	_, err := ReadTable(strings.NewReader(in), "r.csv", ReadOptions{})
	checkParseError(t, err, ErrNotNumber, 2, 2, "sex", `"M"`)

	f, err := ReadTable(strings.NewReader(in), "r.csv", ReadOptions{Text: []string{"sex"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Columns(), []string{IndexColumn, "sex", "x", "y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %q, want %q", got, want)
	}
	if f.Name() != "r.csv" || f.Len() != 3 || f.Line(2) != 4 || f.Field("x") != 3 || f.Field("z") != 0 {
		t.Errorf("Name %q, Len %d, Line(2) %d, Field(x) %d, Field(z) %d", f.Name(), f.Len(), f.Line(2), f.Field("x"), f.Field("z"))
	}
	if got := f.RowNames(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("RowNames() = %q", got)
	}
	// Unquoted NA is missing; quoted "NA" is the text NA.
	if s, ok := f.Text("sex"); !ok || !reflect.DeepEqual(s, []string{"M", "", "NA"}) {
		t.Errorf("Text(sex) = %q, %v", s, ok)
	}
	x, ok := f.Numeric("x")
	if !ok || x[0] != 1.5 || !math.IsNaN(x[1]) || !math.IsNaN(x[2]) {
		t.Errorf("Numeric(x) = %v, %v", x, ok)
	}
	if y, _ := f.Numeric("y"); !reflect.DeepEqual(y, []float64{2, 3, 5}) {
		t.Errorf("Numeric(y) = %v", y)
	}
	if _, ok := f.Numeric("sex"); ok {
		t.Error("Numeric(sex): a text column read as numbers")
	}
	// Dataset: missing values and text columns are errors.
	_, err = f.Dataset("y")
	checkParseError(t, err, ErrMissing, 3, 3, "x")
	_, err = f.Dataset("y", "sex")
	if !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), `"sex" read as numbers`) {
		t.Errorf("Dataset with a text input: %v", err)
	}
	_, err = f.Dataset("y", "y")
	if err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("Dataset with an input twice: %v", err)
	}

	// Choose: only the chosen columns are parsed, and a complete pair
	// makes a Dataset.
	var seen []string
	f, err = ReadTable(strings.NewReader("name,x,t\nq,1,2\nr,3,4\n"), "c.csv", ReadOptions{
		Choose: func(header []string) (map[string]ColumnKind, error) {
			seen = header
			return map[string]ColumnKind{"x": NumericColumn, "t": NumericColumn}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, []string{"name", "x", "t"}) {
		t.Errorf("Choose saw %q", seen)
	}
	if _, ok := f.Text("name"); ok || f.RowNames() != nil {
		t.Error("a column not chosen was kept")
	}
	d, err := f.Dataset("t")
	if err != nil {
		t.Fatal(err)
	}
	if d.Target != "t" || !reflect.DeepEqual(d.Columns, []string{"x"}) || !reflect.DeepEqual(d.T, []float64{2, 4}) || d.X.At(1, 0) != 3 {
		t.Errorf("Dataset(t) = %+v", d)
	}
	// Choose's error is returned as it is; so is an unknown Text column.
	bad := errors.New("no")
	if _, err := ReadTable(strings.NewReader("a\n1\n"), "e.csv", ReadOptions{Choose: func([]string) (map[string]ColumnKind, error) { return nil, bad }}); err != bad {
		t.Errorf("Choose's error: %v", err)
	}
	if _, err := ReadTable(strings.NewReader("a\n1\n"), "e.csv", ReadOptions{Text: []string{"b"}}); !errors.Is(err, ErrColumn) {
		t.Errorf("unknown Text column: %v", err)
	}
	if _, err := ReadTable(strings.NewReader("a\n1\n"), "e.csv", ReadOptions{Choose: func([]string) (map[string]ColumnKind, error) { return map[string]ColumnKind{"a": 7}, nil }}); err == nil {
		t.Error("unknown ColumnKind: no error")
	}
	// ReadTableFile names the path.
	if _, err := ReadTableFile("no/such.csv", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no/such.csv") {
		t.Errorf("ReadTableFile of a missing file: %v", err)
	}
}

func TestIsMissing(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"": true, "NA": true, "NaN": true, "nan": true, "NAN": true, "na": false, "0": false, " ": false, "N/A": false} {
		if got := IsMissing(s); got != want {
			t.Errorf("IsMissing(%q) = %v, want %v", s, got, want)
		}
	}
}
