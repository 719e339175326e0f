package multiclass

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
)

// TestMultiAdditionGain checks that the gain (M16) of adding a function to
// a class is the change of the full-model bound that the addition makes,
// and that the rank-one state agrees with a fresh factorisation.
func TestMultiAdditionGain(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(20) {
		phi, y, k, prior, bias := blobProblem(seed)
		p := newMCProblem(phi, y, k, Settings{Prior: prior, Bias: bias, PruneAt: 1e3, Alpha0: 1}, Softmax)
		p.thr = math.Inf(1)
		for kc := range p.k {
			p.cls = append(p.cls, &mcBlock{mcActive: mcActive{act: []int{kc % 2}, alpha: []float64{1}, del: map[int]int{}}, q: 1})
		}
		for kc := range p.k {
			if err := p.fresh(kc, 0, true); err != nil {
				t.Fatal(err)
			}
		}
		for kc := range p.k {
			for range 2 {
				// Q(w_kc) for the other classes' current means, as the solver does.
				if err := p.fresh(kc, 0, true); err != nil {
					t.Fatal(err)
				}
				before := p.bound()
				j, a := p.bestAddition(kc)
				if j < 0 {
					break
				}
				cl := p.cls[kc]
				r := cl.at[j]
				q2 := cl.qsq(r)
				d := math.Max(cl.d[j], 0)
				gain := bound.F(p.prior.A, p.prior.B, a, cl.ss[r], q2) - bound.F(p.prior.A, p.prior.B, bound.AlphaRoot(p.prior.A, p.prior.B, d, 0), d, 0)
				p.add(kc, j, a)
				checked++
				after := p.bound()
				if !scalar.EqualWithinAbsOrRel(after-before, gain, 1e-7, 1e-6) {
					t.Errorf("seed %d class %d: adding %d changed L by %.10g, gain (M16) %.10g", seed, kc, j, after-before, gain)
				}
				if err := p.fresh(kc, 0, true); err != nil {
					t.Fatal(err)
				}
				if l := p.bound(); !scalar.EqualWithinAbsOrRel(l, after, 1e-8, 1e-8) {
					t.Errorf("seed %d: bound after add %.12g, recomputed %.12g", seed, after, l)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no addition checked")
	}
}

// TestMaxBelow checks the screen of bestAddition: whenever maxBelow says
// the maximiser of (S1) is above t, alphaRoot finds it above t; and the
// screen keeps the candidates at or below t, on random priors, s, q² and t
// spanning many decades, and on the exact boundary of the prior-free
// case.
func TestMaxBelow(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(7, 8))
	screened := 0
	for range 200000 {
		a, b := math.Pow(10, -8+6*rnd.Float64()), math.Pow(10, -8+6*rnd.Float64())
		s := math.Pow(10, -3+6*rnd.Float64())
		q2 := s * math.Pow(10, -3+6*rnd.Float64())
		th := math.Pow(10, -2+4*rnd.Float64())
		alpha := bound.AlphaRoot(a, b, s, q2)
		if !maxBelow(a, b, s, q2, th) {
			screened++
			if alpha <= th {
				t.Fatalf("a=%g b=%g s=%g q²=%g t=%g: screened out, but α = %g ≤ t", a, b, s, q2, th, alpha)
			}
		}
	}
	if screened == 0 {
		t.Fatal("nothing screened out: the test does not exercise the screen")
	}
	// s > t, no prior to speak of: the screen is exact up to rounding,
	// α = s²/(q² − s) = t at q² = s(t + s)/t.
	s, th := 20.0, 5.0
	if q2 := s * (th + s) / th; !maxBelow(1e-12, 1e-12, s, q2*(1+1e-9), th) || maxBelow(1e-12, 1e-12, s, q2*(1-1e-6), th) {
		t.Errorf("maxBelow is not sharp at q² = s(t + s)/t")
	}
}
