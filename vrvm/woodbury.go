package vrvm

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// woodQ is Q_w = N(μ, Σ) (20) for a Gaussian likelihood written in the
// factored design Φ = U Bᵀ: precision Σ⁻¹ = A + BΩBᵀ with A = diag⟨α⟩ and
// linear term h = Bη, where Ω and η live in the r-dimensional column space
// of U. Regression (23)–(24) has Ω = ⟨τ⟩I, η = ⟨τ⟩Uᵀt; classification
// (54)–(55) with ξ fixed has Ω = 2UᵀΛ(ξ)U, η = Uᵀ(t − ½). By the Woodbury
// identity, with K = Ω⁻¹ + BᵀA⁻¹B (r × r, positive definite),
//
//	Σ = A⁻¹ − A⁻¹BK⁻¹BᵀA⁻¹,       μ = A⁻¹BK⁻¹Ω⁻¹η,
//	BᵀΣB = Ω⁻¹ − Ω⁻¹K⁻¹Ω⁻¹,       ln|Σ| = −Σₘ ln αₘ − ln|Ω| − ln|K|.
//
// Solving costs O(M r²) instead of the O(M³) of a dense Cholesky.
type woodQ struct {
	alpha []float64
	chol  mat.Cholesky // K = UᵀU (gonum's upper factor)
	v     []float64    // K⁻¹Ω⁻¹η
	mu    []float64
	diag  []float64 // diag Σ
	z     []float64 // Bᵀμ
	y     *mat.SymDense
	x     *mat.Dense // A^(−1/2) B U_K⁻¹: Σ = A⁻¹ − A^(−1/2) X Xᵀ A^(−1/2)
	ld    float64    // ln|Σ|
	xs    *mat.Dense // scratch of x's shape
	tau   []float64
	work  []float64
}

// solve computes Q_w for prior precisions alpha, Ω⁻¹ (omegaInv) given with
// a factor F, FᵀF = Ω⁻¹ (omegaInvF), ln|Ω| and Ω⁻¹η (etaP). It reports
// false if K is singular to working precision.
//
// K is factorised by Cholesky from its normal equations when its condition
// number is below 1e8, and otherwise as the R of the QR factorisation of
// the stacked matrix [A^(−1/2)B; F] (factorQR), which does not square the
// condition number; K is ill-conditioned when ⟨τ⟩ or some 1/⟨αₘ⟩ is large
// (near-noiseless data, well-determined weights).
func (w *woodQ) solve(b *mat.Dense, alpha []float64, omegaInv *mat.SymDense, omegaInvF *mat.Dense, logDetOmega float64, etaP []float64) bool {
	m, r := b.Dims()
	w.alpha = alpha
	if w.x == nil {
		w.x = mat.NewDense(max(m, 1), max(r, 1), nil)
	}
	if rm, rc := w.x.Dims(); rm != m || rc != r {
		w.x = mat.NewDense(m, r, nil)
	}
	for i := range m {
		f := 1 / math.Sqrt(alpha[i])
		src, dst := b.RawRowView(i), w.x.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	// K = Ω⁻¹ + BᵀA⁻¹B by its normal equations if that is accurate
	// enough, else by QR.
	k := mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, w.x.RawMatrix(), 0, k.RawSymmetric())
	k.AddSym(k, omegaInv)
	w.chol.Reset()
	ok := w.chol.Factorize(k)
	if ok {
		// The normal equations lose about log10 κ(K) digits.
		if c := w.chol.Cond(); c > 1e8 || math.IsNaN(c) {
			ok = false
		}
	}
	if !ok && !w.factorQR(m, r, omegaInvF) {
		return false
	}
	var uk mat.TriDense
	w.chol.UTo(&uk)
	w.v = resize(w.v, r)
	if err := w.chol.SolveVecTo(mat.NewVecDense(r, w.v), mat.NewVecDense(r, etaP)); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return false
		}
	}
	w.mu = resize(w.mu, m)
	blas64.Gemv(blas.NoTrans, 1, b.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: w.v}, 0, blas64.Vector{N: m, Inc: 1, Data: w.mu})
	for i := range m {
		w.mu[i] /= alpha[i]
	}
	w.z = resize(w.z, r)
	blas64.Gemv(blas.Trans, 1, b.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: w.mu}, 0, blas64.Vector{N: r, Inc: 1, Data: w.z})
	// X = A^(−1/2) B U_K⁻¹ and Σₘₘ = (1 − ‖xₘ‖²)/αₘ.
	var ukInv mat.TriDense
	if err := ukInv.InverseTri(&uk); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return false
		}
	}
	ui := mat.NewDense(r, r, nil)
	ui.Copy(&ukInv)
	if w.xs == nil {
		w.xs = mat.NewDense(m, r, nil)
	} else if rm, rc := w.xs.Dims(); rm != m || rc != r {
		w.xs = mat.NewDense(m, r, nil)
	}
	w.xs.Mul(w.x, ui)
	w.x, w.xs = w.xs, w.x
	w.diag = resize(w.diag, m)
	var sumLogA float64
	for i := range m {
		row := w.x.RawRowView(i)
		s := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: row}, blas64.Vector{N: r, Inc: 1, Data: row})
		w.diag[i] = math.Max(0, 1-s) / alpha[i]
		sumLogA += math.Log(alpha[i])
	}
	// BᵀΣB = Ω⁻¹ − ZᵀZ with Z = U_K⁻ᵀ Ω⁻¹.
	zm := mat.NewDense(r, r, nil)
	zm.Copy(omegaInv)
	blas64.Trsm(blas.Left, blas.Trans, 1, uk.RawTriangular(), zm.RawMatrix())
	if w.y == nil || w.y.SymmetricDim() != r {
		w.y = mat.NewSymDense(r, nil)
	}
	blas64.Syrk(blas.Trans, -1, zm.RawMatrix(), 0, w.y.RawSymmetric())
	w.y.AddSym(w.y, omegaInv)
	w.ld = -sumLogA - logDetOmega - w.chol.LogDet()
	return !math.IsNaN(w.ld) && !math.IsInf(w.ld, 0)
}

