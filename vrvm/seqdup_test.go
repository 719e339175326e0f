package vrvm

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/testgen"
)

// dupRipley returns n of Ripley's rows with rows 0..n/2 twice more, row 1
// a fourth time, and a row at row 2's input with the other label.
func dupRipley(n int) (*mat.Dense, []float64) {
	x, t := benchRipley(n, 11)
	return testgen.Duplicated(x, t)
}

// TestCollapsedRowsFit compares the default fit of a data set with
// duplicated rows, collapsed, with the fit of every row: the same active
// set, and bounds, weights, probabilities and ξ to 1e-8.
func TestCollapsedRowsFit(t *testing.T) {
	t.Parallel()
	x, y := dupRipley(120)
	fit := func(collapse bool) *Classifier {
		m := &Classifier{Kernel: Gaussian{Width: 0.5}, Tol: 1e-13, ParamTol: 1e-10, MaxIter: 5000, ctl: controls{noCollapse: !collapse}}
		if err := m.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		if m.Status() != Converged {
			t.Fatalf("collapse=%v: %v", collapse, m.Status())
		}
		return m
	}
	all, dist := fit(false), fit(true)
	t.Logf("every row: %d iterations, distinct rows: %d", all.Iterations(), dist.Iterations())
	if a, b := all.ActiveSet(), dist.ActiveSet(); !slices.Equal(a, b) {
		t.Fatalf("active sets %v and %v", a, b)
	}
	const tol = 1e-8
	if a, b := all.FullModelBound(), dist.FullModelBound(); math.Abs(a-b) > tol*math.Abs(a) {
		t.Errorf("bound %.15g and %.15g", a, b)
	}
	if a, b := all.LowerBound(), dist.LowerBound(); math.Abs(a-b) > tol*math.Abs(a) {
		t.Errorf("trace's last bound %.15g and %.15g", a, b)
	}
	for i, v := range all.Mean() {
		if w := dist.Mean()[i]; math.Abs(v-w) > tol*math.Max(1, math.Abs(v)) {
			t.Errorf("μ[%d]: %.15g and %.15g", i, v, w)
		}
	}
	pa, _ := all.ProbModerated(x)
	pd, _ := dist.ProbModerated(x)
	for i, v := range pa {
		if math.Abs(v-pd[i]) > tol {
			t.Errorf("p[%d]: %.15g and %.15g", i, v, pd[i])
		}
	}
	for n, v := range all.Xi() {
		if w := dist.Xi()[n]; math.Abs(v-w) > tol*math.Max(1, v) {
			t.Errorf("ξ[%d]: %.15g and %.15g", n, v, w)
		}
	}
}
