package vrvm

import (
	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"
	"gonum.org/v1/gonum/mat"
)

// fixedQ is a fitted Q held fixed while the kernel parameters move: the
// full-model bound as a function of θ, up to a constant (K3)–(K4).
type fixedQ struct {
	rows  [][]float64 // training inputs, which are also the centres
	bias  bool        // the basis has a bias function
	pos   []int       // for each centre, its position in mu, or −1 if excluded
	biasP int         // position of the bias in mu, or −1
	mu    []float64
	sigma *mat.SymDense
	beta  []float64 // Bₙ, the likelihood's precisions
	y     []float64 // yₙ, the likelihood's data vector
	prior Prior
	k     *mat.Dense // scratch: the N × N kernel matrix
}

// newFixedQ holds the solution sol of problem p fixed.
func newFixedQ(p *problem, sol *solution) *fixedQ {
	rows := rowsOf(p.basis.centers)
	n := len(rows)
	q := &fixedQ{rows: rows, bias: p.basis.bias, pos: make([]int, n), biasP: -1, mu: sol.mu, prior: p.set.prior}
	for i := range q.pos {
		q.pos[i] = -1
	}
	off := p.basis.offset()
	for i, c := range sol.cols {
		if p.basis.bias && c == 0 {
			q.biasP = i
			continue
		}
		q.pos[c-off] = i
	}
	q.sigma = sol.sigma
	if q.sigma == nil {
		q.sigma = sol.sigmaOf()
	}
	beta, uni := p.lik.Weights()
	if beta == nil {
		beta = constant(n, uni)
	}
	q.beta = beta
	d, scale := p.lik.Data()
	q.y = make([]float64, n)
	for i, v := range d {
		q.y[i] = scale * v
	}
	return q
}

// eval returns F(θ), the terms of the full-model bound L(Q, θ) that
// depend on the kernel k at the fixed Q, (K3) and (K4):
//
//	F = Σₙ [yₙmₙ − ½Bₙ(mₙ² + vₙ)] + Σ_{j excluded} excludedTerm(sⱼ),
//
// and, if grad is not nil, sets grad to ∂F/∂u (K5)–(K6).
func (q *fixedQ) eval(k Learnable, grad []float64) float64 {
	n := len(q.rows)
	q.k = kernelMatrix(k, q.rows, q.k)
	kd := q.k.RawMatrix().Data
	ma := len(q.mu)
	// Φ_A: the active columns at the training inputs.
	phi := mat.NewDense(n, ma, nil)
	for i := range n {
		row := phi.RawRowView(i)
		if q.biasP >= 0 {
			row[q.biasP] = 1
		}
		for j, p := range q.pos {
			if p >= 0 {
				row[p] = kd[i*n+j]
			}
		}
	}
	var t mat.Dense // T = Φ_A Σ
	mul(&t, phi, q.sigma)
	m := make([]float64, n)
	var f float64
	for i := range n {
		pr, tr := phi.RawRowView(i), t.RawRowView(i)
		var mi, vi float64
		for p, v := range pr {
			mi += v * q.mu[p]
			vi += v * tr[p]
		}
		m[i] = mi
		f += q.y[i]*mi - 0.5*q.beta[i]*(mi*mi+vi) // (K3)
	}
	// Excluded functions: sⱼ = Σₙ Bₙ Kₙⱼ², their closed-form terms (K4).
	inv := make([]float64, n) // 1/(αⱼ + sⱼ) of each excluded centre
	for j, p := range q.pos {
		if p >= 0 {
			continue
		}
		var s float64
		for i := range n {
			v := kd[i*n+j]
			s += q.beta[i] * v * v
		}
		f += excludedTerm(q.prior, s) // (K4)
		inv[j] = 1 / (alphaRoot(q.prior.A, q.prior.B, s, 0) + s)
	}
	if q.bias && q.biasP < 0 {
		f += excludedTerm(q.prior, sum(q.beta)) // constant in θ
	}
	if grad == nil {
		return f
	}
	// G = ∂F/∂Φ (K5): active column p: (y − Bm)μₚ − B(ΦΣ)ₚ; excluded
	// column j: −BΦⱼ/(αⱼ + sⱼ).
	g := func(i, j int) float64 {
		if p := q.pos[j]; p >= 0 {
			return (q.y[i]-q.beta[i]*m[i])*q.mu[p] - q.beta[i]*t.At(i, p)
		}
		return -q.beta[i] * kd[i*n+j] * inv[j]
	}
	chainKernel(k, q.rows, kd, g, grad) // (K6)
	return f
}

// kernelMatrix returns the kernel matrix Kᵢⱼ = k(rows[i], rows[j]) in dst,
// which it allocates if nil (kernlearn.KernelMatrix).
func kernelMatrix(k Kernel, rows [][]float64, dst *mat.Dense) *mat.Dense {
	return kernlearn.KernelMatrix(k, rows, dst)
}

// chainKernel sets grad to ∂F/∂u = Σᵢⱼ Gᵢⱼ ∂Kᵢⱼ/∂u (K6), given
// g(i, j) = Gᵢⱼ = ∂F/∂Kᵢⱼ (the kernel function centred at row j, at row
// i) and the kernel matrix kd (row-major, N × N); K is symmetric and
// ∂Kᵢᵢ/∂u = 0.
func chainKernel(k Learnable, rows [][]float64, kd []float64, g func(i, j int) float64, grad []float64) {
	for i := range grad {
		grad[i] = 0
	}
	n := len(rows)
	for i := range n {
		for j := i + 1; j < n; j++ {
			k.AddLogGrad(grad, rows[i], rows[j], kd[i*n+j], g(i, j)+g(j, i))
		}
	}
}
