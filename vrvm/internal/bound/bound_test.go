package bound

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestAlphaRootPrecise: the maximiser of (S1) that AlphaRootUpTo returns
// is a root of g(α) = α f'(α) to 10⁻¹² relative, g evaluated in 256-bit
// arithmetic (g changes sign between α(1 − 10⁻¹²) and α(1 + 10⁻¹²)),
// unless it is the limit, over priors, sparsity and quality factors
// spanning many decades, q = 0 (the closed form of AlphaRootQuiet)
// among them. Evaluated in float64 as ã − ½α/(α + s) − …, g loses the
// digits of its two terms near ½ where α ≫ s, and such a root was off by
// up to 10⁻⁹.
func TestAlphaRootPrecise(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(7, 49))
	bf := func(v float64) *big.Float { return new(big.Float).SetPrec(256).SetFloat64(v) }
	// g(x) = a + s/(2u) − bx − q²x/(2u²), u = x + s.
	g := func(a, b, s, q2, x float64) int {
		u := new(big.Float).Add(bf(x), bf(s))
		v := new(big.Float).Add(bf(a), new(big.Float).Quo(bf(s), new(big.Float).Mul(bf(2), u)))
		v.Sub(v, new(big.Float).Mul(bf(b), bf(x)))
		v.Sub(v, new(big.Float).Quo(new(big.Float).Mul(bf(q2), bf(x)), new(big.Float).Mul(bf(2), new(big.Float).Mul(u, u))))
		return v.Sign()
	}
	bad := 0
	for i := range 20000 {
		a := math.Pow(10, -8+8*rnd.Float64())
		b := math.Pow(10, -8+8*rnd.Float64())
		s := math.Pow(10, -6+12*rnd.Float64())
		var q2 float64
		if i%4 != 0 {
			q2 = s * math.Pow(10, -3+6*rnd.Float64())
		}
		limit := math.Inf(1)
		if i%3 == 0 {
			limit = math.Pow(10, -2+8*rnd.Float64())
		}
		r := AlphaRootUpTo(a, b, s, q2, limit)
		if r == limit {
			if g(a, b, s, q2, r) < 0 && q2 == 0 {
				t.Errorf("a %g b %g s %g q² 0: the limit %g returned where g < 0", a, b, s, limit)
			}
			continue
		}
		if !(r > 0) || math.IsInf(r, 0) {
			t.Fatalf("a %g b %g s %g q² %g limit %g: root %v", a, b, s, q2, limit, r)
		}
		if lo, hi := g(a, b, s, q2, r*(1-1e-12)), g(a, b, s, q2, r*(1+1e-12)); lo*hi > 0 {
			if bad++; bad <= 5 {
				t.Errorf("a %g b %g s %g q² %g limit %g: %.17g is not a root of g to 1e-12", a, b, s, q2, limit, r)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 20,000 roots off by more than 1e-12", bad)
	}
}

// TestAlphaRootAbove checks that AlphaRootAbove claims a root above the
// limit only where AlphaRoot finds it there, and that it tells most of
// them, over factors and limits spanning many decades.
func TestAlphaRootAbove(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var above, told int
	for range 20000 {
		a := math.Pow(10, -8+8*rng.Float64())
		b := math.Pow(10, -8+8*rng.Float64())
		s := math.Pow(10, -3+8*rng.Float64())
		q2 := s * math.Pow(10, -3+5*rng.Float64())
		lim := math.Pow(10, -2+10*rng.Float64())
		r := AlphaRoot(a, b, s, q2)
		if r > lim {
			above++
		}
		if AlphaRootAbove(a, b, s, q2, lim) {
			told++
			if !(r > lim) {
				t.Errorf("AlphaRootAbove(%g, %g, %g, %g, %g): the root is %g", a, b, s, q2, lim, r)
			}
		}
	}
	if told < above*9/10 {
		t.Errorf("told %d of %d roots above the limit", told, above)
	}
}

// TestExcludedTermIsMaximum: ExcludedTerm is the largest value over α of
// the excluded function's terms (41*), (42), (44), (45*) and −½ s vₘ,
// written out here with vₘ = 1/(α + s), checked on a grid of α.
func TestExcludedTermIsMaximum(t *testing.T) {
	t.Parallel()
	terms := func(p Prior, s, alpha float64) float64 {
		at := p.A + 0.5
		lgA, _ := math.Lgamma(p.A)
		lgAt, _ := math.Lgamma(at)
		return -at*math.Log(at/alpha) - p.B*alpha - 0.5*math.Log(alpha+s) + p.A*math.Log(p.B) - lgA + lgAt + at
	}
	for _, p := range []Prior{{A: 1e-6, B: 1e-6}, {A: 0.5, B: 2}, {A: 3, B: 0.01}} {
		for _, s := range []float64{1e-4, 0.3, 10, 1e4} {
			got := ExcludedTerm(p, s)
			e := NewExcludedTerms(p)
			if d := math.Abs(e.Term(s) - got); d > 1e-12*math.Max(1, math.Abs(got)) {
				t.Errorf("prior %v s %g: ExcludedTerms.Term %g, ExcludedTerm %g", p, s, e.Term(s), got)
			}
			for k := -40; k <= 40; k++ {
				alpha := AlphaRoot(p.A, p.B, s, 0) * math.Pow(10, float64(k)/10)
				if v := terms(p, s, alpha); v > got+1e-9*math.Max(1, math.Abs(got)) {
					t.Errorf("prior %v s %g: the terms at α = %g are %.12g, above ExcludedTerm %.12g", p, s, alpha, v, got)
				}
			}
			if m := MemberOf(4, []int{1, 3}); m[0] || !m[1] || m[2] || !m[3] {
				t.Errorf("MemberOf(4, {1, 3}) = %v", m)
			}
		}
	}
}
