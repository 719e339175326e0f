package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleCSV writes a regression data set of 40 rows whose input a holds
// 0.1·k·xa (k the row's pattern), b noise-free companions, and y = sign
// pattern of a times ty, to a file in dir, and returns its path.
func scaleCSV(t *testing.T, dir, name string, xa, ty float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 40 {
		u := float64(i%10)/10 - 0.45
		v := math.Sin(float64(i))
		fmt.Fprintf(&b, "%g,%g,%g\n", u*xa, v, (2*u+0.01*v)*ty)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExtremeColumnScales: inputs whose squares overflow (1e200) or
// underflow (1e-300) float64 are standardised like any column, and
// regression targets whose variance does not fit in float64 are refused
// with the library's ErrTargetScale, naming the column, not reported as
// constant (1e300) or carried into a model file that cannot be written
// ("json: unsupported value: +Inf").
func TestExtremeColumnScales(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		xa, ty  float64
		code    int
		wantErr string
	}{
		{"normal.csv", 1, 1, 0, ""},
		{"hugex.csv", 1e200, 1, 0, ""},
		{"tinyx.csv", 1e-300, 1, 0, ""},
		{"hugey.csv", 1, 1e300, 1, `target column "y"`},
		{"tinyy.csv", 1, 1e-300, 1, `target column "y"`},
	} {
		data := scaleCSV(t, dir, c.name, c.xa, c.ty)
		model := filepath.Join(dir, c.name+".json")
		var out, errb bytes.Buffer
		code := run([]string{"fit", "-target", "y", "-quiet", "-width", "2", "-o", model, data}, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.wantErr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errb.String(), c.code, c.wantErr)
			continue
		}
		if c.code != 0 {
			if !strings.Contains(errb.String(), "beyond what the fit can represent") {
				t.Errorf("%s: stderr %q does not name the problem", c.name, errb.String())
			}
			continue
		}
		if strings.Contains(errb.String(), "no relevance vector") {
			t.Errorf("%s: the informative column was lost: %s", c.name, errb.String())
		}
		out.Reset()
		errb.Reset()
		if code := run([]string{"predict", "-model", model, data}, &out, &errb); code != 0 {
			t.Fatalf("%s: predict exit %d: %s", c.name, code, errb.String())
		}
		rows := readCSV(t, out.String())
		var se float64
		for i, r := range rows[1:] {
			m := parse(t, r[0])
			u := float64(i%10)/10 - 0.45
			se += (m - 2*u) * (m - 2*u)
		}
		if rmse := math.Sqrt(se / 40); !(rmse < 0.1) {
			t.Errorf("%s: training RMS error %g, want < 0.1", c.name, rmse)
		}
	}
}

// TestScaleWarningHuge: the warning of -standardize=false about the
// inputs' scales gives finite standard deviations for a column of 1e200
// (stat.PopMeanStdDev gave NaN).
func TestScaleWarningHuge(t *testing.T) {
	dir := t.TempDir()
	data := scaleCSV(t, dir, "hugex.csv", 1e200, 1)
	var out, errb bytes.Buffer
	run([]string{"fit", "-target", "y", "-quiet", "-width", "2", "-standardize=false", "-o", filepath.Join(dir, "m.json"), data}, &out, &errb)
	if s := errb.String(); !strings.Contains(s, "differ in scale by a factor") || strings.Contains(s, "NaN") {
		t.Errorf("stderr %q: want the scale warning with finite numbers", s)
	}
}
