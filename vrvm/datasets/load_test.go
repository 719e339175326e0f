package datasets

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestDir(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if d, err := Dir(); err != nil || d != "/some/where" {
		t.Errorf("Dir() with $VRVM_DATA set = %q, %v; want /some/where", d, err)
	}
	if p, err := Path("boston.csv"); err != nil || p != "/some/where/boston.csv" {
		t.Errorf("Path(boston.csv) = %q, %v", p, err)
	}
	cache := t.TempDir()
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Unix
	t.Setenv("HOME", cache)           // os.UserCacheDir on macOS
	want, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory on this system:", err)
	}
	if d, err := Dir(); err != nil || d != filepath.Join(want, "vrvm") {
		t.Errorf("Dir() without $VRVM_DATA = %q, %v; want %q", d, err, filepath.Join(want, "vrvm"))
	}
}

// countLabels counts the targets equal to 1 and checks all are 0 or 1.
func countLabels(t *testing.T, d *Dataset) int {
	t.Helper()
	ones := 0
	for _, v := range d.T {
		switch v {
		case 0:
		case 1:
			ones++
		default:
			t.Fatalf("label %v, want 0 or 1", v)
		}
	}
	return ones
}

func TestLoadRipley(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	train, test, err := LoadRipley()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		d          *Dataset
		n, ones    int
		first      []float64
		last       []float64
		firstLabel float64
	}{
		{"train", train, 250, 125, []float64{0.05100797, 0.16086164}, []float64{-0.40249641, 0.71301084}, 0},
		{"test", test, 1000, 500, []float64{-0.970990139, 0.429424950}, []float64{0.762040971, 0.573218465}, 0},
	} {
		d := tc.d
		if d.Len() != tc.n || d.Dim() != 2 || !reflect.DeepEqual(d.Columns, []string{"xs", "ys"}) || d.Target != "yc" {
			t.Errorf("%s: Len %d Dim %d Columns %q Target %q, want %d 2 [xs ys] yc", tc.name, d.Len(), d.Dim(), d.Columns, d.Target, tc.n)
		}
		if got := countLabels(t, d); got != tc.ones {
			t.Errorf("%s: %d of class 1, want %d", tc.name, got, tc.ones)
		}
		if got := d.X.RawRowView(0); !reflect.DeepEqual(got, tc.first) || d.T[0] != 0 {
			t.Errorf("%s: first row %v → %v, want %v → 0", tc.name, got, d.T[0], tc.first)
		}
		if got := d.X.RawRowView(tc.n - 1); !reflect.DeepEqual(got, tc.last) || d.T[tc.n-1] != 1 {
			t.Errorf("%s: last row %v → %v, want %v → 1", tc.name, got, d.T[tc.n-1], tc.last)
		}
	}
}

func TestLoadPima(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	train, test, err := LoadPima()
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"npreg", "glu", "bp", "skin", "bmi", "ped", "age"}
	for _, tc := range []struct {
		name    string
		d       *Dataset
		n, yes  int
		first   []float64
		firstT  float64
		lastRow []float64
		lastT   float64
	}{
		{"train", train, 200, 68, []float64{5, 86, 68, 28, 30.2, 0.364, 24}, 0, []float64{8, 155, 62, 26, 34, 0.543, 46}, 1},
		{"test", test, 332, 109, []float64{6, 148, 72, 35, 33.6, 0.627, 50}, 1, []float64{1, 93, 70, 31, 30.4, 0.315, 23}, 0},
	} {
		d := tc.d
		if d.Len() != tc.n || d.Dim() != 7 || !reflect.DeepEqual(d.Columns, cols) || d.Target != "type" {
			t.Errorf("%s: Len %d Dim %d Columns %q Target %q", tc.name, d.Len(), d.Dim(), d.Columns, d.Target)
		}
		if got := countLabels(t, d); got != tc.yes {
			t.Errorf("%s: %d Yes, want %d", tc.name, got, tc.yes)
		}
		if got := d.X.RawRowView(0); !reflect.DeepEqual(got, tc.first) || d.T[0] != tc.firstT {
			t.Errorf("%s: first row %v → %v, want %v → %v", tc.name, got, d.T[0], tc.first, tc.firstT)
		}
		if got := d.X.RawRowView(tc.n - 1); !reflect.DeepEqual(got, tc.lastRow) || d.T[tc.n-1] != tc.lastT {
			t.Errorf("%s: last row %v → %v, want %v → %v", tc.name, got, d.T[tc.n-1], tc.lastRow, tc.lastT)
		}
	}
}

