package vrvm

import (
	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// The lower bound L (12): its terms (39)–(46) for regression and (59)–(64)
// for classification, with the corrections of the errata (docs/ERRATA.md),
// as plain functions of the moments of the factors. Every solver
// evaluates L through these functions and nothing else: the weight terms,
// (S1) and the excluded functions' terms are in package bound
// (vrvm/internal/bound), the likelihood's own terms ((40), (43), (46) or
// (60)) in package likelihood. The functions here call them with the
// facade's Prior.

const ln2Pi = lh.Ln2Pi // ln 2π

// gammaEntropy is the entropy of Γ(x | a, b) (shape a, rate b), the
// settled (45)/(46)/(64) (likelihood.GammaEntropy).
func gammaEntropy(a, b float64) float64 { return lh.GammaEntropy(a, b) }

// expectedLogGamma is ⟨ln Γ(x | a, b)⟩ under Q(x) = Γ(x | ã, b̃), given
// ⟨x⟩ and ⟨ln x⟩; (42), (43), (62) (likelihood.ExpectedLogGamma).
func expectedLogGamma(a, b, mean, logMean float64) float64 {
	return lh.ExpectedLogGamma(a, b, mean, logMean)
}

// weightPrior is the weight precisions' part of p, as package bound
// takes it.
func (p Prior) weightPrior() lb.Prior { return lb.Prior{A: p.A, B: p.B} }

// weightTerms is bound.WeightTerms: (41*), (42), (44), (45*).
func weightTerms(p Prior, at float64, bt, w2 []float64, logDet float64) (lnPw, lnPalpha, hw, halpha float64) {
	return lb.WeightTerms(p.weightPrior(), at, bt, w2, logDet)
}

// bound is bound.L: L (39)/(59) from the weight terms and the
// likelihood's terms lik.
func bound(p Prior, at float64, bt, w2 []float64, logDet float64, lik [3]float64) float64 {
	return lb.L(p.weightPrior(), at, bt, w2, logDet, lik)
}

// alphaRoot is bound.AlphaRoot, the maximiser of (S1) over α > 0.
func alphaRoot(a, b, s, q2 float64) float64 { return lb.AlphaRoot(a, b, s, q2) }

// excludedTerm is bound.ExcludedTerm: the bound terms of a function held
// outside the active set.
func excludedTerm(p Prior, s float64) float64 { return lb.ExcludedTerm(p.weightPrior(), s) }

// excludedBound is bound.ExcludedBound.
func excludedBound(p Prior, s []float64, act []int) float64 {
	return lb.ExcludedBound(p.weightPrior(), s, act)
}

// memberOf is bound.MemberOf: the mask of the indices in set.
func memberOf(n int, set []int) []bool { return lb.MemberOf(n, set) }
