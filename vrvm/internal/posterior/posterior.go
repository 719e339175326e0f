// Package posterior holds the Gaussian posterior over the weights of a
// sparse Bayesian model, N(w | μ, Σ), through the Cholesky factor of its
// precision Σ⁻¹ = UᵀU: the factorisation (with jitter when the precision
// is not numerically positive definite, and in blocks, cancellable, for a
// large one), the mean μ = Σh, diag Σ, ln|Σ| and Σ itself. The solvers of
// package vrvm (its gaussQ) and of its internal packages share it. The
// package imports nothing of the library it serves.
package posterior

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Gauss is the Gaussian N(w | μ, Σ), held through the Cholesky factor of
// its precision Σ⁻¹ = UᵀU. Σ itself is not formed by Factor: diag Σ comes
// from U⁻¹ (Σ = U⁻¹U⁻ᵀ). The zero value is an empty posterior.
type Gauss struct {
	// Ctx, if not nil, is checked between the blocks of the O(M³)
	// factorisations of a large precision (M ≥ BlockedMin), so that a
	// cancellation does not wait for a whole factorisation; Factor then
	// returns the context's error and leaves q as it was.
	Ctx    context.Context
	Chol   mat.Cholesky
	Uinv   mat.TriDense // U⁻¹, upper triangular
	Mu     []float64
	Diag   []float64 // diag Σ
	LogDet float64   // ln|Σ|
	Jitter float64   // diagonal jitter added to the precision, 0 normally
	ufac   []float64 // U of the last FactorInv (Chol is then empty)
}

// NotPDError reports a precision that could not be factorised at
// iteration Iteration of a fit, with diagonal jitter up to Jitter tried
// (0: its entries are not finite, or its diagonal not positive). The
// facade reports it as its own error type.
type NotPDError struct {
	Iteration int
	Jitter    float64
}

func (e *NotPDError) Error() string {
	return fmt.Sprintf("posterior precision not positive definite at iteration %d (jitter %g)", e.Iteration, e.Jitter)
}

// MaxJitterTries bounds the jitter retries: the jitter starts at 1e-10
// times the mean diagonal of the precision and grows tenfold per try, up
// to 1e-4.
const MaxJitterTries = 7

// Factor factorises the precision a (which it may modify by adding
// jitter) and computes ln|Σ|, U⁻¹ and diag Σ. iter is used in errors
// (*NotPDError).
func (q *Gauss) Factor(a *mat.SymDense, iter int) error {
	m := a.SymmetricDim()
	if q.Ctx != nil && m >= BlockedMin {
		done, err := q.factorBlocked(a)
		if done || err != nil {
			return err
		}
	}
	q.Jitter = 0
	if !q.Chol.Factorize(a) {
		var mean float64
		for i := range m {
			mean += a.At(i, i)
		}
		mean /= float64(m)
		jit := 1e-10 * mean
		ok := false
		for range MaxJitterTries {
			for i := range m {
				a.SetSym(i, i, a.At(i, i)+jit-q.Jitter)
			}
			q.Jitter = jit
			if q.Chol.Factorize(a) {
				ok = true
				break
			}
			jit *= 10
		}
		if !ok || !(mean > 0) {
			return &NotPDError{Iteration: iter, Jitter: q.Jitter}
		}
	}
	q.LogDet = -q.Chol.LogDet()
	q.Uinv.Reset()
	q.Chol.UTo(&q.Uinv)
	if ok := lapack64.Trtri(q.Uinv.RawTriangular()); !ok {
		return &NotPDError{Iteration: iter, Jitter: q.Jitter}
	}
	if cap(q.Diag) < m {
		q.Diag = make([]float64, m)
	}
	q.Diag = q.Diag[:m]
	raw := q.Uinv.RawTriangular()
	for i := range m {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+m]
		q.Diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	if math.IsNaN(q.LogDet) || math.IsInf(q.LogDet, 0) {
		return &NotPDError{Iteration: iter, Jitter: q.Jitter}
	}
	return nil
}

// BlockedMin is the size from which Factor works in blocks of BlockSize
// rows and columns, checking q.Ctx between them.
const (
	BlockedMin = 512
	BlockSize  = 128
)

