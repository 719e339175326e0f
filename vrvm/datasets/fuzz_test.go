package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzLabels are the labels of the column "type" when the fuzzer asks for
// them.
var fuzzLabels = map[string]map[string]float64{"type": {"No": 0, "Yes": 1}}

// FuzzReadCSV checks that ReadCSVOptions never panics, that every error is
// a *ParseError naming the file, and that a successful read is consistent:
// at least one row, distinct non-empty trimmed column names, only finite
// values (NaN and ±Inf are always rejected), increasing line numbers, and
// writing the table back as CSV and reading it again gives the same table.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"x,t\n1,2\n",
		"a,b\n1,2\n3\n",
		"a,b\n1,NaN\n",
		"a,b\n1,-Inf\n",
		"a,b\n1,1e400\n",
		"a,b\nNA,1\n",
		"a,,c\n1,2,3\n",
		"a,b,a\n1,2,3\n",
		"1,2\n3,4\n",
		"a,b\n1,\"2\n",
		"\uFEFF x , \"y\",z\r\n 1.5 , \"-2e-3\",-0\r\n\r\n+3,.5,7.\r\n",
		"a,type\n1,Yes\n2, No \n",
		"a,b\n\"1\",\"2\"\n\"x\ny\",3\n",
		"\"a\"\"b\",\"c,d\"\n1,2\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	for _, name := range []string{"ripley_train.csv", "pima_train.csv", "boston.csv", "boston_splits.csv"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", name))
		if err != nil {
			continue // the seeds above suffice
		}
		head := strings.SplitAfterN(string(b), "\n", 6)
		f.Add([]byte(strings.Join(head[:5], "")), name == "pima_train.csv")
	}

	f.Fuzz(func(t *testing.T, data []byte, labels bool) {
		var opt CSVOptions
		if labels {
			opt.Labels = fuzzLabels
		}
		tab, err := ReadCSVOptions(bytes.NewReader(data), "fuzz.csv", opt)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %q (%T) is not a *ParseError", err, err)
			}
			if pe.File != "fuzz.csv" || !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; pe.Line < 0 || pe.Line > lines {
				t.Fatalf("error %q at line %d of a %d-line input", err, pe.Line, lines)
			}
			if tab != nil {
				t.Fatal("a table and an error")
			}
			return
		}
		checkTable(t, tab, opt)

		roundTrip(t, tab, opt)
	})
}

// roundTrip writes tab as CSV and checks that reading it back gives the
// same table. A leading BOM protects a first column name that itself
// starts with one.
func roundTrip(t *testing.T, tab *Table, opt CSVOptions) {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("\uFEFF")
	w := csv.NewWriter(&buf)
	cols := tab.Columns()
	w.Write(cols)
	values := make([][]float64, len(cols))
	for j, c := range cols {
		values[j], _ = tab.Column(c)
	}
	for i := range tab.Len() {
		rec := make([]string, len(cols))
		for j, c := range cols {
			v := values[j][i]
			if m := opt.Labels[c]; m != nil {
				for k, x := range m {
					if x == v {
						rec[j] = k
					}
				}
			} else {
				rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		w.Write(rec)
	}
	w.Flush()
	again, err := ReadCSVOptions(&buf, "again.csv", opt)
	if err != nil {
		t.Fatalf("reading back the table written as CSV: %v", err)
	}
	if got := again.Columns(); !equalStrings(got, cols) {
		t.Fatalf("columns read back %q, want %q", got, cols)
	}
	if again.Len() != tab.Len() {
		t.Fatalf("%d rows read back, want %d", again.Len(), tab.Len())
	}
	for j, c := range cols {
		got, _ := again.Column(c)
		for i, v := range got {
			if math.Float64bits(v) != math.Float64bits(values[j][i]) {
				t.Fatalf("column %q row %d read back as %v, want %v", c, i, v, values[j][i])
			}
		}
	}
}

// checkTable checks the invariants of a successfully read table.
func checkTable(t *testing.T, tab *Table, opt CSVOptions) {
	t.Helper()
	cols := tab.Columns()
	if len(cols) == 0 || tab.Len() == 0 {
		t.Fatalf("table of %d columns and %d rows without an error", len(cols), tab.Len())
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if c == "" || c != strings.TrimSpace(c) || seen[c] {
			t.Fatalf("bad column name %q in %q", c, cols)
		}
		seen[c] = true
	}
	for i := range tab.Len() {
		if tab.Line(i) < 2 || (i > 0 && tab.Line(i) <= tab.Line(i-1)) {
			t.Fatalf("row %d at line %d after line %d", i, tab.Line(i), tab.Line(max(i-1, 0)))
		}
	}
	for _, c := range cols {
		v, err := tab.Column(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != tab.Len() {
			t.Fatalf("column %q has %d values in a table of %d rows", c, len(v), tab.Len())
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("column %q row %d is %v", c, i, x)
			}
			if m := opt.Labels[c]; m != nil && x != 0 && x != 1 {
				t.Fatalf("label column %q row %d is %v", c, i, x)
			}
		}
	}
	if len(cols) > 1 {
		d, err := tab.Dataset(cols[0])
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != tab.Len() || d.Dim() != len(cols)-1 {
			t.Fatalf("Dataset(%q) is %d×%d, table %d×%d", cols[0], d.Len(), d.Dim(), tab.Len(), len(cols))
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
