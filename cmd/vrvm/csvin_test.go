package main

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

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
