package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The multi-class model's likelihood bound and lower bound, (M1)–(M15) of
// doc.go ("Multi-class classification"): the softmax likelihood (M1)
// under Bouchard's bound with a Jaakkola–Jordan bound on each class's
// term (M3), one precision αₘₖ per weight.

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

// lnCosh2 returns h(ξ) = ln(2 cosh(ξ/2)) without overflow.
func lnCosh2(xi float64) float64 {
	a := math.Abs(xi)
	return a/2 + math.Log1p(math.Exp(-a))
}

// BouchardBound returns Bouchard's (2007) lower bound (M3) on the softmax
// probability of class k at activations y, with the Jaakkola–Jordan
// bound on each term:
//
//	ln softmaxₖ(y) ≥ yₖ − a − Σⱼ{(yⱼ − a)/2 + λ(ξⱼ)((yⱼ − a)² − ξⱼ²) + ln(2 cosh(ξⱼ/2))}
//
// for any a and ξ; it is tightest at ξⱼ = |yⱼ − a|. It panics if the
// lengths of y and xi differ or k is out of range.
func BouchardBound(y, xi []float64, a float64, k int) float64 {
	if len(y) != len(xi) || k < 0 || k >= len(y) {
		panic("vrvm: BouchardBound: bad lengths or class")
	}
	l := y[k] - a
	for j, v := range y {
		z := v - a
		l -= z/2 + Lambda(xi[j])*(z*z-xi[j]*xi[j]) + lnCosh2(xi[j]) // (M3)
	}
	return l
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

// bound returns L, (M9)–(M13) plus (M15).
func (p *mcProblem) bound() float64 {
	ybar, v, mus := p.moments()
	n, _ := ybar.Dims()
	var l float64
	for i := range n {
		yr, vr, xr, lr := ybar.RawRowView(i), v.RawRowView(i), p.xi.RawRowView(i), p.lam.RawRowView(i)
		a := p.an[i]
		l += yr[p.y[i]] - a
		for j := range p.k {
			d := yr[j] - a
			l -= d/2 + lr[j]*(d*d+vr[j]-xr[j]*xr[j]) + lnCosh2(xr[j]) // (M9)
		}
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
		bw, _ := p.weights(k)
		d := make([]float64, len(c.d))
		gemvT(d, p.phi2, bw)
		l += excludedBound(p.prior, d, c.act) // (M15)
	}
	return l
}
