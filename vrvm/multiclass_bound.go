package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The multi-class model's likelihood bound and lower bound, (M1)–(M15) of
// doc.go ("Multi-class classification"): the softmax likelihood (M1)
// under Böhning's bound (M3), or the adaptive bound (M19)
// (multiclass_adaptive.go), one precision αₘₖ per weight.

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

// moments returns the mean activations ȳ (N × K) and the variances
// vₙₖ = φₙᵀΣₖφₙ of the active weights, with the means μₖ.
func (p *mcProblem) moments() (ybar, v *mat.Dense, mus [][]float64) {
	n, _ := p.phi.Dims()
	ybar, v = mat.NewDense(n, p.k, nil), mat.NewDense(n, p.k, nil)
	mus = make([][]float64, p.k)
	for k, c := range p.cls {
		mu := c.mean()
		mus[k] = mu
		m := len(c.act)
		if m == 0 {
			continue
		}
		phiA := selectCols(p.phi, c.act)
		var ps mat.Dense
		ps.Mul(phiA, c.sig)
		col := make([]float64, n)
		blas64.Gemv(blas.NoTrans, 1, phiA.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: mu}, 0, blas64.Vector{N: n, Inc: 1, Data: col})
		for i := range n {
			ybar.Set(i, k, col[i])
			v.Set(i, k, math.Max(0, dot(ps.RawRowView(i), phiA.RawRowView(i))))
		}
	}
	return ybar, v, mus
}

// bound returns L: (M9) with each class's Q(wₖ) independent, so that
// ½tr(A Cov yₙ) = ½c₀ Σₖ vₙₖ, plus (M10)–(M13) of each class and (M15).
func (p *mcProblem) bound() float64 {
	ybar, v, mus := p.moments()
	n, _ := ybar.Dims()
	g := make([]float64, p.k)
	var l float64
	if p.adapt {
		l = p.adaptiveLik(ybar, v) // (M20)
	} else {
		for i := range n {
			l += bohning(g, ybar.RawRowView(i), p.psi.RawRowView(i), p.y[i]) // (M9), (M3) at each row
		}
		l -= 0.5 * p.c0 * mat.Sum(v) // (M9), the covariance part
	}
	for k, c := range p.cls {
		m := len(c.act)
		bt, w2 := make([]float64, m), make([]float64, m)
		for i, a := range c.alpha {
			bt[i] = p.at / a
			w2[i] = mus[k][i]*mus[k][i] + c.sig.At(i, i)
		}
		lnPw, lnPa, hw, ha := weightTerms(p.prior, p.at, bt, w2, c.logDet) // (M10)–(M13)
		l += lnPw + lnPa + hw + ha
		if p.adapt {
			l += p.excludedAdaptive(k) // (M15) with s = φₘᵀBₖφₘ
		} else {
			l += excludedBound(p.prior, p.dAll, c.act) // (M15)
		}
	}
	return l
}
