package vrvm

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// The lower bound (ST11) of RobustRegressor (docs/robust.md): the weight
// terms of the paper's regression bound, (41*), (42), (44), (45*)
// (weightTerms), and the terms of the Student-t likelihood as a Gamma
// scale mixture, with eₙ = ⟨(tₙ − wᵀφₙ)²⟩:
//
//	⟨ln p(t|w,τ,u)⟩ = Σₙ{½⟨ln τ⟩ + ½⟨ln uₙ⟩ − ½ ln 2π − ½⟨τ⟩⟨uₙ⟩eₙ}      (ST12)
//	⟨ln p(u|ν)⟩     = Σₙ{ν/2 ln(ν/2) − ln Γ(ν/2) + (ν/2 − 1)⟨ln uₙ⟩ − ν/2⟨uₙ⟩}  (ST13)
//	H[Q_u]          = Σₙ{ln Γ(ãᵤ) − (ãᵤ − 1)ψ(ãᵤ) − ln b̃ₙ + ãᵤ}          (ST14)
//	⟨ln p(τ)⟩, H[Q_τ] as (43), (46*).

// Limits of a learned ν (ST10): ν = ½ has heavier tails than the Cauchy
// distribution (ν = 1), and at ν = 10⁴ the noise is Gaussian for any
// practical purpose (excess kurtosis 6/(ν − 4) = 6·10⁻⁴).
const (
	minNu = 0.5
	maxNu = 1e4
)

// DefaultNu is the degrees of freedom ν at which a RobustRegressor whose
// Nu is 0 starts learning ν from every basis function (the paper's start
// of (RS1)); the starts from the Gaussian fit begin at the upper limit.
const DefaultNu = 4

// bound returns L (ST11) of the active model.
func (s *robustState) bound() float64 {
	n := float64(len(s.t))
	tau := s.tau()
	lnTau := mathext.Digamma(s.ct) - math.Log(s.dt)
	psiU := mathext.Digamma(s.au)
	h := s.nu / 2
	lgH, _ := math.Lgamma(h)
	lgAu, _ := math.Lgamma(s.au)
	var sumLnU, sumU, sumUE, sumLnB float64
	for i, b := range s.bu {
		lb := math.Log(b)
		u := s.au / b
		sumLnB += lb
		sumLnU += psiU - lb
		sumU += u
		sumUE += u * s.err2[i]
	}
	lnPt := n/2*lnTau + sumLnU/2 - n/2*ln2Pi - tau/2*sumUE       // (ST12)
	lnPu := n*(h*math.Log(h)-lgH) + (h-1)*sumLnU - h*sumU        // (ST13)
	hu := n*(lgAu-(s.au-1)*psiU+s.au) - sumLnB                   // (ST14)
	lnPtau := expectedLogGamma(s.prior.C, s.prior.D, tau, lnTau) // (43)
	htau := gammaEntropy(s.ct, s.dt)                             // (46*)
	return bound(s.prior, s.alpha.at, s.alpha.bt, s.q.SecondMoments(), s.q.LogDet, [3]float64{lnPt, lnPtau + lnPu, htau + hu})
}

// nuCollapsed returns the terms of L (ST11) that depend on Q_u and ν,
// (ST12)'s ½⟨ln uₙ⟩ − ½⟨τ⟩⟨uₙ⟩eₙ, (ST13) and (ST14), at the optimal Q_u
// for ν (ST9), where they collapse to the log normaliser of Q_u:
//
//	F(ν) = Σₙ{ν/2 ln(ν/2) − ln Γ(ν/2) + ln Γ(ν/2 + ½) − (ν/2 + ½) ln(ν/2 + ⟨τ⟩eₙ/2)}   (ST15)
//
// (each term is ln ∫ u^½ e^(−⟨τ⟩eₙu/2) Γ(u | ν/2, ν/2) du).
func nuCollapsed(nu, tau float64, e []float64) float64 {
	h := nu / 2
	lgH, _ := math.Lgamma(h)
	lgA, _ := math.Lgamma(h + 0.5)
	var sum float64
	for _, v := range e {
		sum += math.Log(h + tau*v/2)
	}
	return float64(len(e))*(h*math.Log(h)-lgH+lgA) - (h+0.5)*sum
}

// nuGrid is the number of points of the grid on ln ν over
// [minNu, maxNu] from which bestNu refines the maximum of (ST15).
const nuGrid = 48

// bestNu returns the ν in [minNu, maxNu] that maximises (ST15) F(ν) for
// ⟨τ⟩ = tau and the errors e, or cur if no ν found beats it (so that the
// bound never falls, (ST10)): the best point of a grid on ln ν, refined
// by golden-section search between its neighbours.
func bestNu(cur, tau float64, e []float64) float64 {
	lo, hi := math.Log(minNu), math.Log(maxNu)
	f := func(l float64) float64 { return nuCollapsed(math.Exp(l), tau, e) }
	step := (hi - lo) / (nuGrid - 1)
	bi, bf := 0, math.Inf(-1)
	for i := range nuGrid {
		if v := f(lo + step*float64(i)); v > bf {
			bi, bf = i, v
		}
	}
	a, b := lo+step*float64(max(bi-1, 0)), lo+step*float64(min(bi+1, nuGrid-1))
	c, d := goldenMax(f, a, b, 1e-10, nil)
	best, bestF := lo+step*float64(bi), bf
	for _, l := range []float64{c, d} {
		if v := f(l); v > bestF {
			best, bestF = l, v
		}
	}
	if nuCollapsed(cur, tau, e) >= bestF {
		return cur
	}
	return math.Exp(best)
}

// goldenMax narrows [a, b] around a maximum of the unimodal f by
// golden-section search until it is at most tol wide, or until stop (if
// not nil) reports true, and returns the last two interior points.
func goldenMax(f func(float64) float64, a, b, tol float64, stop func() bool) (c, d float64) {
	const g = 0.6180339887498949 // (√5 − 1)/2
	c, d = b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol && (stop == nil || !stop()) {
		if fc >= fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	return c, d
}
