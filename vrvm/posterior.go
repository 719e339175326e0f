package vrvm

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The factors of the variational posterior over the weights and their
// precisions. Q_w is held in one of two forms: gaussQ (here), the Cholesky
// factor of its M × M precision, used by the paper's schedule, the
// sequential solver and the type-II RVM; and woodQ (woodbury.go), its
// low-rank Woodbury form on the factored design, used by the Newton
// solver.

// gaussQ is the Gaussian factor Q_w(w) = N(w | μ, Σ) (20), held through the
// Cholesky factor of its precision Σ⁻¹ = UᵀU. Σ itself is not formed by
// factor: diag Σ comes from U⁻¹ (Σ = U⁻¹U⁻ᵀ).
type gaussQ struct {
	// ctx, if not nil, is checked between the blocks of the O(M³)
	// factorisations of a large precision (M ≥ blockedMin), so that a
	// cancellation does not wait for a whole factorisation; factor then
	// returns the context's error and leaves q as it was.
	ctx    context.Context
	chol   mat.Cholesky
	uinv   mat.TriDense // U⁻¹, upper triangular
	mu     []float64
	diag   []float64 // diag Σ
	logDet float64   // ln|Σ|
	jitter float64   // diagonal jitter added to the precision, 0 normally
	ufac   []float64 // U of the last factorInv (q.chol is then empty)
}

// maxJitterTries bounds the jitter retries: the jitter starts at 1e-10 times
// the mean diagonal of the precision and grows tenfold per try, up to 1e-4.
const maxJitterTries = 7

// factor factorises the precision a (which it may modify by adding jitter)
// and computes ln|Σ|, U⁻¹ and diag Σ. iter is used in error messages.
func (q *gaussQ) factor(a *mat.SymDense, iter int) error {
	m := a.SymmetricDim()
	if q.ctx != nil && m >= blockedMin {
		done, err := q.factorBlocked(a)
		if done || err != nil {
			return err
		}
	}
	q.jitter = 0
	if !q.chol.Factorize(a) {
		var mean float64
		for i := range m {
			mean += a.At(i, i)
		}
		mean /= float64(m)
		jit := 1e-10 * mean
		ok := false
		for range maxJitterTries {
			for i := range m {
				a.SetSym(i, i, a.At(i, i)+jit-q.jitter)
			}
			q.jitter = jit
			if q.chol.Factorize(a) {
				ok = true
				break
			}
			jit *= 10
		}
		if !ok || !(mean > 0) {
			return &NotPositiveDefiniteError{Iteration: iter, Jitter: q.jitter}
		}
	}
	q.logDet = -q.chol.LogDet()
	q.uinv.Reset()
	q.chol.UTo(&q.uinv)
	if ok := lapack64.Trtri(q.uinv.RawTriangular()); !ok {
		return &NotPositiveDefiniteError{Iteration: iter, Jitter: q.jitter}
	}
	if cap(q.diag) < m {
		q.diag = make([]float64, m)
	}
	q.diag = q.diag[:m]
	raw := q.uinv.RawTriangular()
	for i := range m {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+m]
		q.diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	if math.IsNaN(q.logDet) || math.IsInf(q.logDet, 0) {
		return &NotPositiveDefiniteError{Iteration: iter, Jitter: q.jitter}
	}
	return nil
}

// blockedMin is the size from which factor works in blocks of blockSize
// rows and columns, checking q.ctx between them.
const (
	blockedMin = 512
	blockSize  = 128
)

// factorBlocked is factor for a large precision: a right-looking blocked
// Cholesky factorisation A = UᵀU and the inversion of U by block columns,
// with q.ctx checked between blocks. It reports done = false, with q
// untouched, if A is not positive definite (factor then retries with
// jitter), and the context's error if it was cancelled.
func (q *gaussQ) factorBlocked(a *mat.SymDense) (done bool, err error) {
	n := a.SymmetricDim()
	u := mat.NewTriDense(n, mat.Upper, nil)
	ur, ar := u.RawTriangular(), a.RawSymmetric()
	for i := range n {
		copy(ur.Data[i*ur.Stride+i:i*ur.Stride+n], ar.Data[i*ar.Stride+i:i*ar.Stride+n])
	}
	for j := 0; j < n; j += blockSize {
		if err := q.ctx.Err(); err != nil {
			return false, err
		}
		jb := min(blockSize, n-j)
		a11, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: jb, Stride: ur.Stride, Data: ur.Data[j*ur.Stride+j:]})
		if !ok {
			return false, nil
		}
		if rest := n - j - jb; rest > 0 {
			a12 := blas64.General{Rows: jb, Cols: rest, Stride: ur.Stride, Data: ur.Data[j*ur.Stride+j+jb:]}
			blas64.Trsm(blas.Left, blas.Trans, 1, a11, a12)
			a22 := blas64.Symmetric{Uplo: blas.Upper, N: rest, Stride: ur.Stride, Data: ur.Data[(j+jb)*ur.Stride+j+jb:]}
			blas64.Syrk(blas.Trans, -1, a12, 1, a22)
		}
	}
	// U⁻¹ by block columns: column block k solves U[:k₁,:k₁] X = I[:k₁, k₀:k₁].
	inv := mat.NewTriDense(n, mat.Upper, nil)
	ir := inv.RawTriangular()
	for k0 := 0; k0 < n; k0 += blockSize {
		if err := q.ctx.Err(); err != nil {
			return false, err
		}
		k1 := min(k0+blockSize, n)
		b := mat.NewDense(k1, k1-k0, nil)
		for i := k0; i < k1; i++ {
			b.Set(i, i-k0, 1)
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k1, Stride: ur.Stride, Data: ur.Data}, b.RawMatrix())
		for i := range k1 {
			for c := max(i, k0); c < k1; c++ {
				ir.Data[i*ir.Stride+c] = b.At(i, c-k0)
			}
		}
	}
	var chol mat.Cholesky
	chol.SetFromU(u)
	logDet := -chol.LogDet()
	if math.IsNaN(logDet) || math.IsInf(logDet, 0) {
		return false, nil
	}
	q.chol, q.jitter, q.logDet = chol, 0, logDet
	q.uinv.SetRawTriangular(ir)
	q.diag = resize(q.diag, n)
	for i := range n {
		row := ir.Data[i*ir.Stride+i : i*ir.Stride+n]
		q.diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	return true, nil
}