// factorBlocked is Factor for a large precision: a right-looking blocked
// Cholesky factorisation A = UᵀU and the inversion of U by block columns,
// with q.Ctx checked between blocks. It reports done = false, with q
// untouched, if A is not positive definite (Factor then retries with
// jitter), and the context's error if it was cancelled.
func (q *Gauss) factorBlocked(a *mat.SymDense) (done bool, err error) {
	n := a.SymmetricDim()
	u := mat.NewTriDense(n, mat.Upper, nil)
	ur, ar := u.RawTriangular(), a.RawSymmetric()
	for i := range n {
		copy(ur.Data[i*ur.Stride+i:i*ur.Stride+n], ar.Data[i*ar.Stride+i:i*ar.Stride+n])
	}
	for j := 0; j < n; j += BlockSize {
		if err := q.Ctx.Err(); err != nil {
			return false, err
		}
		jb := min(BlockSize, n-j)
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
	for k0 := 0; k0 < n; k0 += BlockSize {
		if err := q.Ctx.Err(); err != nil {
			return false, err
		}
		k1 := min(k0+BlockSize, n)
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
	q.Chol, q.Jitter, q.LogDet = chol, 0, logDet
	q.Uinv.SetRawTriangular(ir)
	if cap(q.Diag) < n {
		q.Diag = make([]float64, n)
	}
	q.Diag = q.Diag[:n]
	for i := range n {
		row := ir.Data[i*ir.Stride+i : i*ir.Stride+n]
		q.Diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	return true, nil
}

// SolveMean sets μ = Σ h.
func (q *Gauss) SolveMean(h []float64) error {
	m := len(h)
	if cap(q.Mu) < m {
		q.Mu = make([]float64, m)
	}
	q.Mu = q.Mu[:m]
	dst := mat.NewVecDense(m, q.Mu)
	return ConditionOK(q.Chol.SolveVecTo(dst, mat.NewVecDense(m, h)))
}

// ConditionOK drops gonum's mat.Condition warning: the solution of an
// ill-conditioned but factorised system is still computed, and the
// posterior's accuracy is judged by the bound, not by the condition number.
func ConditionOK(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		return nil
	}
	return err
}

// Sigma returns Σ = U⁻¹U⁻ᵀ, by LAPACK's Dlauum (m³/3 flops, blocked: a
// fraction of a second at m = 2000, where SymOuterK took seconds).
func (q *Gauss) Sigma() *mat.SymDense {
	m, _ := q.Uinv.Dims()
	s := mat.NewSymDense(m, nil)
	raw, sr := q.Uinv.RawTriangular(), s.RawSymmetric()
	for i := range m {
		copy(sr.Data[i*sr.Stride+i:i*sr.Stride+m], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
	}
	lapackgonum.Implementation{}.Dlauum(blas.Upper, m, sr.Data, max(1, sr.Stride))
	return s
}

// FactorInv is Factor for the sequential solver: the same factorisation
// (LAPACK's Dpotrf, then U⁻¹ by Dtrtri, diag Σ and ln|Σ|), bit for bit,
// without mat.Cholesky's estimate of the condition number, which is
// O(M²) but with a large constant (docs/benchmarks.md, "Measurements behind choices in the code"). U is kept for SolveMeanInv, and q.Chol is left
// empty. A precision that is not positive definite, or one that Factor
// would factorise in blocks, is passed to Factor, whose jitter it then
// gets. The result must match Factor's exactly: the sequential fits are
// sensitive to rounding (solving for μ by two products with U⁻¹ instead
// of Dpotrs left a 6,000-row sinc fit, TestDefaultKernelEdges, short of
// ParamTol for minutes where it converges in about a minute).
func (q *Gauss) FactorInv(a *mat.SymDense, iter int) error {
	m := a.SymmetricDim()
	if q.Ctx != nil && m >= BlockedMin {
		return q.Factor(a, iter)
	}
	buf := q.Uinv.RawTriangular().Data
	if cap(buf) < m*m {
		buf = make([]float64, m*m)
	}
	ur := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: buf[:m*m]}
	ar := a.RawSymmetric()
	for i := range m {
		copy(ur.Data[i*ur.Stride+i:i*ur.Stride+m], ar.Data[i*ar.Stride+i:i*ar.Stride+m])
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: ur.Stride, Data: ur.Data}); !ok {
		return q.Factor(a, iter)
	}
	q.ufac = vec.Resize(q.ufac, m*m)
	copy(q.ufac, ur.Data)
	q.Uinv.SetRawTriangular(ur)
	q.Chol.Reset()
	q.Jitter = 0
	var det float64 // as mat.Cholesky.LogDet
	for i := range m {
		det += 2 * math.Log(ur.Data[i*ur.Stride+i])
	}
	q.LogDet = -det
	if ok := lapack64.Trtri(ur); !ok || math.IsNaN(q.LogDet) || math.IsInf(q.LogDet, 0) {
		return &NotPDError{Iteration: iter, Jitter: q.Jitter}
	}
	q.Diag = vec.Resize(q.Diag, m)
	for i := range m {
		row := ur.Data[i*ur.Stride+i : i*ur.Stride+m]
		q.Diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	return nil
}

// SolveMeanInv sets μ = Σh with the factor U kept by FactorInv, by the
// operations of mat.Cholesky.SolveVecTo (PotrsVec), or, after Factor, by
// SolveMean.
func (q *Gauss) SolveMeanInv(h []float64) error {
	if q.Chol.IsEmpty() {
		m := len(h)
		q.Mu = vec.Resize(q.Mu, m)
		copy(q.Mu, h)
		PotrsVec(q.ufac[:m*m], m, q.Mu)
		return nil
	}
	return q.SolveMean(h)
}

// SigmaTo is Sigma on storage kept between calls: it alternates between
// the two buffers of *bufs, so that the Σ it returned last stays valid
// until the next call but one (rebuild may compare it with its new one).
func (q *Gauss) SigmaTo(bufs *[2][]float64) *mat.SymDense {
	m, _ := q.Uinv.Dims()
	bufs[0], bufs[1] = bufs[1], bufs[0]
	s := vec.WorkSym(&bufs[0], m)
	raw, sr := q.Uinv.RawTriangular(), s.RawSymmetric()
	for i := range m {
		copy(sr.Data[i*sr.Stride+i:i*sr.Stride+m], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
	}
	lapackgonum.Implementation{}.Dlauum(blas.Upper, m, sr.Data, max(1, sr.Stride))
	return s
}

// QuadForms sets out[n] = φₙᵀ Σ φₙ for the rows φₙ of phi, using
// ‖φₙᵀ U⁻¹‖². work must be a scratch matrix of phi's shape (or nil).
func (q *Gauss) QuadForms(out []float64, phi *mat.Dense, work *mat.Dense) *mat.Dense {
	n, m := phi.Dims()
	if n == 0 || m == 0 {
		for i := range n {
			out[i] = 0
		}
		return work
	}
	work = vec.MulTri(work, phi, q.Uinv.RawTriangular())
	for i := range n {
		row := work.RawRowView(i)
		out[i] = blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: row}, blas64.Vector{N: m, Inc: 1, Data: row})
	}
	return work
}

// SecondMoment returns ⟨wₘ²⟩ = μₘ² + Σₘₘ.
func (q *Gauss) SecondMoment(m int) float64 { return q.Mu[m]*q.Mu[m] + q.Diag[m] }

// SecondMoments returns ⟨wₘ²⟩ = μₘ² + Σₘₘ for every m.
func (q *Gauss) SecondMoments() []float64 {
	w2 := make([]float64, len(q.Mu))
	for m := range w2 {
		w2[m] = q.SecondMoment(m)
	}
	return w2
}

// EffectiveParams returns γ = Σₘ(1 − αₘΣₘₘ) for the precisions alpha and
// the posterior covariance sigma of the same weights.
func EffectiveParams(alpha []float64, sigma mat.Symmetric) float64 {
	g := float64(len(alpha))
	for m, a := range alpha {
		g -= a * sigma.At(m, m)
	}
	return g
}
