package sequential

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
		p := newTestProblem(500+seed, true)
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
