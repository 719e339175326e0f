// Package bound holds the terms of the variational lower bound L (12)
// of the paper's model that belong to the weights and their precisions,
// shared by every solver: the weight terms (41)–(45), the function of one
// basis function's precision (S1), its maximiser, and the closed-form
// terms of the functions held outside the active set. The likelihood's
// own terms are in package likelihood. Equations are cited as in
// docs/design.md, with the corrections of docs/ERRATA.md.
package bound

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// Prior is the Gamma prior Γ(αₘ | A, B) of every weight precision
// (shape A, rate B, both positive).
type Prior struct{ A, B float64 }

// WeightTerms returns the terms of L that belong to the weights, shared
// by regression and classification, for Q_α = ∏ₘ Γ(αₘ | ã, b̃ₘ) and a Q_w
// with second moments w2ₘ = ⟨wₘ²⟩ = μₘ² + Σₘₘ and ln|Σ| = logDet:
//
//	⟨ln p(w|α)⟩ = −M/2 ln 2π + ½ Σₘ⟨ln αₘ⟩ − ½ Σₘ⟨αₘ⟩⟨wₘ²⟩          (41), corrected sign; (61)
//	⟨ln p(α)⟩   = Σₘ{a ln b + (a−1)⟨ln αₘ⟩ − b⟨αₘ⟩ − ln Γ(a)}          (42), (62)
//	H[Q_w]      = M/2 (1 + ln 2π) + ½ ln|Σ|                           (44), (63)
//	H[Q_α]      = Σₘ{ln Γ(ã) − (ã−1)ψ(ã) − ln b̃ₘ + ã}                  (45), corrected; (64)
func WeightTerms(p Prior, at float64, bt, w2 []float64, logDet float64) (lnPw, lnPalpha, hw, halpha float64) {
	m := len(bt)
	psi := mathext.Digamma(at)
	lgA, _ := math.Lgamma(p.A)
	lgAt, _ := math.Lgamma(at)
	lnB := math.Log(p.B)
	var sumLog, sumAW, sumMean, sumLnBt float64
	for i := range m {
		lbt := math.Log(bt[i])
		mean := at / bt[i]
		sumLnBt += lbt
		sumLog += psi - lbt
		sumMean += mean
		sumAW += mean * w2[i]
	}
	fm := float64(m)
	lnPw = -fm/2*lh.Ln2Pi + sumLog/2 - sumAW/2                 // (41*)
	lnPalpha = fm*(p.A*lnB-lgA) + (p.A-1)*sumLog - p.B*sumMean // (42)
	hw = fm/2*(1+lh.Ln2Pi) + logDet/2                          // (44)
	halpha = fm*(lgAt-(at-1)*psi+at) - sumLnBt                 // (45*)
	return lnPw, lnPalpha, hw, halpha
}

// L returns L (39)/(59): the weight terms and the likelihood's terms
// lik (see likelihood.terms), summed in the order of the paper's list,
// (40) + (41) + (42) + (43) + (44) + (45) + (46), so that every solver
// rounds L alike.
func L(p Prior, at float64, bt, w2 []float64, logDet float64, lik [3]float64) float64 {
	lnPw, lnPalpha, hw, halpha := WeightTerms(p, at, bt, w2, logDet)
	return lik[0] + lnPw + lnPalpha + lik[1] + hw + halpha + lik[2]
}

