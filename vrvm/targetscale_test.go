package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTargetScale: with the zero-valued defaults scaled by (T1), the
// targets times 100 give the predictions times 100 (means) and 10⁴
// (variances; to 1e-8 and 1e-6 relative: both fits stop at Tol along
// iterates that differ in rounding), the same relevance vectors and the
// noise sd times 100. Without (T1) the test fails: the defaults stayed
// in the targets' units. Values set explicitly are not scaled.
func TestTargetScale(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 1))
	n := 120
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		a, b := 4*rnd.Float64()-2, 4*rnd.Float64()-2
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y[i] = 3*math.Sin(2*a) + b*b + 0.2*rnd.NormFloat64()
	}
	y100 := make([]float64, n)
	for i, v := range y {
		y100[i] = 100 * v
	}
	fit := func(r *Regressor, t0 []float64) *Regressor {
		if err := r.Fit(x, t0); err != nil {
			t.Fatal(err)
		}
		return r
	}
	k := Gaussian{Width: 1}
	a, b := fit(&Regressor{Kernel: k}, y), fit(&Regressor{Kernel: k}, y100)
	if ra, rb := a.RelevanceVectors(), b.RelevanceVectors(); len(ra) != len(rb) {
		t.Fatalf("%d relevance vectors, %d with the targets times 100", len(ra), len(rb))
	}
	if d := math.Abs(b.NoiseSD()/(100*a.NoiseSD()) - 1); d > 1e-8 {
		t.Errorf("noise sd %g and %g (times 100): relative difference %g", a.NoiseSD(), b.NoiseSD(), d)
	}
	ma, va, err := a.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	mb, vb, err := b.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ma {
		if d := math.Abs(mb[i] - 100*ma[i]); d > 1e-8*100*math.Max(1, math.Abs(ma[i])) {
			t.Fatalf("row %d: mean %g, times 100 %g", i, 100*ma[i], mb[i])
		}
		if d := math.Abs(vb[i]/(1e4*va[i]) - 1); d > 1e-6 {
			t.Fatalf("row %d: variance %g, times 10⁴ %g", i, 1e4*va[i], vb[i])
		}
	}
	// An explicit PruneAlpha is used as given: at 100 in the units of the
	// targets times 100 it is 10⁴ times the default's ⟨αₘ⟩ scale, and the
	// fit keeps more functions than the scaled default.
	c := fit(&Regressor{Kernel: k, PruneAlpha: 100, Alpha0: 1, Prior: Prior{B: DefaultPrior, D: DefaultPrior}}, y100)
	if len(c.RelevanceVectors()) <= len(b.RelevanceVectors()) {
		t.Errorf("explicit defaults in the units of the targets times 100: %d relevance vectors, scaled defaults %d; want more", len(c.RelevanceVectors()), len(b.RelevanceVectors()))
	}
}
