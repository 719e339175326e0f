package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRVMExplicitDesign: the sequential type-II RVMs, which take the
// design as the Sequential solver does (R9), reach a maximum of the
// evidence where that design is explicit (U = I, B = Φᵀ), on a ten-input
// problem of 200 rows whose kernel matrix has full rank. Regression: the
// log evidence equals its direct value to 1e-9 relative, every active αₘ
// its optimum (R3) to 1e-5 and no inactive function would enter
// ((qₘ² − sₘ)/sₘ ≤ 1e-6), as TestSequential checks where the design is
// factorised. Classification: the weights are at the posterior's mode
// (gradient ≤ 1e-6) and the evidence equals Laplace's approximation
// there to 1e-8 (the marginal covariance of the Laplace Gaussian is
// singular at this mode, W nearly 0 at well-separated rows, so the
// stationarity check of TestSequentialClassifier is not made here).
func TestRVMExplicitDesign(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 9))
	n, d := 200, 10
	x := mat.NewDense(n, d, nil)
	reg := make([]float64, n)
	cls := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.NormFloat64())
		}
		f := math.Sin(x.At(i, 0)) + x.At(i, 1)*x.At(i, 2)/2
		reg[i] = f + 0.2*rnd.NormFloat64()
		if f+0.3*rnd.NormFloat64() > 0 {
			cls[i] = 1
		}
	}
	b := basis{kernel: Gaussian{Width: 3}, bias: true, centers: x, dim: d}
	if f, err := newSeqDesign(t.Context(), b, x); err != nil || !f.Ident {
		t.Fatalf("the problem's design is not explicit (err %v)", err)
	}
	k := Gaussian{Width: 3}
	r := &RVMRegressor{Kernel: k}
	if err := r.FitContext(t.Context(), x, reg); err != nil {
		t.Fatal(err)
	}
	phi := activeDesign(t, &r.fitted, x)
	beta := 1 / r.noise
	if want := logEvidence(t, phi, reg, r.Alpha(), beta); math.Abs(r.LowerBound()-want) > 1e-9*math.Abs(want) {
		t.Errorf("RVMRegressor: log evidence %.12g, direct %.12g", r.LowerBound(), want)
	}
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = 1 / beta
	}
	if wa, wt := rvmMaximum(t, &r.fitted, x, reg, k, noise); wa > 1e-5 || wt > 1e-6 {
		t.Errorf("RVMRegressor: not at a maximum: αₘ off by %.3g relative, an inactive function with (q² − s)/s = %.3g", wa, wt)
	}
	t.Logf("RVMRegressor: %d relevance vectors, log evidence %.6f", len(r.Alpha()), r.LowerBound())

	c := &RVMClassifier{Kernel: k}
	if err := c.FitContext(t.Context(), x, cls); err != nil {
		t.Fatal(err)
	}
	phi = activeDesign(t, &c.fitted, x)
	want, _, _ := laplaceAtMode(t, "RVMClassifier", phi, c.Mean(), c.Alpha(), cls, 1e-6)
	if math.Abs(c.LowerBound()-want) > 1e-8*math.Abs(want) {
		t.Errorf("RVMClassifier: evidence %.12g, Laplace's approximation directly %.12g", c.LowerBound(), want)
	}
	t.Logf("RVMClassifier: %d relevance vectors, evidence %.6f, %v after %d", len(c.Alpha()), c.LowerBound(), c.Status(), c.Iterations())
}
