package main

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm/datasets"
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

func TestCSVReader(t *testing.T) {
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

func TestCSVReaderErrors(t *testing.T) {
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

// endless yields a pattern for ever, counting the bytes read.
type endless struct {
	pattern []byte
	n       int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[(e.n+i)%len(e.pattern)]
	}
	e.n += len(p)
	return len(p), nil
}

// TestCSVLimits: an endless line is rejected after the line limit, with
// a short error, having read not much more than the limit.
func TestCSVLimits(t *testing.T) {
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
			src := &endless{pattern: []byte("ab\n")}
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
		src := &endless{pattern: []byte(c.pattern)}
		_, err := readTableFrom(io.MultiReader(strings.NewReader("a,b\n"), src), "f.csv", func(*table) (readSpec, error) { return readSpec{"a": numeric}, nil })
		if err == nil || !errors.Is(err, errLimit) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 200 {
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

func TestReadTable(t *testing.T) {
	in := "\"\",\"name\",\"x\",\"sex\",\"y\"\n\"1\",\"a, b\",1.5,\"M\",2\n\"2\",\"c\",NA,NA,\n\"3\",\"d\",nan,\"NA\",3\n"
	tab, err := readTableFrom(strings.NewReader(in), "r.csv", func(t *table) (readSpec, error) {
		if !reflect.DeepEqual(t.header, []string{indexColumn, "name", "x", "sex", "y"}) {
			return nil, errors.New("header " + strings.Join(t.header, ","))
		}
		return readSpec{"x": numeric, "sex": text, "y": numeric, indexColumn: text}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if x := tab.num["x"]; x[0] != 1.5 || !math.IsNaN(x[1]) || !math.IsNaN(x[2]) {
		t.Errorf("x = %v", x)
	}
	if y := tab.num["y"]; y[0] != 2 || !math.IsNaN(y[1]) || y[2] != 3 {
		t.Errorf("y = %v", y)
	}
	// Unquoted NA is missing; quoted "NA" is the text NA.
	if s := tab.text["sex"]; !reflect.DeepEqual(s, []string{"M", "", "NA"}) {
		t.Errorf("sex = %q", s)
	}
	if _, ok := tab.text["name"]; ok {
		t.Error("a column not asked for was kept")
	}
	if !reflect.DeepEqual(tab.lines, []int{2, 3, 4}) || tab.text[indexColumn][2] != "3" {
		t.Errorf("lines %v, index %q", tab.lines, tab.text[indexColumn])
	}

	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"header only", "a,b\n", "no data rows"},
		{"empty name", "a,,b\n1,2,3\n", "f.csv:1: field 2: bad header: empty column name"},
		{"repeated name", "a,b,a\n1,2,3\n", `column "a" (field 3): bad header: column name repeats field 1`},
		{"numbers as header", "1,2\n3,4\n", "the first line holds numbers"},
		{"text in a numeric column", "a,b\nx,1\n", `f.csv:2: column "a" (field 1): not a number: "x"`},
		{"infinite", "a,b\nInf,2\n", `column "a" (field 1): infinite value`},
		{"ragged", "a,b\n1,2\n3\n", "f.csv:3: wrong number of fields: 1 fields"},
	} {
		spec := readSpec{"a": numeric}
		_, err := readTableFrom(strings.NewReader(c.in), "f.csv", func(*table) (readSpec, error) { return spec, nil })
		var pe *datasets.ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// A text column the fit does not use is never parsed.
	if _, err := readTableFrom(strings.NewReader("a,b\n1,M\n2,F\n"), "f.csv", func(*table) (readSpec, error) { return readSpec{"a": numeric}, nil }); err != nil {
		t.Errorf("unused text column: %v", err)
	}
}
