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

// Limits of a learned ν (ST10): below 1/2 the noise has no finite mean
// absolute value worth modelling with these few rows, and above 10⁴ it
// is Gaussian to within 10⁻⁴ in every quantile that matters here.
const (
	minNu = 0.5
	maxNu = 1e4
)

// DefaultNu is the degrees of freedom ν at which a RobustRegressor whose
// Nu is 0 starts learning ν.
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
	return bound(s.prior, s.alpha.at, s.alpha.bt, s.q.secondMoments(), s.q.logDet, [3]float64{lnPt, lnPtau + lnPu, htau + hu})
}

// meanLogUMinusU returns (1/N) Σₙ(⟨ln uₙ⟩ − ⟨uₙ⟩), the statistic of Q_u
// on which the ν-dependent part of the bound (ST13) rests.
func (s *robustState) meanLogUMinusU() float64 {
	psiU := mathext.Digamma(s.au)
	var sum float64
	for _, b := range s.bu {
		sum += psiU - math.Log(b) - s.au/b
	}
	return sum / float64(len(s.bu))
}

// nuRoot returns the maximiser over ν in [minNu, maxNu] of (ST13),
// N{ν/2 ln(ν/2) − ln Γ(ν/2)} + ν/2 Σₙ(⟨ln uₙ⟩ − ⟨uₙ⟩), given
// m = (1/N) Σₙ(⟨ln uₙ⟩ − ⟨uₙ⟩). Its derivative in ν has the sign of
//
//	g(ν) = ln(ν/2) + 1 − ψ(ν/2) + m,                                (ST10)
//
// decreasing in ν (ln x − ψ(x) decreases from +∞ to 0), so the bound is
// unimodal in ν: the root of g, found by bisection on ln ν, or the limit
// g does not change sign within.
func nuRoot(m float64) float64 {
	g := func(nu float64) float64 { return math.Log(nu/2) + 1 - mathext.Digamma(nu/2) + m }
	lo, hi := math.Log(minNu), math.Log(maxNu)
	switch {
	case g(maxNu) >= 0:
		return maxNu
	case g(minNu) <= 0:
		return minNu
	}
	for range 100 {
		mid := 0.5 * (lo + hi)
		if g(math.Exp(mid)) > 0 {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-13 {
			break
		}
	}
	return math.Exp(0.5 * (lo + hi))
}