// One basis function at a time (Tipping & Faul 2003; Shutin et al. 2011,
// here for the variational bound). With Q_w at its optimum for the other
// factors, L depends on the factor Q_αₘ = Γ(ã, ã/α) of function m (of the
// shape ã = a + ½ that (25)/(57) produce) through
//
//	f(α) = ã ln α − bα − ½ ln(α + sₘ) + ½ qₘ²/(α + sₘ) + const,     (S1)
//
// with α = ⟨αₘ⟩ and the sparsity and quality factors sₘ, qₘ of function m
// computed without it: sₘ = φₘᵀBφₘ − φₘᵀBΦΣ₋ₘΦᵀBφₘ and
// qₘ = φₘᵀy − φₘᵀBΦΣ₋ₘΦᵀy, where B and y are the likelihood's precisions
// and data vector (τI and τt for regression, 2Λ(ξ) and t − ½ for
// classification). (S1) is the collapsed form of the terms (40)–(42),
// (44), (45) of m: ½⟨ln αₘ⟩ − ½ ln⟨αₘ⟩ from (41) and the entropy (45)
// combine with (42) into ã ln α.
//
// A function outside the active set is held at the factor
// Q(wₘ) = N(0, vₘ), independent of the other weights, with vₘ and Q_αₘ
// at their optimum: its contribution to L is (S1) with qₘ = 0 and
// sₘ = φₘᵀBφₘ, in closed form (ExcludedTerm). Every solver adds these
// terms for its pruned functions to the bound of its active model: that is
// L(Q) of the paper's full model for a valid Q, a true lower bound on its
// log evidence (FullModelBound).

// F is f(α) of (S1) without its constant, for the prior Γ(a, b).
func F(a, b, alpha, sm, q2 float64) float64 {
	u := alpha + sm
	return (a+0.5)*math.Log(alpha) - b*alpha - 0.5*math.Log(u) + 0.5*q2/u
}

// AlphaRoot returns the maximiser over α > 0 of (S1),
// f(α) = (a+½) ln α − bα − ½ ln(α + s) + ½ q2/(α + s), for a, b > 0,
// s ≥ 0 and q2 = q² ≥ 0. f → −∞ at both ends of (0, ∞), so the maximum is
// at a root of the cubic
//
//	−bα³ + (a − 2bs)α² + (2ãs − bs² − s/2 − q²/2)α + ãs² = 0
//
// (α f'(α) multiplied by (α + s)²); AlphaRoot finds every root in
// (0, ã/b) and returns the one with the largest f.
func AlphaRoot(a, b, s, q2 float64) float64 {
	return AlphaRootUpTo(a, b, s, q2, math.Inf(1))
}

// AlphaRootUpTo returns the maximiser of (S1) over 0 < α ≤ limit (the
// active functions of the Sequential solver are held at ⟨αₘ⟩ ≤ PruneAlpha):
// AlphaRoot's roots below limit, and limit itself if f still rises there.
// For q2 = 0 (a function held outside the active set, ExcludedTerm) the
// cubic has the factor α + s and the root is that of a quadratic, in
// closed form (AlphaRootQuiet); f is compared between roots only where
// there are several.
func AlphaRootUpTo(a, b, s, q2, limit float64) float64 {
	at := a + 0.5
	hi := at / b
	capped := limit < hi
	if capped {
		hi = limit
	}
	if s < 0 {
		s = 0
	}
	if q2 == 0 && s > 0 {
		if r := AlphaRootQuiet(a, b, s); r < hi || !capped {
			return r
		}
		return hi // g > 0 below the only root: f still rises at the limit
	}
	g := rootFn{a: a, b: b, s: s, q2: q2}
	// Where the Newton steps of bracketRoot start, if it lies in the
	// interval: for q² > s the root of the limit a, b → 0 (Tipping & Faul
	// 2003), s²/(q² − s); otherwise the root of g with α + s taken as α
	// (α ≫ s), a + (s − q²)/(2α) − bα = 0.
	var x0 float64
	if q2 > s {
		x0 = s * s / (q2 - s)
	} else {
		x0 = (a + math.Sqrt(a*a+2*b*(s-q2))) / (2 * b)
	}
	br, nr, glo := g.brackets(hi)
	var roots [3]float64
	for i, c := range br[:nr] {
		roots[i] = bracketRoot(g, c[0], c[1], c[2] > 0, x0)
	}
	if nr == 0 {
		return hi // f rises up to the limit (or rounding at the ends of the interval, below)
	}
	if nr == 1 && !(capped && glo > 0) {
		return roots[0]
	}
	best, bestF := math.NaN(), math.Inf(-1)
	for _, r := range roots[:nr] {
		if v := F(a, b, r, s, q2); v > bestF || math.IsNaN(best) {
			best, bestF = r, v
		}
	}
	if capped && glo > 0 {
		// f still rises at the limit.
		if v := F(a, b, hi, s, q2); v > bestF || math.IsNaN(best) {
			best = hi
		}
	}
	if math.IsNaN(best) {
		// Unreachable in exact arithmetic (g(0⁺) > 0 > g(ã/b)); guard
		// against rounding at the ends of the interval.
		return hi
	}
	return best
}

