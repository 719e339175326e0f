package posterior

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

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
