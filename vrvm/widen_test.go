package vrvm

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestDefaultWidthWidened checks (W5): on Friedman #1 with 45 irrelevant
// inputs (120 rows, 50 standardised inputs, noise sd 1) the sparse fit
// at the dense model's width keeps nearly every row as a kernel function
// and its noise estimate collapses far below 1, so that ±2σ covers
// almost none of the fresh noisy targets; the default doubles the width,
// keeps γ and the kernel functions at most half the rows, estimates the
// noise within a factor 3 and covers most of the targets, at no larger
// test error. The fit without (W5) is scored without the GP floor of the
// variance (A18), which would hide its collapsed noise.
func TestDefaultWidthWidened(t *testing.T) {
	t.Parallel()
	const n = 120
	tr, te := friedman50(t, n)
	fit := func(on bool) (r *Regressor, rmse, cover float64) {
		r = &Regressor{ctl: controls{noWiden: !on}}
		if err := r.Fit(tr.X, tr.T); err != nil {
			t.Fatal(err)
		}
		if !on {
			// The crowded fit's own variance: the GP floor (A18) lifts its
			// coverage (to 0.84) on its collapsed noise.
			if err := r.dropFloor(); err != nil {
				t.Fatal(err)
			}
		}
		rmse, cover = crowdScore(t, r, te.X, te.T)
		return r, rmse, cover
	}
	off, rOff, cOff := fit(false)
	on, rOn, cOn := fit(true)
	t.Logf("without (W5): %v, %d functions, noise sd %.3g, test RMSE %.3f, coverage %.2f", off.FittedKernel(), len(off.RelevanceVectors()), off.NoiseSD(), rOff, cOff)
	t.Logf("with (W5): %v (%d doublings), %d functions, noise sd %.3g, test RMSE %.3f, coverage %.2f", on.FittedKernel(), on.WidthDoublings(), len(on.RelevanceVectors()), on.NoiseSD(), rOn, cOn)
	if len(off.RelevanceVectors()) <= n/2 || cOff > 0.5 {
		t.Fatalf("without (W5) %d functions and coverage %.2f: the problem no longer shows the crowded fit", len(off.RelevanceVectors()), cOff)
	}
	if on.WidthDoublings() < 1 || len(on.RelevanceVectors()) > n/2 || on.EffectiveParameters() > n/2 {
		t.Errorf("with (W5): %d doublings, %d functions of 420 rows", on.WidthDoublings(), len(on.RelevanceVectors()))
	}
	if sd := on.NoiseSD(); sd < 1.0/3 || sd > 3 {
		t.Errorf("with (W5): noise sd %.3g, true 1", sd)
	}
	if cOn < 0.7 || rOn > 1.05*rOff {
		t.Errorf("with (W5): coverage %.2f, RMSE %.3f (without: %.3f)", cOn, rOn, rOff)
	}
}

// TestDefaultWidthMonitorStop checks that a fit the Monitor stops is the
// model, crowded or not: (W5) does not fit again at twice the width. The
// paper's schedule, stopped after 200 iterations on the problem of
// TestDefaultWidthWidened, has γ above half the rows (70 of 120).
func TestDefaultWidthMonitorStop(t *testing.T) {
	t.Parallel()
	tr, err := datasets.Friedman1(120, 50, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	standardise(tr.X, mat.NewDense(1, 50, nil))
	calls := 0
	const stopAt = 200
	r := &Regressor{Method: PaperSchedule{}, Monitor: func(p Progress) bool { calls++; return p.Iteration >= stopAt }}
	if err := r.Fit(tr.X, tr.T); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped: γ = %.1f of %d rows", r.EffectiveParameters(), 120)
	if r.Status() != Stopped || r.WidthDoublings() != 0 || calls != stopAt {
		t.Errorf("Monitor stopping at iteration %d: status %v, %d doublings, %d Monitor calls", stopAt, r.Status(), r.WidthDoublings(), calls)
	}
}