func TestLoadBoston(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	d, err := LoadBoston()
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"}
	if d.Len() != 506 || d.Dim() != 13 || !reflect.DeepEqual(d.Columns, cols) || d.Target != "MEDV" {
		t.Fatalf("Len %d Dim %d Columns %q Target %q", d.Len(), d.Dim(), d.Columns, d.Target)
	}
	first := []float64{0.00632, 18, 2.31, 0, 0.538, 6.575, 65.2, 4.09, 1, 296, 15.3, 396.9, 4.98}
	if got := d.X.RawRowView(0); !reflect.DeepEqual(got, first) || d.T[0] != 24 {
		t.Errorf("first row %v → %v, want %v → 24", got, d.T[0], first)
	}
	// MEDV is censored at 50: 16 tracts; 35 tracts bound the Charles River;
	// the mean MEDV is 22.5328 (computed with Python's csv module).
	censored := 0
	for _, v := range d.T {
		if v == 50 {
			censored++
		}
	}
	if censored != 16 {
		t.Errorf("%d tracts with MEDV = 50, want 16", censored)
	}
	if chas := floatsSum(mat.Col(nil, 3, d.X)); chas != 35 {
		t.Errorf("sum of CHAS = %v, want 35", chas)
	}
	if m := stat.Mean(d.T, nil); m < 22.53280 || m > 22.53281 {
		t.Errorf("mean MEDV = %v, want 22.532806", m)
	}
}

