package vrvm

import (
	"context"
	"runtime"
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
	phi  *mat.Dense // N × M: φₘ(xₙ) for the active functions
	bphi *mat.Dense // N × M: Bₙ φₘ(xₙ)
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
		a.phi = mat.DenseCopyOf(p)
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
// at a cost of O(N(d + M)) per test point beyond the plain prediction:
// by blocks of test rows, K(x*, training inputs) a block at a time
// (kernelBlock) and g and Σg by matrix products, spread over the
// workers of parallelBlocks. kᵀBk − gᵀΣg, the data's precision along
// the augmenting function that the active ones do not explain, is the
// difference of two nearly equal numbers where they nearly do (kᵀBk
// about 10⁴, the difference 10⁻³ on Friedman #1 with 3,000 rows: 38 %
// off); it is evaluated as the minimum it is, as (S14),
//
//	kᵀBk − gᵀΣg = Σₙ Bₙ(kₙ − φₙᵀu)² + Σₐ ⟨αₐ⟩uₐ²,  u = Σg,              (A8)
//
// a sum of non-negative terms whose error in u is of second order.
func (a *augmentation) adjust(f *fitted, x mat.Matrix, phi, ps *mat.Dense, mean, variance []float64) error {
	if err := a.prepare(f); err != nil {
		return err
	}
	n, m := phi.Dims()
	nt, _ := a.x.Dims()
	xd := denseOf(x)
	sigma := symFull(f.sigma.get())
	alpha := f.alpha // ⟨αₐ⟩ of the active functions
	resid := blas64.Vector{N: nt, Inc: 1, Data: a.resid}
	size := max(1, min(n, (1<<16)/max(1, nt)))
	type buffers struct{ k, g, sg, kr, res []float64 }
	bufs := make([]buffers, runtime.GOMAXPROCS(0))
	centre := seq(nt)
	return parallelBlocks(context.Background(), n, size, nt+m, func(lo, hi, w int) error {
		r := hi - lo
		bf := &bufs[w]
		if bf.k == nil {
			bf.k, bf.g, bf.sg, bf.kr, bf.res = make([]float64, size*nt), make([]float64, size*m), make([]float64, size*m), make([]float64, size), make([]float64, size*nt)
		}
		kb := mat.NewDense(r, nt, bf.k[:r*nt])
		if err := kernelBlock(f.b.kernel, kb, xd.Slice(lo, hi, 0, xd.RawMatrix().Cols).(*mat.Dense), a.x, lo, centre, false); err != nil {
			return err
		}
		g := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.g[:r*m]}
		sg := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.sg[:r*m]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb.RawMatrix(), a.bphi.RawMatrix(), 0, g)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g, sigma, 0, sg)
		kr := blas64.Vector{N: r, Inc: 1, Data: bf.kr[:r]}
		blas64.Gemv(blas.NoTrans, 1, kb.RawMatrix(), resid, 0, kr)
		// The residuals k − Φu of (A8), row by row.
		res := blas64.General{Rows: r, Cols: nt, Stride: nt, Data: bf.res[:r*nt]}
		copy(res.Data, kb.RawMatrix().Data[:r*nt])
		blas64.Gemm(blas.NoTrans, blas.Trans, -1, sg, a.phi.RawMatrix(), 1, res)
		for i := range r {
			var s float64 // (A8)
			for j, v := range res.Data[i*nt : (i+1)*nt] {
				s += a.beta[j] * v * v
			}
			for j, u := range sg.Data[i*m : (i+1)*m] {
				s += alpha[j] * u * u
			}
			gi := blas64.Vector{N: m, Inc: 1, Data: g.Data[i*m : (i+1)*m]}
			row := xd.RawRowView(lo + i)
			q := a.alphaStar + s                                                                                      // (A1)
			e := f.b.kernel.Eval(row, row) - blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: ps.RawRowView(lo + i)}, gi) // (A3)
			mean[lo+i] += e * kr.Data[i] / q                                                                          // (A2)
			variance[lo+i] += e * e / q                                                                               // (A4)
		}
		return nil
	})
}

// symFull returns the symmetric s as a full general matrix, for matrix
// products.
func symFull(s *mat.SymDense) blas64.General {
	m := s.SymmetricDim()
	raw := s.RawSymmetric()
	full := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	for i := range m {
		for j := i; j < m; j++ {
			v := raw.Data[i*raw.Stride+j]
			full.Data[i*m+j], full.Data[j*m+i] = v, v
		}
	}
	return full
}
