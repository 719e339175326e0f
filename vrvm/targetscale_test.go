package vrvm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestTargetScale: with the zero-valued defaults scaled by (T1), the
// targets times 100 give the predictions times 100 (means) and 10⁴
// (variances; to 1e-8 and 1e-6 relative: both fits stop at Tol along
// iterates that differ in rounding), the same relevance vectors and the
// noise sd times 100. Without (T1) the test fails: the defaults stayed
// in the targets' units. Values set explicitly are not scaled.
func TestTargetScale(t *testing.T) {
	t.Parallel()
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

// TestSmallTargetScale: below the variance minTargetVar (T1) scales the
// defaults too, so that targets of standard deviation 10⁻² and 10⁻⁸
// give the same fit stated in their units (means to 1e-6 relative, the
// same relevance vectors, noise sd times 10⁻⁶), for Regressor and
// RVMRegressor, with relevance vectors counted in the scaled units;
// before, the fit at 10⁻⁸ kept no relevance vector. Targets of standard
// deviation 10⁻⁷⁰ and 10⁷⁰ get ErrTargetScale.
func TestSmallTargetScale(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(11, 2))
	n := 150
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		a := 20*rnd.Float64() - 10
		x.Set(i, 0, a)
		y[i] = math.Sin(a)/a + 0.1*rnd.NormFloat64()
	}
	_, sd := stat.PopMeanStdDev(y, nil)
	scaled := func(c float64) []float64 {
		out := make([]float64, n)
		for i, v := range y {
			out[i] = c * v / sd
		}
		return out
	}
	type model interface {
		Estimator
		Predict(mat.Matrix) ([]float64, []float64, error)
		NoiseSD() float64
		Fit(mat.Matrix, []float64) error
	}
	for _, fresh := range []func() model{
		func() model { return &Regressor{Kernel: Gaussian{Width: 2}} },
		func() model { return &RVMRegressor{Kernel: Gaussian{Width: 2}} },
	} {
		a, b := fresh(), fresh()
		if err := a.Fit(x, scaled(1e-2)); err != nil {
			t.Fatal(err)
		}
		if err := b.Fit(x, scaled(1e-8)); err != nil {
			t.Fatal(err)
		}
		ra, rb := a.RelevanceVectors(), b.RelevanceVectors()
		if len(ra) == 0 || len(ra) != len(rb) {
			t.Fatalf("%T: %d relevance vectors at sd 1e-2, %d at 1e-8", a, len(ra), len(rb))
		}
		if d := math.Abs(b.NoiseSD()/(1e-6*a.NoiseSD()) - 1); d > 1e-6 {
			t.Errorf("%T: noise sd %g at 1e-2, %g at 1e-8: relative difference %g from 1e-6 times", a, a.NoiseSD(), b.NoiseSD(), d)
		}
		ma, _, err := a.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		mb, _, err := b.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ma {
			if d := math.Abs(mb[i] - 1e-6*ma[i]); d > 1e-6*1e-6*math.Max(1e-2, math.Abs(ma[i])) {
				t.Fatalf("%T row %d: mean %g at 1e-8, 1e-6 times the mean at 1e-2 %g", a, i, mb[i], 1e-6*ma[i])
			}
		}
		var buf bytes.Buffer
		if err := b.Save(&buf); err != nil {
			t.Fatal(err)
		}
		l, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if rl := l.RelevanceVectors(); !slices.Equal(rl, rb) {
			t.Errorf("%T: relevance vectors %v, loaded %v", b, rb, rl)
		}
		for _, c := range []float64{1e-70, 1e70} {
			if err := fresh().Fit(x, scaled(c)); !errors.Is(err, ErrTargetScale) {
				t.Errorf("%T, targets of sd %g: %v, want ErrTargetScale", a, c, err)
			}
		}
	}
}
