package vrvm

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The multi-class model's likelihood bound and lower bound, (M1)–(M16) of
// doc.go ("Multi-class classification"): the softmax likelihood (M1)
// under Böhning's fixed-curvature bound (M3), with one ⟨αₘ⟩ per basis
// function shared by the K classes.

// logSumExp returns ln Σₖ exp(yₖ) without overflow.
func logSumExp(y []float64) float64 {
	hi := math.Inf(-1)
	for _, v := range y {
		hi = math.Max(hi, v)
	}
	if math.IsInf(hi, 0) {
		return hi
	}
	var s float64
	for _, v := range y {
		s += math.Exp(v - hi)
	}
	return hi + math.Log(s)
}

// softmaxTo sets dst to the softmax of y, exp(yₖ)/Σⱼ exp(yⱼ), and returns
// ln Σⱼ exp(yⱼ).
func softmaxTo(dst, y []float64) float64 {
	l := logSumExp(y)
	for k, v := range y {
		dst[k] = math.Exp(v - l)
	}
	return l
}

// BohningBound returns the logarithm of Böhning's lower bound (M3) on the
// softmax probability of class k at activations y, expanded at ψ:
//
//	ln softmaxₖ(y) ≥ yₖ − lse(ψ) − g(ψ)ᵀ(y − ψ) − ½(y − ψ)ᵀA(y − ψ),
//	A = ½(I − 11ᵀ/K),
//
// with g the softmax, with equality at y = ψ (and at y = ψ + c1 for any
// scalar c). It panics if the lengths of y and psi differ or k is out of
// range.
func BohningBound(y, psi []float64, k int) float64 {
	if len(y) != len(psi) || k < 0 || k >= len(y) {
		panic("vrvm: BohningBound: bad lengths or class")
	}
	return bohning(make([]float64, len(psi)), y, psi, k)
}

// bohning is BohningBound with g, of the length of psi, as scratch space.
func bohning(g, y, psi []float64, k int) float64 {
	l := softmaxTo(g, psi)
	var lin, d2, ds float64
	for j := range y {
		d := y[j] - psi[j]
		lin += g[j] * d
		d2 += d * d
		ds += d
	}
	kk := float64(len(y))
	return y[k] - l - lin - 0.25*(d2-ds*ds/kk) // (M3)
}

// mcTerms are the moments of Q_w that the multi-class bound needs.
type mcTerms struct {
	k      int
	at     float64   // ã = a + K/2 (M6)
	bt     []float64 // b̃ₘ
	d0     []float64 // the ⟨αₘ⟩ used in Q_w's precision (M4)
	w2     []float64 // Σₖ⟨wₘₖ²⟩ (M7)
	logDet float64   // ln|Σ| of the contrast covariance (M4)
	sumVar float64   // Σₙ φₙᵀΣφₙ
}

// mcLikelihood returns the bound's likelihood term (M9):
//
//	Σₙ{tₙᵀȳₙ − lse(ψₙ) − gₙᵀ(ȳₙ − ψₙ) − ½(ȳₙ − ψₙ)ᵀA(ȳₙ − ψₙ)} − (K − 1)/4 Σₙ φₙᵀΣφₙ
//
// with ȳₙ the rows of ybar (N × K), ψₙ those of psi and yₙ the class of
// row n.
func mcLikelihood(y []int, ybar, psi *mat.Dense, sumVar float64) float64 {
	n, k := ybar.Dims()
	g := make([]float64, k)
	var s float64
	for i := range n {
		s += bohning(g, ybar.RawRowView(i), psi.RawRowView(i), y[i]) // (M9), first part: (M3) at each row
	}
	return s - (float64(k)-1)/4*sumVar // (M9), last term: ½ tr(A Cov yₙ) = (K − 1)/4 φₙᵀΣφₙ
}

// mcWeightTerms returns the terms (M10)–(M13) of the bound that belong to
// the weights and their precisions:
//
//	⟨ln p(W|α)⟩ = −MK/2 ln 2π + K/2 Σₘ⟨ln αₘ⟩ − ½ Σₘ⟨αₘ⟩Σₖ⟨wₘₖ²⟩          (M10)
//	⟨ln p(α)⟩   = Σₘ{a ln b + (a − 1)⟨ln αₘ⟩ − b⟨αₘ⟩ − ln Γ(a)}             (M11)
//	H[Q_W]      = MK/2 (1 + ln 2π) + (K − 1)/2 ln|Σ| − ½ Σₘ ln α⁰ₘ        (M12)
//	H[Q_α]      = Σₘ{ln Γ(ã) − (ã − 1)ψ(ã) − ln b̃ₘ + ã}                     (M13)
func mcWeightTerms(p Prior, t *mcTerms) float64 {
	m := len(t.bt)
	fm, kk := float64(m), float64(t.k)
	psi := mathext.Digamma(t.at)
	var sumLog, sumAW, sumGamma, sumLnD0, sumH float64
	for i := range m {
		mean := t.at / t.bt[i]
		lnMean := psi - math.Log(t.bt[i])
		sumLog += lnMean
		sumAW += mean * t.w2[i]
		sumGamma += expectedLogGamma(p.A, p.B, mean, lnMean)
		sumLnD0 += math.Log(t.d0[i])
		sumH += gammaEntropy(t.at, t.bt[i])
	}
	lnPw := -fm*kk/2*ln2Pi + kk/2*sumLog - sumAW/2          // (M10)
	hw := fm*kk/2*(1+ln2Pi) + (kk-1)/2*t.logDet - sumLnD0/2 // (M12)
	return lnPw + sumGamma + hw + sumH                      // (M11), (M13)
}

// mcCollapsed is the collapsed bound (M14) as a function of α = ⟨αₘ⟩ of
// one function, with c = (K − 1)/2, without its constant:
//
//	f(α) = (a + c) ln α − bα − c ln(α + s) + ½ q²/(α + s).
func mcCollapsed(p Prior, k int, alpha, s, q2 float64) float64 {
	c := float64(k-1) / 2
	u := alpha + s
	return (p.A+c)*math.Log(alpha) - p.B*alpha - c*math.Log(u) + 0.5*q2/u // (M14)
}

// mcAlphaRoot returns the maximiser of (M14) over α > 0. Dividing f by
// 2c = K − 1 gives (S1) with a/(K − 1), b/(K − 1) and q²/(K − 1), whose
// maximiser alphaRoot finds.
func mcAlphaRoot(p Prior, k int, s, q2 float64) float64 {
	c2 := float64(k - 1)
	return alphaRoot(p.A/c2, p.B/c2, math.Max(s, 0), math.Max(q2, 0)/c2)
}

// mcExcludedTerm returns the contribution to L of a basis function held
// outside the active set with the factor Q(wₘ) independent of the other
// weights and Q_αₘ, both at their optimum: with s = ½φₘᵀφₘ and α the
// maximiser of (M14) with q = 0, the terms (M10)–(M13) of m and its share
// of the likelihood term of (M9), −(K − 1)/2 s/(α + s) (M15).
func mcExcludedTerm(p Prior, k int, s float64) float64 {
	a := mcAlphaRoot(p, k, s, 0)
	kk := float64(k)
	at := p.A + kk/2
	v := 1 / (a + s)
	t := mcTerms{k: k, at: at, bt: []float64{at / a}, d0: []float64{a}, w2: []float64{(kk-1)*v + 1/a}, logDet: math.Log(v)}
	return mcWeightTerms(p, &t) - (kk-1)/2*s*v // (M15)
}
