package vrvm

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// augmentation holds what predictions augmented at the test point need
// (docs/design.md, "Variance away from the data", (A1)–(A6)): the training
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
	// ny is the low-rank form (A10)–(A13), when the kernel matrix at the
	// training inputs has one within the tolerance (A12); then x, beta,
	// resid, phi and bphi are released.
	ny      *nystrom
	lowRank lowRankSettings
}

// newAugmentation records the augmentation state of a fit of problem p
// with solution sol; it returns nil for a user design (no kernel to
// centre at the test point) and for a kernel whose diagonal is not
// constant over the training inputs (A9).
func newAugmentation(p *problem, sol *solution) (*augmentation, error) {
	if p.basis.kernel == nil || !constantDiagonal(p.basis.kernel, p.x) {
		return nil, nil
	}
	n, _ := p.x.Dims()
	beta, uni := p.lik.Weights()
	if beta == nil {
		beta = constant(n, uni)
	}
	d, scale := p.lik.Data()
	a := &augmentation{x: mat.DenseCopyOf(p.x), beta: append([]float64(nil), beta...), data: make([]float64, n)}
	for i := range n {
		a.data[i] = scale * d[i]
	}
	a.alphaStar = alphaStar(p.basis, sol)
	return a, nil
}

// constantDiagonal reports whether K(x, x) is the same at every row of x
// (to a relative 1e-9): the kernels that augmentation suits (A9), such as
// Gaussian and ARDGaussian, where K(x, x) = 1, and not Polynomial or
// Linear, whose diagonal grows with ‖x‖.
func constantDiagonal(k Kernel, x mat.Matrix) bool {
	n, _ := x.Dims()
	if n == 0 {
		return true
	}
	row := func(i int) []float64 { return mat.Row(nil, i, x) }
	x0 := row(0)
	d0 := k.Eval(x0, x0)
	for i := 1; i < n; i++ {
		xi := row(i)
		if d := k.Eval(xi, xi); !(math.Abs(d-d0) <= 1e-9*math.Abs(d0)) {
			return false
		}
	}
	return true
}

// augmentedConstantDiag is constantDiagonal (A9) for a loaded
// augmentation: at its training inputs x, or at the pivots of its
// low-rank form ny, the model's centres among them.
func augmentedConstantDiag(ny *nystrom, x mat.Matrix, k Kernel, centres mat.Matrix) bool {
	if ny != nil {
		return ny.constantDiag(k, centres)
	}
	return constantDiagonal(k, x)
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
		a.ny, a.err = newNystrom(a.lowRank, f.b.kernel, a.x, f.b.centers, f.designOffset(), a.phi, a.bphi, a.beta, []augLatent{a.latent(f)})
		if a.ny != nil {
			a.x, a.beta, a.resid, a.phi, a.bphi = nil, nil, nil, nil, nil
		}
	})
	return a.err
}

