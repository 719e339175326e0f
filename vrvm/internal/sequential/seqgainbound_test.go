package sequential

import (
	"math"
	"math/rand/v2"
	"testing"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
)

// TestGainBound checks (S16) on random candidates: rankGain's gain never
// exceeds gainBound's bounds (plain or sharpened, tight or loose), and a
// candidate that mayQualify rules out is never strong.
func TestGainBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 3))
	logU := func(lo, hi float64) float64 { return math.Exp(lo + (hi-lo)*rng.Float64()) }
	priors := []lb.Prior{{A: 1e-6, B: 1e-6}, {A: 1e-3, B: 1e-3}, {A: 1, B: 0.1}, {A: 0.5, B: 2}}
	var ruled, skipped int
	for i := range 200000 {
		p := priors[i%len(priors)]
		s := &seqFit{prior: p, pruneAt: logU(0, 8), keepGain: math.Inf(1)}
		if i%2 == 0 {
			s.keepGain = logU(-5, 0)
		}
		sm := logU(-6, 10)
		d := sm * logU(0, 6)
		q2 := sm * logU(-12, 4)
		a, g, strong := s.rankGain(sm, math.Sqrt(q2), d)
		if math.IsNaN(g) || !(a > 0) || a > s.pruneAt {
			t.Fatalf("candidate %d: ⟨α⟩ %g outside (0, %g], gain %g", i, a, s.pruneAt, g)
		}
		bd := s.gainBound(sm, q2)
		check := func(name string, ub float64) {
			if g > ub {
				t.Fatalf("candidate %d (s %g, q² %g, P %g, prior %v): gain %.17g above the %s bound %.17g", i, sm, q2, s.pruneAt, p, g, name, ub)
			}
		}
		check("loose", bd.loose())
		check("tight", bd.tight())
		if bd.tight() > bd.loose() {
			t.Fatalf("candidate %d: tight %g above loose %g", i, bd.tight(), bd.loose())
		}
		if !s.mayQualify(q2, d, bd.loose(), bd) {
			ruled++
			if strong {
				t.Fatalf("candidate %d (s %g, q² %g, d %g, P %g, keep %g): ruled out but strong", i, sm, q2, d, s.pruneAt, s.keepGain)
			}
		}
		s.sharpen(&bd)
		check("sharpened loose", bd.loose())
		check("sharpened tight", bd.tight())
		if !s.mayQualify(q2, d, bd.tight(), bd) && strong {
			t.Fatalf("candidate %d: ruled out (sharpened) but strong", i)
		}
		if bd.tight() < g+0.01 {
			skipped++ // within 0.01 nat: the bound is informative
		}
	}
	if ruled == 0 || skipped == 0 {
		t.Errorf("bounds never informative: %d ruled out, %d within 0.01 nat", ruled, skipped)
	}
}
