package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// smoothProblem returns n rows of 8 standard normal inputs and the targets
// sin x₀ + x₁x₂ + ½x₃² + 0.3ε: a smooth target whose default width is
// wide, so that many active functions share weights and coordinate ascent
// crawls (S15).
func smoothProblem(n int, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 15))
	x := mat.NewDense(n, 8, nil)
	t := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rnd.NormFloat64()
		}
		t[i] = math.Sin(r[0]) + r[1]*r[2] + 0.5*r[3]*r[3] + 0.3*rnd.NormFloat64()
	}
	return x, t
}

// TestCrawlStop: on a large set without the joint steps (S7), (S15)
// takes no more iterations than waiting for ParamTol, at a bound within
// 0.05 nats and predictions within 1e-3 of the other fit's, and
// converged. It ended a crawl here (at 10,000 rows and width 5.64, 672
// iterations against 1,702, full bound −66737.58) until the roots of
// (S1) were computed without cancellation (alphaRootUpTo): since then the
// fit converges in 410 iterations with or without it, at −66729.91, and
// (S15) does not fire on this set.
func TestCrawlStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a fit of 10,000 rows twice")
	}
	x, y := smoothProblem(10000, 1)
	fit := func(on bool) *Regressor {
		r := &Regressor{Kernel: Gaussian{Width: 5.64}, ctl: controls{noCrawlStop: !on}} // about the defaults width
		if err := r.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := fit(true), fit(false)
	t.Logf("(S15): %d iterations, bound %.4f, %d active; without: %d, %.4f, %d", a.Iterations(), a.LowerBound(), len(a.ActiveSet()), b.Iterations(), b.LowerBound(), len(b.ActiveSet()))
	if a.Status() != Converged {
		t.Fatalf("status %v with (S15)", a.Status())
	}
	if a.Iterations() > b.Iterations() {
		t.Errorf("(S15) took %d iterations, without it %d", a.Iterations(), b.Iterations())
	}
	if d := b.LowerBound() - a.LowerBound(); math.Abs(d) > 0.05 {
		t.Errorf("bound %.4f with (S15), %.4f without: %.4f apart", a.LowerBound(), b.LowerBound(), d)
	}
	xt, _ := smoothProblem(500, 2)
	ma, _, err := a.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	mb, _, err := b.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ma {
		if math.Abs(ma[i]-mb[i]) > 1e-3 {
			t.Fatalf("row %d: mean %g with (S15), %g without", i, ma[i], mb[i])
		}
	}
}
