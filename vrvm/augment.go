package vrvm

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// augmentation holds what predictions augmented at the test point need
// (doc.go, "Variance away from the data", (A1)–(A6)): the training
// inputs, the likelihood's precisions Bₙ and the residuals
// rₙ = yₙ − Bₙmₙ of the fit, and the prior precision α* of the
// augmenting weight. The residuals and BΦ need the design at the
// training inputs, which is built at the first prediction (prepare), not
// at the end of the fit: a fit interrupted in a notebook returns at once
// even with an interpreted kernel.
type augmentation struct {
	x         *mat.Dense // N × d training inputs
	beta      []float64  // Bₙ
	data      []float64  // yₙ, until prepare replaces it by the residuals
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
	n, _ := p.x.Dims()
	beta, uni := p.lik.weights()
	if beta == nil {
		beta = constant(n, uni)
	}
	d, scale := p.lik.data()
	a := &augmentation{x: mat.DenseCopyOf(p.x), beta: append([]float64(nil), beta...), data: make([]float64, n)}
	for i := range n {
		a.data[i] = scale * d[i]
	}
	a.alphaStar = alphaStar(p.basis, sol)
	return a, nil
}

// prepare builds BΦ at the training inputs for the active functions of
// f and, for a fresh fit, the residuals rₙ = yₙ − Bₙμᵀφₙ (a loaded model
// holds them); once.
func (a *augmentation) prepare(f *fitted) error {
	a.once.Do(func() {
		var p *mat.Dense
		p, a.err = f.b.design(a.x, seq(len(f.mu)))
		if a.err != nil {
			return
		}
		if a.resid == nil {
			a.resid = make([]float64, len(a.data))
			for i := range a.data {
				m := blas64.Dot(blas64.Vector{N: len(f.mu), Inc: 1, Data: p.RawRowView(i)}, blas64.Vector{N: len(f.mu), Inc: 1, Data: f.mu})
				a.resid[i] = a.data[i] - a.beta[i]*m
			}
			a.data = nil
		}
		for i := range a.beta {
			row := p.RawRowView(i)
			for j := range row {
				row[j] *= a.beta[i]
			}
		}
		a.bphi = p
	})
	return a.err
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
	if err := a.prepare(f); err != nil {
		return err
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
