package datasets

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// TestRowReader: rows read one at a time equal ReadTable's, labels map to
// numbers, and a bad row deep in the file is an error naming its line and
// column.
func TestRowReader(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("id,x,y,label\n")
	for i := range 500 {
		lab := "no"
		if i%3 == 0 {
			lab = "yes"
		}
		cell := "1.5"
		if i == 7 {
			cell = "NA"
		}
		b.WriteString(strings.Join([]string{"r", cell, "-2e-3", lab}, ",") + "\n")
	}
	text := b.String()
	f, err := ReadTable(strings.NewReader(text), "t.csv", ReadOptions{Text: []string{"id", "label"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRowReader(strings.NewReader(text), "t.csv", RowOptions{Columns: []string{"y", "x", "label"},
		Labels: map[string]map[string]float64{"label": {"no": 0, "yes": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := f.Numeric("x")
	row := make([]float64, 3)
	for i := 0; ; i++ {
		err := r.Next(row)
		if err == io.EOF {
			if i != 500 || r.Rows() != 500 {
				t.Fatalf("%d rows", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Line() != f.Line(i) || row[0] != -2e-3 || !(row[1] == xs[i] || math.IsNaN(row[1]) && math.IsNaN(xs[i])) || row[2] != float64(1-min(i%3, 1)) {
			t.Fatalf("row %d (line %d): %v", i, r.Line(), row)
		}
	}
	bad := strings.Replace(text, "r,1.5,-2e-3,no\n", "r,1.5,zz,no\n", 300)
	bad = strings.Replace(bad, "r,1.5,zz,no\n", "r,1.5,-2e-3,no\n", 299)
	r, err = NewRowReader(strings.NewReader(bad), "t.csv", RowOptions{Columns: []string{"x", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	var pe *ParseError
	for err == nil {
		err = r.Next(row[:2])
	}
	if !errors.As(err, &pe) || !errors.Is(err, ErrNotNumber) || pe.Line < 100 || pe.Column != "y" {
		t.Errorf("bad cell: %v", err)
	} else {
		t.Log(err)
	}
	if _, err := NewRowReader(strings.NewReader(text), "t.csv", RowOptions{Columns: []string{"z"}}); !errors.Is(err, ErrColumn) {
		t.Errorf("missing column: %v", err)
	}
	r, _ = NewRowReader(strings.NewReader("a,b\n"), "e.csv", RowOptions{Columns: []string{"a"}})
	if err := r.Next(row[:1]); !errors.Is(err, ErrNoRows) {
		t.Errorf("no rows: %v", err)
	}
	r, _ = NewRowReader(strings.NewReader("a,b\n1,2\n3\n"), "e.csv", RowOptions{Columns: []string{"a"}})
	if err := r.Next(row[:1]); err != nil {
		t.Fatal(err)
	}
	if err := r.Next(row[:1]); !errors.Is(err, ErrFieldCount) || !errors.As(err, &pe) || pe.Line != 3 {
		t.Errorf("ragged row: %v", err)
	}
}
