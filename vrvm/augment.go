package vrvm

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// augmentation holds what predictions augmented at the test point need
// (doc.go, "Variance away from the data", (A1)–(A5)): the training
// inputs, the likelihood's precisions Bₙ and the residuals
// rₙ = yₙ − Bₙmₙ of the fit, and the prior precision α* of the
// augmenting weight.
type augmentation struct {
	x         *mat.Dense // N × d training inputs
	beta      []float64  // Bₙ
	resid     []float64  // yₙ − Bₙ μᵀφₙ
	alphaStar float64

	once sync.Once
	bphi *mat.Dense // N × M: Bₙ φₘ(xₙ) for the active functions
	err  error
}

// newAugmentation records the augmentation state of a fit of problem p
// with solution sol; it returns nil for a user design (no kernel to
// centre at the test point).
func newAugmentation(p *problem, sol *solution) (*augmentation, error) {
	if p.basis.kernel == nil {
		return nil, nil
	}
	phi, err := p.basis.design(p.x, sol.cols)
	if err != nil {
		return nil, err
	}
	n, _ := phi.Dims()
	beta, uni := p.lik.weights()
	if beta == nil {
		beta = constant(n, uni)
	}
	d, scale := p.lik.data()
	a := &augmentation{x: mat.DenseCopyOf(p.x), beta: append([]float64(nil), beta...), resid: make([]float64, n)}
	for i := range n {
		m := blas64.Dot(blas64.Vector{N: len(sol.mu), Inc: 1, Data: phi.RawRowView(i)}, blas64.Vector{N: len(sol.mu), Inc: 1, Data: sol.mu})
		a.resid[i] = scale*d[i] - beta[i]*m
	}
	a.alphaStar = alphaStar(p.basis, sol)
	return a, nil
}

// alphaStar is (A5): the prior precision of the augmenting weight, the
// harmonic mean of ⟨αₘ⟩ over the active kernel functions (the average
// prior variance of a relevant weight), or of every active function when
// no kernel function is active.
func alphaStar(b basis, sol *solution) float64 {
	alpha := unscaleVec(sol.alpha, b.divisors(sol.cols), unscaleAlpha) // in the kernel's units (U2)
	var s float64
	var n int
	for i, c := range sol.cols {
		if b.bias && c == 0 && len(sol.cols) > 1 {
			continue
		}
		s += 1 / alpha[i]
		n++
	}
	return float64(n) / s
}

// adjust augments the latent mean and variance at the test rows of x:
// phi holds the active functions there and ps = phi·Σ. With k the kernel
// between the training inputs and x*, g = ΦᵀBk,
//
//	q = α* + kᵀBk − gᵀΣg,   e = K(x*, x*) − φ*ᵀΣg              (A1), (A3)
//	mean += e·kᵀr/q,   variance += e²/q                       (A2), (A4)
//
// at a cost of O(N(d + M)) per test point beyond the plain prediction.
func (a *augmentation) adjust(f *fitted, x mat.Matrix, phi, ps *mat.Dense, mean, variance []float64) error {
	a.once.Do(func() {
		// BΦ at the training inputs, for the active functions.
		var cols []int = seq(len(f.mu))
		var p *mat.Dense
		p, a.err = f.b.design(a.x, cols)
		if a.err != nil {
			return
		}
		for i := range a.beta {
			row := p.RawRowView(i)
			for j := range row {
				row[j] *= a.beta[i]
			}
		}
		a.bphi = p
	})
	if a.err != nil {
		return a.err
	}
	n, m := phi.Dims()
	nt, _ := a.x.Dims()
	trows := rowsOf(a.x)
	rows := rowsOf(x)
	kv := make([]float64, nt)
	g := make([]float64, m)
	sg := make([]float64, m)
	sigma := f.sigma.get().RawSymmetric()
	for i := range n {
		var kbk, kr float64
		for j, tr := range trows {
			v := f.b.kernel.Eval(tr, rows[i])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &NonFiniteError{What: "kernel value", Row: i, Col: j, Value: v}
			}
			kv[j] = v
			kbk += a.beta[j] * v * v
			kr += v * a.resid[j]
		}
		blas64.Gemv(blas.Trans, 1, a.bphi.RawMatrix(), blas64.Vector{N: nt, Inc: 1, Data: kv}, 0, blas64.Vector{N: m, Inc: 1, Data: g})
		blas64.Symv(1, sigma, blas64.Vector{N: m, Inc: 1, Data: g}, 0, blas64.Vector{N: m, Inc: 1, Data: sg})
		gsg := blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: g}, blas64.Vector{N: m, Inc: 1, Data: sg})
		kss := f.b.kernel.Eval(rows[i], rows[i])
		q := a.alphaStar + math.Max(0, kbk-gsg)                                                                          // (A1)
		e := kss - blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: ps.RawRowView(i)}, blas64.Vector{N: m, Inc: 1, Data: g}) // (A3)
		mean[i] += e * kr / q                                                                                            // (A2)
		variance[i] += e * e / q                                                                                         // (A4)
	}
	return nil
}
