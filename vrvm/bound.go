package vrvm

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Terms of the lower bound L (39)–(46) for regression and (59)–(64) for
// classification, with the corrections of the errata (see doc.go). Each is
// a function of the current factors only.

const ln2Pi = 1.8378770664093453 // ln 2π

// gammaQ is a product of Gamma factors Q_α(α) = ∏ₘ Γ(αₘ | ã, b̃ₘ) (22), (56).
type gammaQ struct {
	at float64   // ãₘ = a + ½ for every m (25), (57)
	bt []float64 // b̃ₘ
}

// mean returns ⟨αₘ⟩ = ã/b̃ₘ.
func (g *gammaQ) mean(m int) float64 { return g.at / g.bt[m] }

// update applies (25)/(57): ã = a + ½, b̃ₘ = b + ⟨wₘ²⟩/2.
func (g *gammaQ) update(p Prior, q *gaussQ) {
	g.at = p.A + 0.5
	for m := range g.bt {
		g.bt[m] = p.B + q.secondMoment(m)/2
	}
}

// gammaEntropy is the entropy of Γ(x | a, b) (shape a, rate b):
// ln Γ(a) − (a − 1) ψ(a) − ln b + a, the settled (45)/(46)/(64).
func gammaEntropy(a, b float64) float64 {
	lg, _ := math.Lgamma(a)
	return lg - (a-1)*mathext.Digamma(a) - math.Log(b) + a
}

// expectedLogGamma is ⟨ln Γ(x | a, b)⟩ under Q(x) = Γ(x | ã, b̃), given
// ⟨x⟩ and ⟨ln x⟩: a ln b + (a − 1)⟨ln x⟩ − b⟨x⟩ − ln Γ(a); (42), (43), (62).
func expectedLogGamma(a, b, mean, logMean float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(b) + (a-1)*logMean - b*mean - lg
}

// weightTerms returns the bound terms shared by regression and
// classification:
//
//	⟨ln p(w|α)⟩ = −M/2 ln 2π + ½ Σₘ⟨ln αₘ⟩ − ½ Σₘ⟨αₘ⟩⟨wₘ²⟩          (41), corrected sign; (61)
//	⟨ln p(α)⟩   = Σₘ{a ln b + (a−1)⟨ln αₘ⟩ − b⟨αₘ⟩ − ln Γ(a)}          (42), (62)
//	H[Q_w]      = M/2 (1 + ln 2π) + ½ ln|Σ|                           (44), (63)
//	H[Q_α]      = Σₘ{ln Γ(ãₘ) − (ãₘ−1)ψ(ãₘ) − ln b̃ₘ + ãₘ}              (45), corrected; (64)
func weightTerms(p Prior, g *gammaQ, q *gaussQ) (lnPw, lnPalpha, hw, halpha float64) {
	m := len(g.bt)
	psi := mathext.Digamma(g.at)
	lgA, _ := math.Lgamma(p.A)
	lgAt, _ := math.Lgamma(g.at)
	lnB := math.Log(p.B)
	var sumLog, sumAW, sumMean, sumLnBt float64
	for i := range m {
		lbt := math.Log(g.bt[i])
		mean := g.at / g.bt[i]
		sumLnBt += lbt
		sumLog += psi - lbt
		sumMean += mean
		sumAW += mean * q.secondMoment(i)
	}
	fm := float64(m)
	lnPw = -fm/2*ln2Pi + sumLog/2 - sumAW/2                    // (41*)
	lnPalpha = fm*(p.A*lnB-lgA) + (p.A-1)*sumLog - p.B*sumMean // (42)
	hw = fm/2*(1+ln2Pi) + q.logDet/2                           // (44)
	halpha = fm*(lgAt-(g.at-1)*psi+g.at) - sumLnBt             // (45*)
	return lnPw, lnPalpha, hw, halpha
}