// brackets returns the intervals [lo, up] of (0, hi] on which g changes
// sign, each with the sign of g at lo (glo > 0: g decreases through its
// root there), nr of them, and the sign of g at hi. The critical points
// of the cubic p(α) split (0, ã/b) into intervals on which p, and so g,
// is monotone: each holds at most one root.
func (f rootFn) brackets(hi float64) (br [3][3]float64, nr int, glo float64) {
	a, b, s, q2 := f.a, f.b, f.s, f.q2
	at := a + 0.5
	bb := a - 2*b*s
	c1 := 2*at*s - b*s*s - s/2 - q2/2
	var buf [4]float64
	pts := append(buf[:0], 0)
	if disc := bb*bb + 3*b*c1; disc > 0 {
		sq := math.Sqrt(disc)
		qq := bb + math.Copysign(sq, bb)
		r1, r2 := qq/(3*b), -c1/qq
		if r1 > r2 {
			r1, r2 = r2, r1
		}
		for _, r := range [2]float64{r1, r2} {
			if r > 0 && r < hi && !math.IsNaN(r) {
				pts = append(pts, r)
			}
		}
	}
	pts = append(pts, hi)
	glo = at // g(0⁺) = ã
	for i := 1; i < len(pts); i++ {
		lo, up := pts[i-1], pts[i]
		gup := f.g(up)
		if (glo > 0) == (gup > 0) && gup != 0 {
			glo = gup
			continue
		}
		br[nr] = [3]float64{lo, up, glo}
		nr++
		glo = gup
	}
	return br, nr, glo
}

// AlphaRootAbove reports whether AlphaRoot(a, b, s, q2) is certainly
// above limit, found without the Newton steps of its root: where g has
// one root (bracketRoot returns a value in its bracket [lo, up]), if lo
// lies above limit, or if g is still positive, by more than its rounding,
// a little above limit. False means below limit or not known.
func AlphaRootAbove(a, b, s, q2, limit float64) bool {
	if s < 0 {
		s = 0
	}
	if q2 == 0 && s > 0 {
		return AlphaRootQuiet(a, b, s) > limit
	}
	g := rootFn{a: a, b: b, s: s, q2: q2}
	br, nr, _ := g.brackets((a + 0.5) / b)
	if nr != 1 {
		return false
	}
	lo, up := br[0][0], br[0][1]
	if lo > limit {
		return true
	}
	x := limit * (1 + 1e-9)
	if !(x < up) {
		return false
	}
	u := x + s
	scale := math.Abs(a) + 0.5*s/u + b*x + 0.5*q2*x/(u*u)
	return g.g(x) > 1e-12*scale
}

// AlphaRootQuiet is the maximiser of (S1) for q = 0 and s > 0: there
// α f'(α) = ã − bα − ½α/(α + s), whose sign on α > 0 is that of the
// quadratic −bα² + (a − bs)α + ãs (ã − ½ = a), with one positive root,
// α = 2ãs / (√((a − bs)² + 4bãs) − (a − bs)), written without the
// cancellation of the other form where a − bs > 0.
func AlphaRootQuiet(a, b, s float64) float64 {
	at := a + 0.5
	c := a - b*s
	d := math.Sqrt(c*c + 4*b*at*s)
	if c > 0 {
		return (c + d) / (2 * b)
	}
	return 2 * at * s / (d - c)
}

// rootFn is g(α) = α f'(α) of (S1), whose roots AlphaRootUpTo
// brackets, and its derivative, with ã − ½α/(α + s) written as
// a + ½s/(α + s), free of the cancellation of two terms near ½ where
// α ≫ s.
type rootFn struct{ a, b, s, q2 float64 }