// solveMean sets μ = Σ h.
func (q *gaussQ) solveMean(h []float64) error {
	m := len(h)
	if cap(q.mu) < m {
		q.mu = make([]float64, m)
	}
	q.mu = q.mu[:m]
	dst := mat.NewVecDense(m, q.mu)
	return conditionOK(q.chol.SolveVecTo(dst, mat.NewVecDense(m, h)))
}

// conditionOK drops gonum's mat.Condition warning: the solution of an
// ill-conditioned but factorised system is still computed, and the
// posterior's accuracy is judged by the bound, not by the condition number.
func conditionOK(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		return nil
	}
	return err
}

// quadForms sets out[n] = φₙᵀ Σ φₙ for the rows φₙ of phi, using
// ‖φₙᵀ U⁻¹‖². work must be a scratch matrix of phi's shape (or nil).
func (q *gaussQ) quadForms(out []float64, phi *mat.Dense, work *mat.Dense) *mat.Dense {
	n, m := phi.Dims()
	if n == 0 || m == 0 {
		for i := range n {
			out[i] = 0
		}
		return work
	}
	work = mulTri(work, phi, q.uinv.RawTriangular())
	for i := range n {
		row := work.RawRowView(i)
		out[i] = blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: row}, blas64.Vector{N: m, Inc: 1, Data: row})
	}
	return work
}

// sigma returns Σ = U⁻¹U⁻ᵀ, by LAPACK's Dlauum (m³/3 flops, blocked: a
// fraction of a second at m = 2000, where SymOuterK took seconds).
func (q *gaussQ) sigma() *mat.SymDense {
	m, _ := q.uinv.Dims()
	s := mat.NewSymDense(m, nil)
	raw, sr := q.uinv.RawTriangular(), s.RawSymmetric()
	for i := range m {
		copy(sr.Data[i*sr.Stride+i:i*sr.Stride+m], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
	}
	lapackgonum.Implementation{}.Dlauum(blas.Upper, m, sr.Data, max(1, sr.Stride))
	return s
}

// secondMoment returns ⟨wₘ²⟩ = μₘ² + Σₘₘ.
func (q *gaussQ) secondMoment(m int) float64 { return q.mu[m]*q.mu[m] + q.diag[m] }

// secondMoments returns ⟨wₘ²⟩ = μₘ² + Σₘₘ for every m.
func (q *gaussQ) secondMoments() []float64 {
	w2 := make([]float64, len(q.mu))
	for m := range w2 {
		w2[m] = q.secondMoment(m)
	}
	return w2
}

// gammaQ is a product of Gamma factors Q_α(α) = ∏ₘ Γ(αₘ | ã, b̃ₘ) (22), (56).
type gammaQ struct {
	at float64   // ãₘ = a + ½ for every m (25), (57)
	bt []float64 // b̃ₘ
}

// gammaOf returns the Q_α with ã = a + ½ and means ⟨αₘ⟩ = alpha[m].
func gammaOf(p Prior, alpha []float64) gammaQ {
	g := gammaQ{at: p.A + 0.5, bt: make([]float64, len(alpha))}
	for i, a := range alpha {
		g.bt[i] = g.at / a
	}
	return g
}

// mean returns ⟨αₘ⟩ = ã/b̃ₘ.
func (g *gammaQ) mean(m int) float64 { return g.at / g.bt[m] }

// means returns every ⟨αₘ⟩.
func (g *gammaQ) means() []float64 {
	a := make([]float64, len(g.bt))
	for i := range a {
		a[i] = g.mean(i)
	}
	return a
}

// update applies (25)/(57): ã = a + ½, b̃ₘ = b + ⟨wₘ²⟩/2.
func (g *gammaQ) update(p Prior, q *gaussQ) {
	g.at = p.A + 0.5
	for m := range g.bt {
		g.bt[m] = p.B + q.secondMoment(m)/2
	}
}

// bound returns L for Q_α = g, Q_w = q and the likelihood's terms lik.
func (g *gammaQ) bound(p Prior, q *gaussQ, lik [3]float64) float64 {
	return bound(p, g.at, g.bt, q.secondMoments(), q.logDet, lik)
}