func floatsSum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func TestSincSets(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	for _, tc := range []struct {
		n                    int
		x0, t0, xLast, tLast float64
	}{
		{100, 0.4277147595012547, 0.8130788095351876, 9.800758161795535, -0.07186568289815398},
		{50, -8.893073622851865, -0.09749395957273586, 1.5780718777452272, 0.7668817208940713},
	} {
		sets, err := SincSets(tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if len(sets) != NumSincSets {
			t.Fatalf("SincSets(%d): %d sets, want 25", tc.n, len(sets))
		}
		var res []float64
		for s, d := range sets {
			if d.Len() != tc.n || d.Dim() != 1 || d.Columns[0] != "x" || d.Target != "t" {
				t.Fatalf("SincSets(%d)[%d]: Len %d Dim %d Columns %q Target %q", tc.n, s, d.Len(), d.Dim(), d.Columns, d.Target)
			}
			for i, v := range d.T {
				res = append(res, v-SincTrue(d.X.At(i, 0)))
			}
		}
		if x, y := sets[0].X.At(0, 0), sets[0].T[0]; x != tc.x0 || y != tc.t0 {
			t.Errorf("SincSets(%d)[0] row 0 = (%v, %v), want (%v, %v)", tc.n, x, y, tc.x0, tc.t0)
		}
		last := sets[24]
		if x, y := last.X.At(tc.n-1, 0), last.T[tc.n-1]; x != tc.xLast || y != tc.tLast {
			t.Errorf("SincSets(%d)[24] last row = (%v, %v), want (%v, %v)", tc.n, x, y, tc.xLast, tc.tLast)
		}
		// Noise N(0, 0.1²) over 25n points: sd within 4 standard errors.
		if sd := stat.StdDev(res, nil); sd < 0.1*(1-4/sqrt(2*25*float64(tc.n))) || sd > 0.1*(1+4/sqrt(2*25*float64(tc.n))) {
			t.Errorf("SincSets(%d): noise sd %v, want 0.1", tc.n, sd)
		}
	}
	if _, err := SincSets(75); err == nil || !strings.Contains(err.Error(), "50 or 100") {
		t.Errorf("SincSets(75): error %v, want one naming the sizes 50 and 100", err)
	}
}

func TestRipleySubsets(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	subsets, err := RipleySubsets()
	if err != nil {
		t.Fatal(err)
	}
	if len(subsets) != 10 {
		t.Fatalf("%d subsets, want 10", len(subsets))
	}
	for s, rows := range subsets {
		if len(rows) != 100 || !slices.IsSorted(rows) || rows[0] < 0 || rows[99] >= 250 || len(slices.Compact(slices.Clone(rows))) != 100 {
			t.Errorf("subset %d: %d rows, not 100 distinct sorted rows in [0, 250): %v", s, len(rows), rows)
		}
	}
	if subsets[0][0] != 2 || subsets[0][1] != 8 || subsets[9][99] != 249 {
		t.Errorf("subsets[0] starts %v, subsets[9] ends %v; want 2 8 … and … 249", subsets[0][:2], subsets[9][99])
	}
	d, err := RipleySubset(0)
	if err != nil {
		t.Fatal(err)
	}
	train, _, _ := LoadRipley()
	if d.Len() != 100 || !reflect.DeepEqual(d.X.RawRowView(0), train.X.RawRowView(2)) || !reflect.DeepEqual(d.X.RawRowView(1), train.X.RawRowView(8)) {
		t.Errorf("RipleySubset(0) does not start with training rows 2 and 8")
	}
	for _, s := range []int{-1, 10} {
		if _, err := RipleySubset(s); err == nil {
			t.Errorf("RipleySubset(%d): no error", s)
		}
	}
}

func TestBostonSplits(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	splits, err := BostonSplits()
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 10 {
		t.Fatalf("%d splits, want 10", len(splits))
	}
	for s, rows := range splits {
		if len(rows) != 25 || !slices.IsSorted(rows) || rows[0] < 0 || rows[24] >= 506 || len(slices.Compact(slices.Clone(rows))) != 25 {
			t.Errorf("split %d: not 25 distinct sorted rows in [0, 506): %v", s, rows)
		}
	}
	if want := []int{3, 5, 7, 79, 86}; !reflect.DeepEqual(splits[0][:5], want) || splits[9][24] != 499 {
		t.Errorf("splits[0] starts %v, want %v; splits[9] ends %d, want 499", splits[0][:5], want, splits[9][24])
	}
	all, _ := LoadBoston()
	train, test, err := BostonSplit(0)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 481 || test.Len() != 25 || train.Dim() != 13 || test.Dim() != 13 {
		t.Fatalf("BostonSplit(0): %d training and %d test rows of %d and %d inputs, want 481 and 25 of 13", train.Len(), test.Len(), train.Dim(), test.Dim())
	}
	if !reflect.DeepEqual(test.X.RawRowView(0), all.X.RawRowView(3)) || test.T[0] != all.T[3] {
		t.Error("BostonSplit(0) test row 0 is not boston.csv row 3")
	}
	// The training set is rows 0, 1, 2, 4, 6, …: row 3 of it is row 4.
	if !reflect.DeepEqual(train.X.RawRowView(3), all.X.RawRowView(4)) || train.T[4] != all.T[6] {
		t.Error("BostonSplit(0) training rows are not the remaining rows in order")
	}
	// Together the two sets hold every target once.
	got := append(slices.Clone(train.T), test.T...)
	slices.Sort(got)
	want := slices.Clone(all.T)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Error("BostonSplit(0): training and test targets are not a partition of MEDV")
	}
	for _, s := range []int{-1, 10} {
		if _, _, err := BostonSplit(s); err == nil {
			t.Errorf("BostonSplit(%d): no error", s)
		}
	}
}