func (f rootFn) g(x float64) float64 {
	u := x + f.s
	return f.a + 0.5*f.s/u - f.b*x - 0.5*f.q2*x/(u*u)
}

func (f rootFn) dg(x float64) float64 {
	u := x + f.s
	return -f.b - 0.5*f.s/(u*u) - 0.5*f.q2*(f.s-x)/(u*u*u)
}

// bracketRoot finds the root of g in [lo, hi], where g changes sign and is
// decreasing if dec, by Newton steps safeguarded with bisection, from x0
// if it lies in (lo, hi).
func bracketRoot(g rootFn, lo, hi float64, dec bool, x0 float64) float64 {
	x := 0.5 * (lo + hi)
	if lo > 0 {
		x = math.Sqrt(lo * hi) // geometric midpoint: roots span many decades
	}
	if x0 > lo && x0 < hi {
		x = x0
	}
	for range 200 {
		v := g.g(x)
		if v == 0 {
			return x
		}
		if (v > 0) == dec {
			lo = x
		} else {
			hi = x
		}
		if hi-lo <= 4e-16*hi {
			return 0.5 * (lo + hi)
		}
		next := x - v/g.dg(x)
		if next == x {
			return x // converged, at an end of the bracket [lo, hi] that x has just become
		}
		if !(next > lo && next < hi) {
			if lo > 0 && hi/lo > 4 {
				next = math.Sqrt(lo * hi)
			} else {
				next = 0.5 * (lo + hi)
			}
		}
		if next == x {
			return x
		}
		x = next
	}
	return x
}

// ExcludedTerm returns the bound terms of a basis function held outside
// the active set with the factor Q(wₘ) = N(0, vₘ), independent of the
// other weights, and Q_αₘ, both at their optimum: with s = φₘᵀBφₘ and α
// the maximiser of ã ln α − bα − ½ ln(α + s) (AlphaRoot with q = 0),
// vₘ = 1/(α + s) and
//
//	−ã ln(ã/α) − bα − ½ ln(α + s) + a ln b − ln Γ(a) + ln Γ(ã) + ã,
//
// the sum of the terms (41*), (42), (44) and (45*) of m and of the
// likelihood term −½ s vₘ.
func ExcludedTerm(p Prior, s float64) float64 {
	return NewExcludedTerms(p).Term(s)
}

// ExcludedTerms evaluates ExcludedTerm for many functions under one
// prior, with the prior's constants a ln b, ln Γ(a) and ln Γ(ã) computed
// once.
type ExcludedTerms struct {
	p                   Prior
	at, aLnB, lgA, lgAt float64
}

func NewExcludedTerms(p Prior) ExcludedTerms {
	e := ExcludedTerms{p: p, at: p.A + 0.5, aLnB: p.A * math.Log(p.B)}
	e.lgA, _ = math.Lgamma(p.A)
	e.lgAt, _ = math.Lgamma(e.at)
	return e
}

// Term is ExcludedTerm(p, s).
func (e ExcludedTerms) Term(s float64) float64 {
	return e.TermAt(s, AlphaRoot(e.p.A, e.p.B, s, 0))
}

// TermAt is ExcludedTerm(p, s) given its α = AlphaRoot(a, b, s, 0).
func (e ExcludedTerms) TermAt(s, a float64) float64 {
	return -e.at*math.Log(e.at/a) - e.p.B*a - 0.5*math.Log(a+s) + e.aLnB - e.lgA + e.lgAt + e.at
}

// ExcludedBound returns the sum of ExcludedTerm over the functions with
// sₘ = s[m] that are not in the active set act.
func ExcludedBound(p Prior, s []float64, act []int) float64 {
	in := MemberOf(len(s), act)
	e := NewExcludedTerms(p)
	var sum float64
	for m, v := range s {
		if !in[m] {
			sum += e.Term(math.Max(v, 0))
		}
	}
	return sum
}

// MemberOf returns the mask of the indices in set among 0, …, n−1.
func MemberOf(n int, set []int) []bool {
	in := make([]bool, n)
	for _, a := range set {
		in[a] = true
	}
	return in
}
