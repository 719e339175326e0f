package vrvm

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// gaussQ is the Gaussian factor Q_w(w) = N(w | μ, Σ) (20), held through the
// Cholesky factor of its precision Σ⁻¹ = UᵀU. Σ itself is never formed
// during iterations: diag Σ comes from U⁻¹ (Σ = U⁻¹U⁻ᵀ).
type gaussQ struct {
	chol   mat.Cholesky
	uinv   mat.TriDense // U⁻¹, upper triangular
	mu     []float64
	diag   []float64 // diag Σ
	logDet float64   // ln|Σ|
	jitter float64   // diagonal jitter added to the precision, 0 normally
}

// maxJitterTries bounds the jitter retries: the jitter starts at 1e-10 times
// the mean diagonal of the precision and grows tenfold per try, up to 1e-4.
const maxJitterTries = 7

// factor factorises the precision a (which it may modify by adding jitter)
// and computes ln|Σ|, U⁻¹ and diag Σ. iter is used in error messages.
func (q *gaussQ) factor(a *mat.SymDense, iter int) error {
	m := a.SymmetricDim()
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
	if work == nil || work.IsEmpty() {
		work = mat.NewDense(n, m, nil)
	} else if r, c := work.Dims(); r != n || c != m {
		work = mat.NewDense(n, m, nil)
	}
	work.Copy(phi)
	blas64.Trmm(blas.Right, blas.NoTrans, 1, q.uinv.RawTriangular(), work.RawMatrix())
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
