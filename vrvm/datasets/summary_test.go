package datasets_test

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

func ExampleDataset_String() {
	d := &datasets.Dataset{
		X:       mat.NewDense(7, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}),
		T:       []float64{0, 1, 0, 1, 0, 1, 1.23456},
		Columns: []string{"xs", "ys"},
		Target:  "yc",
	}
	fmt.Println(d)
	fmt.Println(d.Subset([]int{0}))
	fmt.Println(&datasets.Dataset{X: mat.NewDense(1, 10, nil), T: []float64{0}})
	// Output:
	// datasets.Dataset: 7 rows × 2 inputs (xs, ys), target yc
	// datasets.Dataset: 1 row × 2 inputs (xs, ys), target yc
	// datasets.Dataset: 1 row × 10 inputs (x1, x2, x3, x4, x5, x6, x7, x8, …), target t
}

func TestDatasetSummary(t *testing.T) {
	t.Parallel()
	wide := &datasets.Dataset{X: mat.NewDense(2, 10, nil), T: []float64{1, 2}}
	for _, tc := range []struct {
		name string
		d    *datasets.Dataset
		text []string // lines or fragments String must hold
		html []string // fragments HTML must hold
	}{
		{"nil", nil, []string{"datasets.Dataset(nil)"}, []string{"datasets.Dataset(nil)"}},
		{"empty", &datasets.Dataset{}, []string{"datasets.Dataset: 0 rows × 0 inputs, target t"}, []string{"<caption"}},
		{"table", &datasets.Dataset{X: mat.NewDense(2, 1, []float64{1.234567, -2}), T: []float64{0, 1}, Columns: []string{"x"}},
			nil,
			[]string{"<caption style=\"text-align:left\">datasets.Dataset: 2 rows × 1 input (x), target t</caption>",
				"<thead><tr><th></th><th>x</th><th>t</th></tr></thead>",
				"<tr><th>0</th><td>1.235</td><td>0</td></tr><tr><th>1</th><td>-2</td><td>1</td></tr></tbody>"}},
		{"one row", &datasets.Dataset{X: mat.NewDense(1, 1, []float64{0.5}), T: []float64{2}, Columns: []string{"x"}},
			[]string{"1 row × 1 input (x), target t"},
			[]string{"<th>x</th><th>t</th>", "<tr><th>0</th><td>0.5</td><td>2</td></tr>"}},
		{"wide", wide,
			[]string{"2 rows × 10 inputs (x1, x2, x3, x4, x5, x6, x7, x8, …), target t"},
			[]string{"<th>x8</th><th>…</th><th>t</th>"}},
		{"escaped", &datasets.Dataset{X: mat.NewDense(1, 1, []float64{1}), T: []float64{0}, Columns: []string{"<b>"}, Target: "a&b"},
			[]string{"(<b>), target a&b"},
			[]string{"<th>&lt;b&gt;</th><th>a&amp;b</th>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.d.String()
			for _, want := range tc.text {
				if !strings.Contains(s, want) {
					t.Errorf("String lacks %q:\n%s", want, s)
				}
			}
			h := tc.d.HTML()
			for _, want := range tc.html {
				if !strings.Contains(h, want) {
					t.Errorf("HTML lacks %q:\n%s", want, h)
				}
			}
			if strings.Contains(h, "<b>") {
				t.Errorf("HTML holds an unescaped column name: %s", h)
			}
		})
	}
	// The summary shows summaryRows rows and counts the others.
	d := &datasets.Dataset{X: mat.NewDense(1000, 1, nil), T: make([]float64, 1000)}
	if s := d.String(); s != "datasets.Dataset: 1000 rows × 1 input (x1), target t" {
		t.Errorf("1000 rows: String %q", s)
	}
	if h := d.HTML(); strings.Count(h, "<tr>") != 7 || !strings.Contains(h, "… (995 more rows)") {
		t.Errorf("1000 rows: HTML %q, want a header, 5 rows and a count", h)
	}
}
