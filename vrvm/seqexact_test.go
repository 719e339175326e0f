package vrvm

import (
	"math"
	"testing"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestWideKernelManyRows checks (S14): Friedman #1 (d = 10, noise sd 1,
// seed 1) on 1,600 rows, inputs and targets standardised as vrvm fit
// does, under a Gaussian of width 12, whose functions are nearly
// collinear. The plain sⱼ of the additions was mostly rounding, Σ went
// wrong along the added directions, and the fit failed at iteration 75
// with a NotPositiveDefiniteError (non-finite bound). It must converge
// to a finite bound, with a noise level below the targets' spread.
func TestWideKernelManyRows(t *testing.T) {
	t.Parallel()
	tr, err := datasets.Friedman1(1600, 10, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	te, err := datasets.Friedman1(1000, 10, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	standardise(tr.X, te.X)
	var mean, v float64
	for _, y := range tr.T {
		mean += y
	}
	mean /= float64(len(tr.T))
	for _, y := range tr.T {
		v += (y - mean) * (y - mean)
	}
	sd := math.Sqrt(v / float64(len(tr.T)))
	y := make([]float64, len(tr.T))
	for i, t := range tr.T {
		y[i] = (t - mean) / sd
	}
	for i := range te.T {
		te.T[i] = (te.T[i] - mean) / sd
	}
	r := &Regressor{Kernel: Gaussian{Width: 12}}
	if err := r.Fit(tr.X, y); err != nil {
		t.Fatal(err)
	}
	rmse, cover := crowdScore(t, r, te.X, te.T)
	t.Logf("%v after %d iterations, %d functions, bound %.2f, noise sd %.3f, test RMSE %.3f, coverage %.3f (target units: noise sd %.3f, RMSE %.3f)",
		r.Status(), r.Iterations(), len(r.RelevanceVectors()), r.LowerBound(), r.NoiseSD(), rmse, cover, r.NoiseSD()*sd, rmse*sd)
	if r.Status() != Converged || math.IsNaN(r.LowerBound()) || math.IsInf(r.LowerBound(), 0) {
		t.Fatalf("status %v, bound %v", r.Status(), r.LowerBound())
	}
	// Noise sd 1 of a target sd about 5: the fit must explain most of it.
	if ns := r.NoiseSD(); !(ns < 0.5) {
		t.Errorf("noise sd %.3f of standardised targets", ns)
	}
	if !(cover > 0.85) {
		t.Errorf("test coverage %.3f", cover)
	}
}
