package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// noisyLabels returns n rows of d standard normal inputs labelled by the
// sign of a function of the first five, with a fraction flip of the
// labels flipped: a problem on which Laplace's evidence of the sequential
// RVM classifier does not rise with every move.
func noisyLabels(seed uint64, n, d int, flip float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	t := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rng.NormFloat64()
		}
		f := r[0] + r[1] - r[2] + r[3]*r[4] + 0.5*math.Sin(2*r[0])
		if f > 0 {
			t[i] = 1
		}
		if rng.Float64() < flip {
			t[i] = 1 - t[i]
		}
	}
	return x, t
}

// TestRVMClassifierStall: (R8) the sequential RVM classifier ends when
// Laplace's evidence has stopped rising, with the model of its best
// evidence: it converges, and no evidence of its trace is above the
// returned model's. Before (R8) moves that the evidence at the old mode
// favoured lowered it at the new one, and the fit cycled to the
// iteration limit.
func TestRVMClassifierStall(t *testing.T) {
	t.Parallel()
	x, lab := noisyLabels(1, 350, 20, 0.05)
	c := &RVMClassifier{Kernel: Gaussian{Width: 3}, MaxIter: 3000}
	if err := c.Fit(x, lab); err != nil {
		t.Fatal(err)
	}
	tr := c.BoundTrace()
	top := math.Inf(-1)
	for _, v := range tr {
		top = math.Max(top, v)
	}
	t.Logf("%v after %d iterations, evidence %.4f (trace maximum %.4f), %d relevance vectors", c.Status(), c.Iterations(), c.LowerBound(), top, len(c.RelevanceVectors()))
	if c.Status() != Converged {
		t.Errorf("status %v after %d iterations", c.Status(), c.Iterations())
	}
	if c.LowerBound() < top-1e-6*(1+math.Abs(top)) {
		t.Errorf("returned evidence %.6f below the trace's maximum %.6f", c.LowerBound(), top)
	}
}