// secondMoments returns ⟨wₘ²⟩ = μₘ² + Σₘₘ for every m.
func (w *woodQ) secondMoments() []float64 {
	w2 := make([]float64, len(w.mu))
	for m := range w2 {
		w2[m] = w.mu[m]*w.mu[m] + w.diag[m]
	}
	return w2
}

// sigma returns Σ = A⁻¹ − A^(−1/2) X Xᵀ A^(−1/2) explicitly.
func (w *woodQ) sigma() *mat.SymDense {
	m, _ := w.x.Dims()
	s := mat.NewSymDense(m, nil)
	blas64.Syrk(blas.NoTrans, -1, w.x.RawMatrix(), 0, s.RawSymmetric())
	raw := s.RawSymmetric()
	for i := range m {
		fi := 1 / math.Sqrt(w.alpha[i])
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		for j := i; j < m; j++ {
			row[j] *= fi / math.Sqrt(w.alpha[j])
		}
		row[i] += 1 / w.alpha[i]
	}
	return s
}

// factorQR sets w.chol to the factor R of the QR factorisation of the
// stacked matrix [X̂; F], with X̂ = A^(−1/2)B in w.x: K = RᵀR without
// forming X̂ᵀX̂, whose condition number is that of K squared.
func (w *woodQ) factorQR(m, r int, omegaInvF *mat.Dense) bool {
	st := mat.NewDense(m+r, r, nil)
	for i := range m {
		copy(st.RawRowView(i), w.x.RawRowView(i))
	}
	for i := range r {
		copy(st.RawRowView(m+i), omegaInvF.RawRowView(i))
	}
	raw := st.RawMatrix()
	w.tau = resize(w.tau, r)
	work := []float64{0}
	lapack64.Geqrf(raw, w.tau, work, -1)
	w.work = resize(w.work, int(work[0]))
	lapack64.Geqrf(raw, w.tau, w.work, len(w.work))
	uk := mat.NewTriDense(r, mat.Upper, nil)
	for i := range r {
		row := raw.Data[i*raw.Stride : i*raw.Stride+r]
		sign := 1.0
		if row[i] < 0 {
			sign = -1
		}
		if !(math.Abs(row[i]) > 0) {
			return false
		}
		for j := i; j < r; j++ {
			uk.SetTri(i, j, sign*row[j])
		}
	}
	w.chol.Reset()
	w.chol.SetFromU(uk)
	return true
}