// latent is the fit's latent function for (A1)–(A4): Σ in full, ⟨α⟩,
// α* and the residuals.
func (a *augmentation) latent(f *fitted) augLatent {
	return augLatent{sigma: symFull(f.sigma.get()), alpha: f.alpha, alphaStar: a.alphaStar,
		resid: blas64.Vector{N: len(a.resid), Inc: 1, Data: a.resid}}
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

// hook returns, for a prepared augmentation in the low-rank form, the
// blockHook of latentTo that augments the means and variances of f's
// predictions at the rows of x block by block, with the design latentTo has already
// computed; nil for the exact form (adjust).
func (a *augmentation) hook(f *fitted, x *mat.Dense, mean, variance []float64) blockHook {
	if a.ny == nil || f.b.kernel == nil {
		return nil
	}
	scratch := make([]nysScratch, runtime.GOMAXPROCS(0))
	add := func(_, i int, dm, dv float64) {
		mean[i] += dm
		variance[i] += dv
	}
	return func(lo, hi, w int, phi []float64, rs, cs int) error {
		_, d := x.Dims()
		return a.ny.block(f.b.kernel, x.Slice(lo, hi, 0, d).(*mat.Dense), lo, phi, rs, cs, &scratch[w], add)
	}
}

// adjust augments the latent mean and variance at the rows of x (the
// columns cols of f's basis): with k the kernel between the training
// inputs and x*, g = ΦᵀBk,
//
//	q = α* + kᵀBk − gᵀΣg,   e = K(x*, x*) − φ*ᵀΣg              (A1), (A3)
//	mean += e·kᵀr/q,   variance += e²/q                       (A2), (A4)
//
// at a cost of O(N(d + M)) per test point beyond the plain prediction
// (augRows, augmentBlock).
func (a *augmentation) adjust(f *fitted, x *mat.Dense, cols []int, mean, variance []float64) error {
	if err := a.prepare(f); err != nil {
		return err
	}
	if a.ny != nil {
		return a.ny.adjust(f, x, cols, func(_, i int, dm, dv float64) {
			mean[i] += dm
			variance[i] += dv
		})
	}
	l := a.latent(f)
	return augRows(f, x, a.x, cols, func(lo int, kb, phis *mat.Dense, kss []float64, s *augScratch) error {
		augmentBlock(s, kb, phis, kss, a.phi, a.bphi, a.beta, l, func(i int, dm, dv float64) {
			mean[lo+i] += dm
			variance[lo+i] += dv
		})
		return nil
	})
}

// augLatent is one latent function of an augmented model: its weights'
// covariance Σ in full, their ⟨αₐ⟩, the prior precision α* of the
// augmenting weight and the residuals rₙ = yₙ − Bₙμᵀφₙ at the training
// inputs (a column of an N × K matrix for MultiClassifier).
type augLatent struct {
	sigma     blas64.General
	alpha     []float64
	alphaStar float64
	resid     blas64.Vector
}

// augScratch is a worker's buffers for augmentBlock.
type augScratch struct{ g, sg, kr, res []float64 }

// augRows calls fn on blocks of the rows of x, spread over the workers of
// parallelBlocks, with the kernel block kb = K(x_block, t) (t the N
// training inputs), the block's design phis for the columns cols of f's
// basis, K(x*, x*) of each row, and the worker's scratch.
func augRows(f *fitted, x, t *mat.Dense, cols []int, fn func(lo int, kb, phis *mat.Dense, kss []float64, s *augScratch) error) error {
	n, d := x.Dims()
	nt, _ := t.Dims()
	size := max(1, min(n, (1<<16)/max(1, nt)))
	kbufs := make([][]float64, runtime.GOMAXPROCS(0))
	scratch := make([]augScratch, len(kbufs))
	centre := seq(nt)
	return parallelBlocks(context.Background(), n, size, nt+len(cols), func(lo, hi, w int) error {
		r := hi - lo
		if kbufs[w] == nil {
			kbufs[w] = make([]float64, size*nt)
		}
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		kb := mat.NewDense(r, nt, kbufs[w][:r*nt])
		if err := kernelBlock(f.b.kernel, kb, xb, t, lo, centre, false); err != nil {
			return err
		}
		phis, err := f.b.design(xb, cols)
		if err != nil {
			return err
		}
		kss := make([]float64, r)
		for i := range r {
			kss[i] = f.b.kernel.Eval(xb.RawRowView(i), xb.RawRowView(i))
		}
		return fn(lo, kb, phis, kss, &scratch[w])
	})
}

// augmentBlock computes (A1)–(A4) for the latent function l at the r test
// rows of a block — kb = K(x*, training inputs) (r × N), phis the rows'
// design (r × M), kss = K(x*, x*) — given the design phi and bphi = BΦ at
// the training inputs and the precisions beta = Bₙ, and calls add with
// each row's mean and variance increments. g = ΦᵀBk and u = Σg go by
// matrix products. kᵀBk − gᵀΣg, the data's precision along the
// augmenting function that the active ones do not explain, is the
// difference of two nearly equal numbers where they nearly do (kᵀBk
// about 10⁴, the difference 10⁻³ on Friedman #1 with 3,000 rows: 38 %
// off); it is evaluated as the minimum it is, as (S14),
//
//	kᵀBk − gᵀΣg = Σₙ Bₙ(kₙ − φₙᵀu)² + Σₐ ⟨αₐ⟩uₐ²,  u = Σg,              (A8)
//
// a sum of non-negative terms whose error in u is of second order; and
// e = K(x*, x*) − φ*ᵀu.
func augmentBlock(s *augScratch, kb, phis *mat.Dense, kss []float64, phi, bphi *mat.Dense, beta []float64, l augLatent, add func(i int, dm, dv float64)) {
	r, nt := kb.Dims()
	_, m := phis.Dims()
	if len(s.res) < r*nt || len(s.g) < r*m {
		s.g, s.sg, s.kr, s.res = make([]float64, r*m), make([]float64, r*m), make([]float64, r), make([]float64, r*nt)
	}
	g := blas64.General{Rows: r, Cols: m, Stride: m, Data: s.g[:r*m]}
	u := blas64.General{Rows: r, Cols: m, Stride: m, Data: s.sg[:r*m]}
	kr := blas64.Vector{N: r, Inc: 1, Data: s.kr[:r]}
	res := blas64.General{Rows: r, Cols: nt, Stride: nt, Data: s.res[:r*nt]}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb.RawMatrix(), bphi.RawMatrix(), 0, g)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g, l.sigma, 0, u)
	blas64.Gemv(blas.NoTrans, 1, kb.RawMatrix(), l.resid, 0, kr)
	// The residuals k − Φu of (A8), row by row.
	for i := range r {
		copy(res.Data[i*nt:(i+1)*nt], kb.RawRowView(i))
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, -1, u, phi.RawMatrix(), 1, res)
	for i := range r {
		var q float64 // (A8)
		for j, v := range res.Data[i*nt : (i+1)*nt] {
			q += beta[j] * v * v
		}
		ui := u.Data[i*m : (i+1)*m]
		for j, v := range ui {
			q += l.alpha[j] * v * v
		}
		q += l.alphaStar                          // (A1)
		e := kss[i] - dot(phis.RawRowView(i), ui) // (A3)
		add(i, e*kr.Data[i]/q, e*e/q)             // (A2), (A4)
	}
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
