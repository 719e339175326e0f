package selection

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// activeRows returns the training rows of the active kernel functions:
// for each row of centres, the first row of x equal to it that is not
// already taken. (The centres, not ActiveSet, identify the rows: they are
// what the model predicts with.)
func activeRows(x, centres *mat.Dense) []int {
	if centres == nil {
		return nil
	}
	n, _ := x.Dims()
	m, _ := centres.Dims()
	taken := make([]bool, n)
	rows := make([]int, 0, m)
	for j := range m {
		c := centres.RawRowView(j)
		for i := range n {
			if !taken[i] && slices.Equal(x.RawRowView(i), c) {
				taken[i] = true
				rows = append(rows, i)
				break
			}
		}
	}
	return rows
}

// addBack returns the terms of the lower bound L of the full model that
// the pruned basis functions of a variational fit contribute at the fit's
// solution: each is put back on its own, with Q_w re-optimised for it and
// everything else fixed, and with its factor Q_αₘ = Γ(ã, ã/α) at the best
// α of the pruned regime (see the package documentation). The fitted Q_w
// is Gaussian with covariance sigma and mean mu over the active functions
// (the bias first if active, then the kernel functions centred on the
// training rows active), and its likelihood is Gaussian in w with row
// precisions beta and data vector y, μ = Σ Φᵀy: for regression βₙ = ⟨τ⟩
// and y = ⟨τ⟩t, for classification βₙ = 2λ(ξₙ) and y = t − ½ (54)–(55).
//
// With the sparsity and quality factors (Tipping & Faul 2003)
//
//	s = φᵀBφ − φᵀBΦ Σ ΦᵀBφ,   q = φᵀy − φᵀBΦ μ,
//
// the function's terms of L are c₀ + g(α) with
//
//	g(α) = ã ln α − bα − ½ ln(α + s) + ½ q²/(α + s),
//	c₀   = lnΓ(ã) − lnΓ(a) − ã ln ã + ã + a ln b,   ã = a + ½.
//
// If q² ≤ s, g has a single maximum, at large α (about √((s − q²)/2b)),
// and the function stays irrelevant: its best value is used. If q² > s,
// g increases towards the maximum of a relevant function at small α; its
// value at the end of the pruned regime, α = ã/b, is used, so that the
// gains that several pruned functions could each claim for the same
// unexplained structure are not counted. At α = ã/b and s = q = 0 the
// terms are PrunedContribution(a).
func addBack(k vrvm.Kernel, bias, hasBias bool, x *mat.Dense, active []int, mu []float64, sigma *mat.SymDense, beta, y []float64, p vrvm.Prior) float64 {
	n, _ := x.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = x.RawRowView(i)
	}
	phi := func(c int, dst []float64) { // basis function c: −1 is the bias
		for i := range dst {
			if c < 0 {
				dst[i] = 1
			} else {
				dst[i] = k.Eval(rows[i], rows[c])
			}
		}
	}
	var cols []int
	if hasBias {
		cols = append(cols, -1)
	}
	cols = append(cols, active...)
	m := len(cols)
	design := mat.NewDense(n, max(m, 1), nil)
	col := make([]float64, n)
	for j, c := range cols {
		phi(c, col)
		design.SetCol(j, col)
	}
	in := make(map[int]bool, m)
	for _, c := range cols {
		in[c] = true
	}
	var candidates []int
	if bias && !hasBias {
		candidates = append(candidates, -1)
	}
	for c := range n {
		if !in[c] {
			candidates = append(candidates, c)
		}
	}
	a, b := p.A, p.B
	if a == 0 {
		a = vrvm.DefaultPrior
	}
	if b == 0 {
		b = vrvm.DefaultPrior
	}
	at := a + 0.5
	lgAt, _ := math.Lgamma(at)
	lgA, _ := math.Lgamma(a)
	c0 := lgAt - lgA - at*math.Log(at) + at + a*math.Log(b)
	bphi := make([]float64, n)
	v := make([]float64, m)
	sv := make([]float64, m)
	var total float64
	for _, c := range candidates {
		phi(c, col)
		var s, q float64
		for i, f := range col {
			bphi[i] = beta[i] * f
			s += f * bphi[i]
			q += f * y[i]
		}
		if m > 0 {
			// v = ΦᵀBφ; s −= vᵀΣv; q −= vᵀμ.
			mat.NewVecDense(m, v).MulVec(design.T(), mat.NewVecDense(n, bphi))
			mat.NewVecDense(m, sv).MulVec(sigma, mat.NewVecDense(m, v))
			s -= mat.Dot(mat.NewVecDense(m, v), mat.NewVecDense(m, sv))
			q -= mat.Dot(mat.NewVecDense(m, v), mat.NewVecDense(m, mu))
		}
		s = math.Max(s, 0)
		var g float64
		if q*q <= s {
			g = c0 + maxAlphaTerms(at, b, s, q*q)
		} else {
			al := at / b
			g = c0 + at*math.Log(al) - b*al - 0.5*math.Log(al+s) + 0.5*q*q/(al+s)
		}
		total += g
	}
	return total
}

// maxAlphaTerms returns the maximum over α in (0, ã/b] of
//
//	g(α) = ã ln α − bα − ½ ln(α + s) + ½ q²/(α + s),
//
// the terms of L that depend on the mean α = ⟨αₘ⟩ of the factor
// Q_αₘ = Γ(ã, ã/α) of a basis function with sparsity and quality factors
// s and q, once Q_w is optimal for α (Tipping & Faul 2003). g → −∞ as
// α → 0 and decreases beyond ã/b, but may have two local maxima: the
// maximum is located on a logarithmic grid and refined by golden-section
// search.
func maxAlphaTerms(at, b, s, q2 float64) float64 {
	g := func(u float64) float64 {
		al := math.Exp(u)
		return at*u - b*al - 0.5*math.Log(al+s) + 0.5*q2/(al+s)
	}
	hi := math.Log(at / b)
	const span, steps = 80.0, 400
	h := span / steps
	best, bu := math.Inf(-1), hi
	for i := range steps + 1 {
		u := hi - float64(i)*h
		if v := g(u); v > best {
			best, bu = v, u
		}
	}
	lo, up := bu-h, math.Min(bu+h, hi)
	const r = 0.6180339887498949
	x1, x2 := up-r*(up-lo), lo+r*(up-lo)
	g1, g2 := g(x1), g(x2)
	for range 100 {
		if g1 > g2 {
			up, x2, g2 = x2, x1, g1
			x1 = up - r*(up-lo)
			g1 = g(x1)
		} else {
			lo, x1, g1 = x1, x2, g2
			x2 = lo + r*(up-lo)
			g2 = g(x2)
		}
	}
	return math.Max(best, math.Max(g1, g2))
}
