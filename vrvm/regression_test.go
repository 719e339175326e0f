package vrvm

import (
	"context"
	"math"
	"testing"

	"github.com/vrvm/vrvm/vrvm/datasets"
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
	t.Parallel()
	f, x, xt := loadFixture(t, "sinc50_gauss.json")
	r := &Regressor{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 100000, Tol: 1e-14, ParamTol: 1e-11, Method: PaperSchedule{}, NoAugment: true}
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
	t.Parallel()
	f, x, xt := loadFixture(t, "binary60_gauss.json")
	c := &Classifier{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 400000, Tol: 1e-14, ParamTol: 1e-9, Method: PaperSchedule{}, NoAugment: true}
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

// TestEffectiveParameters checks γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ): between 0 and
// the number of active weights, above half the rows where a kernel far
// narrower than the inputs' spacing nearly interpolates the targets (the
// noise estimate then far below the true sd 1), and a small fraction of
// them at a sensible width.
func TestEffectiveParameters(t *testing.T) {
	t.Parallel()
	tr, err := datasets.Friedman1(120, 5, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(len(tr.T))
	for _, c := range []struct {
		name   string
		est    interface{ EffectiveParameters() float64 }
		narrow bool
	}{
		{"vrvm narrow", &Regressor{Kernel: Gaussian{Width: 0.05}}, true},
		{"vrvm default", &Regressor{}, false},
		{"rvm narrow", &RVMRegressor{Kernel: Gaussian{Width: 0.05}}, true},
		{"rvm wide", &RVMRegressor{Kernel: Gaussian{Width: 1.5}}, false},
	} {
		e := c.est.(Estimator)
		if err := e.FitContext(context.Background(), tr.X, tr.T); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		g := c.est.EffectiveParameters()
		t.Logf("%s: γ = %.1f of %d rows, %d active, noise sd %.3g", c.name, g, len(tr.T), len(e.ActiveSet()), e.NoiseSD())
		if !(g >= 0) || g > float64(len(e.ActiveSet()))+1 {
			t.Errorf("%s: γ = %v outside [0, %d]", c.name, g, len(e.ActiveSet())+1)
		}
		if c.narrow && (g <= n/2 || e.NoiseSD() > 0.5) {
			t.Errorf("%s: γ = %v, noise sd %v: want γ > N/2 and a collapsed noise estimate", c.name, g, e.NoiseSD())
		}
		if !c.narrow && (g >= n/4 || e.NoiseSD() < 0.7) {
			t.Errorf("%s: γ = %v, noise sd %v: want γ < N/4 and noise near 1", c.name, g, e.NoiseSD())
		}
	}
}
