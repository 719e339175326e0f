package vrvm

import (
	"math"
	"testing"
)

// Named tolerances, relative to the expected value.
const (
	boundTol = 1e-8 // lower bound vs the fixtures
	predTol  = 1e-6 // predictions and ⟨τ⟩ vs the fixtures
)

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if e := relErr(got[i], want[i]); !(e <= tol) {
			t.Errorf("%s[%d] = %.12g, want %.12g (relative error %.2g > %.0e)", what, i, got[i], want[i], e, tol)
		}
	}
}

func TestRegressionFixture(t *testing.T) {
	f, x, xt := loadFixture(t, "sinc50_gauss.json")
	r := &Regressor{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 100000, Tol: 1e-14, ParamTol: 1e-11, Solver: PaperSchedule}
	if err := r.Fit(x, f.T); err != nil {
		t.Fatal(err)
	}
	t.Logf("status %v after %d iterations (reference: %d)", r.Status(), r.Iterations(), f.Convergence.NIter)
	checkClose(t, "first bounds", r.BoundTrace()[1:11], f.First10, 1e-10)
	if e := relErr(r.LowerBound(), f.LowerBound); e > boundTol {
		t.Errorf("lower bound %.12g, want %.12g (rel %.2g)", r.LowerBound(), f.LowerBound, e)
	}
	if e := relErr((r.ct / r.dt), f.TauMean); e > predTol {
		t.Errorf("<tau> %.12g, want %.12g (rel %.2g)", (r.ct / r.dt), f.TauMean, e)
	}
	mean, variance, err := r.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "predictive mean", mean, f.PredMean, predTol)
	checkClose(t, "predictive variance", variance, f.PredVar, predTol)
}

func TestClassificationFixture(t *testing.T) {
	f, x, xt := loadFixture(t, "binary60_gauss.json")
	c := &Classifier{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 400000, Tol: 1e-14, ParamTol: 1e-9, Solver: PaperSchedule}
	if err := c.Fit(x, f.T); err != nil {
		t.Fatal(err)
	}
	t.Logf("status %v after %d iterations (reference: %d)", c.Status(), c.Iterations(), f.Convergence.NIter)
	checkClose(t, "first bounds", c.BoundTrace()[1:11], f.First10, 1e-10)
	if e := relErr(c.LowerBound(), f.LowerBound); e > boundTol {
		t.Errorf("lower bound %.12g, want %.12g (rel %.2g)", c.LowerBound(), f.LowerBound, e)
	}
	m, v, err := c.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "activation mean", m, f.ActMean, predTol)
	checkClose(t, "activation variance", v, f.ActVar, predTol)
	pp, _ := c.ProbPlugin(xt)
	checkClose(t, "plug-in", pp, f.ProbPlugin, predTol)
	pm, _ := c.ProbModerated(xt)
	checkClose(t, "moderated", pm, f.ProbModerated, predTol)
}
