package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// factorInv is factor for the sequential solver: the same factorisation
// (LAPACK's Dpotrf, then U⁻¹ by Dtrtri, diag Σ and ln|Σ|), bit for bit,
// without mat.Cholesky's estimate of the condition number, which is
// O(M²) but with a large constant (docs/benchmarks.md, "Measurements behind choices in the code"). U is kept in q.ufac for solveMeanInv, and q.chol is left
// empty. A precision that is not positive definite, or one that factor
// would factorise in blocks, is passed to factor, whose jitter it then
// gets. The result must match factor's exactly: the sequential fits are
// sensitive to rounding (solving for μ by two products with U⁻¹ instead
// of Dpotrs left a 6,000-row sinc fit, TestDefaultKernelEdges, short of
// ParamTol for minutes where it converges in about a minute).
func (q *gaussQ) factorInv(a *mat.SymDense, iter int) error {
	m := a.SymmetricDim()
	if q.Ctx != nil && m >= blockedMin {
		return q.factor(a, iter)
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
		return q.factor(a, iter)
	}
	q.ufac = resize(q.ufac, m*m)
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
		return &NotPositiveDefiniteError{Iteration: iter, Jitter: q.Jitter}
	}
	q.Diag = resize(q.Diag, m)
	for i := range m {
		row := ur.Data[i*ur.Stride+i : i*ur.Stride+m]
		q.Diag[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	return nil
}

// solveMeanInv sets μ = Σh with the factor U kept by factorInv, by the
// operations of mat.Cholesky.SolveVecTo (potrsVec), or, after factor, by
// solveMean.
func (q *gaussQ) solveMeanInv(h []float64) error {
	if q.Chol.IsEmpty() {
		m := len(h)
		q.Mu = resize(q.Mu, m)
		copy(q.Mu, h)
		potrsVec(q.ufac[:m*m], m, q.Mu)
		return nil
	}
	return q.solveMean(h)
}

// potrsVec solves UᵀU x = b in place for one right-hand side, U upper
// triangular m × m in a (row-major, stride m): the operations of gonum's
// Dpotrs (Dtrsm with Uᵀ, then with U), in the same order, so with the same
// rounding, without the call per element that Dtrsm makes for a single
// column.
func potrsVec(a []float64, m int, b []float64) {
	// Uᵀy = b: Dtrsm(Left, Upper, Trans, NonUnit).
	for k := range m {
		tmp := 1 / a[k*m+k]
		b[k] *= tmp
		bk := b[k]
		for ia, va := range a[k*m+k+1 : k*m+m] {
			if va != 0 {
				alpha := -va
				b[ia+k+1] += alpha * bk
			}
		}
	}
	// Ux = y: Dtrsm(Left, Upper, NoTrans, NonUnit).
	for i := m - 1; i >= 0; i-- {
		for ka, va := range a[i*m+i+1 : i*m+m] {
			if va != 0 {
				alpha := -va
				b[i] += alpha * b[ka+i+1]
			}
		}
		tmp := 1 / a[i*m+i]
		b[i] *= tmp
	}
}

// workDense returns an r × c matrix on the storage *buf, grown if need
// be; its contents are undefined. The work matrices of candidateStats
// (M × P at every full addition round) were most of the garbage of a
// Friedman #1 fit, and garbage raises the peak memory: the collector lets
// the heap grow to twice the live data (the N × P design) before it runs.
// A buffer grows by a quarter more than asked: C gains a row with every
// addition, and growing it to the size asked made a new M × P buffer at
// every full round after one; the N × M work matrices of the sweeps
// change shape with every addition and removal as well.
func workDense(buf *[]float64, r, c int) *mat.Dense {
	if r == 0 || c == 0 {
		return &mat.Dense{}
	}
	if n := r * c; cap(*buf) < n {
		*buf = make([]float64, n, n+n/4)
	}
	*buf = (*buf)[:r*c]
	return mat.NewDense(r, c, *buf)
}

// rowsShared reports whether the rows of B of the active functions are
// read from the full B in place instead of from a copy, B_A: with the
// explicit design and uniform precisions, where B_A is used only for
// products that the rows of B give as well. B_A is M × N there, and with
// its growth by append as much memory again as the N × P design's share
// of M functions, all of it
// live, which the garbage collector lets the heap exceed by as much.
func (s *seqFit) rowsShared() bool { return s.f.ident && s.uniform() }

// activeProducts sets out[i] = bₐᵀx for the active functions a = act[i]
// and out[M] = xᵀx (the column of G for a function with row x of B, added
// as the last active function).
func (s *seqFit) activeProducts(x, out []float64) {
	v := blas64.Vector{N: len(x), Inc: 1, Data: x}
	for i, a := range s.act {
		out[i] = blas64.Dot(blas64.Vector{N: len(x), Inc: 1, Data: s.f.bFull.RawRowView(a)}, v)
	}
	out[len(s.act)] = blas64.Dot(v, v)
}

// workSym returns an m × m symmetric matrix on the storage *buf (see
// workDense); its contents are undefined.
func workSym(buf *[]float64, m int) *mat.SymDense {
	if m == 0 {
		return &mat.SymDense{}
	}
	*buf = resize(*buf, m*m)
	return mat.NewSymDense(m, *buf)
}

// sigmaTo is sigma on storage kept between calls: it alternates between
// the two buffers of *bufs, so that the Σ it returned last stays valid
// until the next call but one (rebuild may compare it with its new one).
func (q *gaussQ) sigmaTo(bufs *[2][]float64) *mat.SymDense {
	m, _ := q.Uinv.Dims()
	bufs[0], bufs[1] = bufs[1], bufs[0]
	s := workSym(&bufs[0], m)
	raw, sr := q.Uinv.RawTriangular(), s.RawSymmetric()
	for i := range m {
		copy(sr.Data[i*sr.Stride+i:i*sr.Stride+m], raw.Data[i*raw.Stride+i:i*raw.Stride+m])
	}
	lapackgonum.Implementation{}.Dlauum(blas.Upper, m, sr.Data, max(1, sr.Stride))
	return s
}