// edited returns the shared file name with its lines (header first, no
// line ends) passed through edit.
func edited(t *testing.T, name string, edit func([]string) []string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(readShared(t, name)), "\n"), "\n")
	lines = edit(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// setLine returns an edit that replaces line n (1-based) by s.
func setLine(n int, s string) func([]string) []string {
	return func(l []string) []string { l[n-1] = s; return l }
}

// mapLines returns an edit that applies f to every line.
func mapLines(f func(string) string) func([]string) []string {
	return func(l []string) []string {
		for i := range l {
			l[i] = f(l[i])
		}
		return l
	}
}

func TestLoadMalformed(t *testing.T) {
	shared := sharedData(t)
	ripley := func() error { _, _, err := LoadRipley(); return err }
	pima := func() error { _, _, err := LoadPima(); return err }
	boston := func() error { _, err := LoadBoston(); return err }
	sinc := func() error { _, err := SincSets(100); return err }
	subsets := func() error { _, err := RipleySubsets(); return err }
	splits := func() error { _, err := BostonSplits(); return err }
	dropColumn := func(j int) func(string) string {
		return func(s string) string {
			f := strings.Split(s, ",")
			return strings.Join(append(f[:j], f[j+1:]...), ",")
		}
	}
	for _, tc := range []struct {
		name   string
		file   string
		edit   func([]string) []string
		load   func() error
		want   error
		line   int
		field  int
		column string
		msg    []string
	}{
		{name: "ragged row", file: "ripley_train.csv", edit: setLine(5, "0.1,0.2"), load: ripley, want: ErrFieldCount, line: 5, msg: []string{"2 fields, the header has 3"}},
		{name: "non-numeric cell", file: "ripley_train.csv", edit: setLine(3, "abc,0.1,0"), load: ripley, want: ErrNotNumber, line: 3, field: 1, column: "xs", msg: []string{`"abc"`}},
		{name: "NaN cell", file: "ripley_test.csv", edit: setLine(1001, "0.1,NaN,1"), load: ripley, want: ErrNaN, line: 1001, field: 2, column: "ys"},
		{name: "empty cell", file: "boston.csv", edit: setLine(100, strings.Repeat("1,", 13)), load: boston, want: ErrMissing, line: 100, field: 14, column: "MEDV"},
		{name: "bad class label", file: "ripley_train.csv", edit: setLine(10, "0.1,0.2,2"), load: ripley, want: ErrLabel, line: 10, field: 3, column: "yc", msg: []string{`bad label "2"`}},
		{name: "bad Pima label", file: "pima_test.csv", edit: setLine(7, "1,2,3,4,5,6,7,Maybe"), load: pima, want: ErrLabel, line: 7, field: 8, column: "type", msg: []string{`"Maybe", want one of "No", "Yes"`}},
		{name: "wrong header", file: "ripley_train.csv", edit: setLine(1, "xs,ys,class"), load: ripley, want: ErrHeader, line: 1, msg: []string{`missing column "yc"`}},
		{name: "upstream header", file: "boston.csv", edit: setLine(1, "crim,zn,indus,chas,nox,rm,age,dis,rad,tax,ptratio,black,lstat,medv"), load: boston, want: ErrHeader, line: 1, msg: []string{`missing column "CRIM"`}},
		{name: "missing column", file: "pima_train.csv", edit: mapLines(dropColumn(3)), load: pima, want: ErrHeader, line: 1, msg: []string{`missing column "skin"`}},
		{name: "extra column", file: "boston_splits.csv", edit: mapLines(func(s string) string { return s + ",1" }), load: splits, want: ErrHeader, line: 1, msg: []string{`unexpected column "1"`}},
		{name: "empty file", file: "pima_train.csv", edit: func([]string) []string { return nil }, load: pima, want: ErrEmpty},
		{name: "header only", file: "boston.csv", edit: func(l []string) []string { return l[:1] }, load: boston, want: ErrNoRows},
		{name: "row missing", file: "ripley_test.csv", edit: func(l []string) []string { return l[:len(l)-1] }, load: ripley, want: ErrRowCount, msg: []string{"999 data rows, want 1000"}},
		{name: "set out of range", file: "sinc_N100_25sets.csv", edit: setLine(2501, "25,1,0"), load: sinc, line: 2501, field: 1, column: "set", msg: []string{"not an integer in [0, 25)"}},
		{name: "set not an integer", file: "sinc_N100_25sets.csv", edit: setLine(2, "0.5,1,0"), load: sinc, line: 2, field: 1, column: "set"},
		{name: "set too large", file: "sinc_N100_25sets.csv", edit: setLine(2501, "0,1,0"), load: sinc, line: 2501, field: 1, column: "set", msg: []string{"set 0 has more than 100 rows"}},
		{name: "subset row out of range", file: "ripley_subsets100.csv", edit: setLine(1001, "9,250"), load: subsets, line: 1001, field: 2, column: "row", msg: []string{"not an integer in [0, 250)"}},
		{name: "subset row repeated", file: "ripley_subsets100.csv", edit: setLine(3, "0,2"), load: subsets, line: 3, field: 2, column: "row", msg: []string{"row 2 repeats in subset 0"}},
		{name: "split negative", file: "boston_splits.csv", edit: setLine(2, "-1,3"), load: splits, line: 2, field: 1, column: "split"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// The other files of the data set are the good ones.
			for _, f := range []string{"ripley_train.csv", "ripley_test.csv", "pima_train.csv", "pima_test.csv", "boston.csv"} {
				if err := os.Symlink(filepath.Join(shared, f), filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, tc.file)
			os.Remove(path)
			if err := os.WriteFile(path, []byte(edited(t, tc.file, tc.edit)), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(EnvDir, dir)
			checkParseError(t, tc.load(), tc.want, tc.line, tc.field, tc.column, append(tc.msg, path)...)
		})
	}
}
