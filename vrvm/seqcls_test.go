package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestClsCacheExact checks, on 20 seeded classification problems, that the
// products kept between rebuilds of Q_w (clsCache) equal those computed
// afresh after any sequence of additions, removals and updates of ξ:
// Φ_AᵀWΦ_A (weightedGramActive) and the rows Φ_AᵀWΦ of the candidate
// statistics (activeCross).
func TestClsCacheExact(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(20) {
		p := newFastProblem(500+seed, true)
		s := seqProblem(t, p)
		if s.f.Ident {
			continue
		}
		pAll, _ := s.f.BFull.Dims()
		rnd := rand.New(rand.NewPCG(seed, 3))
		s.setActive([]int{0}, []float64{1})
		s.exV, s.exC = make([]float64, pAll), make([]float64, pAll)
		s.exE = make([]float64, s.n)
		phi := mat.NewDense(s.n, pAll, nil)
		phi.Mul(s.f.UFull, s.f.BFull.T())
		for step := range 40 {
			switch k := rnd.IntN(3); {
			case k == 0 && len(s.act) < min(pAll, 8):
				j := rnd.IntN(pAll)
				in := false
				for _, a := range s.act {
					in = in || a == j
				}
				if !in {
					s.add(j, 1+rnd.Float64())
				}
			case k == 1 && len(s.act) > 1:
				s.remove(rnd.IntN(len(s.act)))
			default:
				if err := s.rebuild(step); err != nil {
					t.Fatal(err)
				}
				s.lik.Update()
			}
			beta, _ := s.lik.Weights()
			m := len(s.act)
			got := mat.NewSymDense(m, nil)
			s.weightedGramActive(got, beta)
			ct := s.activeCross(beta, nil)
			for a := range m {
				for b := range pAll {
					var w float64
					for n := range s.n {
						w += phi.At(n, s.act[a]) * beta[n] * phi.At(n, b)
					}
					if b2 := indexOf(s.act, b); b2 >= a {
						if g := got.At(a, b2); math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
							t.Fatalf("%s step %d: Φ_AᵀWΦ_A[%d,%d] = %v, want %v", p.name, step, a, b2, g, w)
						}
					}
					if g := ct.At(a, b); math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
						t.Fatalf("%s step %d: Φ_AᵀWΦ[%d,%d] = %v, want %v", p.name, step, a, b, g, w)
					}
				}
			}
			checked++
		}
	}
	if checked < 400 {
		t.Errorf("only %d states checked", checked)
	}
}

func indexOf(a []int, v int) int {
	for i, x := range a {
		if x == v {
			return i
		}
	}
	return -1
}

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
