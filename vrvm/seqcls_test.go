package vrvm

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// crawlProblem returns n points in d dimensions from four Gaussian
// clusters (sd 0.7) at corners of the cube [−1, 1]^d, two per class, with
// a fraction flip of the labels flipped: points of one class inside a
// cluster of the other, which the classifier carves out with growing
// weights (S12).
func crawlProblem(seed uint64, n, d int, flip float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	t := make([]float64, n)
	for i := range n {
		cl := rng.IntN(4)
		t[i] = float64(cl % 2)
		for j := range d {
			c := -1.0
			if (cl>>uint(j%2))&1 == 1 {
				c = 1
			}
			x.Set(i, j, c+0.7*rng.NormFloat64())
		}
		if rng.Float64() < flip {
			t[i] = 1 - t[i]
		}
	}
	return x, t
}

// TestOverrelax checks (S12): on a problem whose fit crawls (without the
// overrelaxed steps it has not converged after 3,000 iterations; 10,000
// are not enough either), the fit converges within 3,000 iterations at a
// bound at least as high.
func TestOverrelax(t *testing.T) {
	t.Parallel()
	x, y := crawlProblem(3, 300, 5, 0.03)
	fit := func(on bool) *Classifier {
		c := &Classifier{Kernel: Gaussian{Width: 1}, MaxIter: 3000, ctl: controls{noRelax: !on}}
		if err := c.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		return c
	}
	off, on := fit(false), fit(true)
	t.Logf("without (S12): %v after %d iterations, bound %.4f; with: %v after %d, %.4f",
		off.Status(), off.Iterations(), off.FullModelBound(), on.Status(), on.Iterations(), on.FullModelBound())
	if off.Status() != IterationLimit {
		t.Errorf("without (S12) the fit is %v after %d iterations: the problem does not crawl", off.Status(), off.Iterations())
	}
	if on.Status() != Converged {
		t.Errorf("with (S12) the fit is %v after %d iterations, want converged", on.Status(), on.Iterations())
	}
	if on.FullModelBound() < off.FullModelBound()-1e-6 {
		t.Errorf("bound %.6f with (S12), below %.6f without", on.FullModelBound(), off.FullModelBound())
	}
}
