package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRVMExplicitDesign: the sequential type-II RVMs give the same fit
// with the explicit design (R9), which they take above rvmExplicitRows
// rows where the kernel matrix's numerical rank is large, as with the
// factorisation of full rank they take below it: the same relevance
// vectors, log evidence to a relative 1e-7 and latent means to 1e-5 (the
// fits stop when no ln αₘ would change by more than Tol = 1e-6, and the
// two designs round differently), on a ten-input problem whose kernel
// matrix has full rank.
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
	if f, err := newSeqDesign(t.Context(), b, x); err != nil || !f.ident {
		t.Fatalf("the problem's design is not explicit (err %v)", err)
	}
	fit := func(m Estimator, y []float64) ([]int, float64, []float64) {
		if err := m.FitContext(t.Context(), x, y); err != nil {
			t.Fatal(err)
		}
		mean, _, err := m.Latent(x)
		if err != nil {
			t.Fatal(err)
		}
		return m.ActiveSet(), m.LowerBound(), mean
	}
	for _, c := range []struct {
		name string
		new  func(explicit bool) Estimator
		y    []float64
	}{
		{"RVMRegressor", func(e bool) Estimator {
			return &RVMRegressor{Kernel: Gaussian{Width: 3}, ctl: controls{rvmExplicit: e}}
		}, reg},
		{"RVMClassifier", func(e bool) Estimator {
			return &RVMClassifier{Kernel: Gaussian{Width: 3}, ctl: controls{rvmExplicit: e}}
		}, cls},
	} {
		a0, l0, m0 := fit(c.new(false), c.y)
		a1, l1, m1 := fit(c.new(true), c.y)
		if activeKey(a0) != activeKey(a1) {
			t.Errorf("%s: relevance vectors %v (factored) and %v (explicit)", c.name, a0, a1)
			continue
		}
		if math.Abs(l0-l1) > 1e-7*math.Abs(l0) {
			t.Errorf("%s: log evidence %.10g (factored) and %.10g (explicit)", c.name, l0, l1)
		}
		for i := range m0 {
			if math.Abs(m0[i]-m1[i]) > 1e-5*(1+math.Abs(m0[i])) {
				t.Errorf("%s: latent mean at row %d %g (factored) and %g (explicit)", c.name, i, m0[i], m1[i])
				break
			}
		}
		t.Logf("%s: %d relevance vectors, log evidence %.6f and %.6f", c.name, len(a0), l0, l1)
	}
}
