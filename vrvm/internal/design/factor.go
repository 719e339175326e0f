package design

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// Factor is the factorisation Φ = U Bᵀ, UᵀU = I, of the design over the
// active basis functions (U is N × r, B is M × r, row m of B belonging to
// function m); Ident marks the explicit design, U = I and B = Φᵀ. The
// facade builds it (its factor.go: pivoted Cholesky of the kernel matrix,
// or QR); the sequential and Newton solvers work on it.
type Factor struct {
	U    *mat.Dense // N × r, orthonormal columns
	B    *mat.Dense // M × r, one row per active function
	Cols []int      // active functions, indices into the full basis
	// UFull and BFull keep the factorisation of every candidate function,
	// for the bound contribution of excluded functions.
	UFull, BFull *mat.Dense
	// Ident marks the explicit design (the facade's newSeqDesign): U = I, not stored
	// (U and UFull are nil), B = Φᵀ.
	Ident bool
	// twin is the mask of twins of BFull (TwinMask), computed once for
	// every start of the sequential solver on this factor.
	twin []bool
}

// Weights is the part of a likelihood (package likelihood's Likelihood)
// that the candidates' precisions dⱼ = φⱼᵀBφⱼ need: the precisions βₙ of
// B = diag βₙ, or, when every βₙ is the same, nil and that value.
type Weights interface {
	Weights() (beta []float64, uniform float64)
}

// TwinMask returns the candidates whose row of BFull is a twin of an
// earlier one (Twins), computed at the first call. The mask is shared:
// callers do not modify it.
func (f *Factor) TwinMask() []bool {
	if f.twin == nil {
		f.twin = Twins(f.BFull)
	}
	return f.twin
}

// ThinQR returns the thin QR factorisation a = QR of an n × k matrix with
// n ≥ k: Q is n × k with orthonormal columns, R is k × k upper triangular.
func ThinQR(a *mat.Dense) (q, r *mat.Dense) {
	_, k := a.Dims()
	q = mat.DenseCopyOf(a)
	qm := q.RawMatrix()
	tau := make([]float64, k)
	work := []float64{0}
	lapack64.Geqrf(qm, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapack64.Geqrf(qm, tau, work, len(work))
	r = mat.NewDense(max(k, 1), max(k, 1), nil)
	if k == 0 {
		return q, mat.NewDense(0, 0, nil)
	}
	for i := range k {
		copy(r.RawRowView(i)[i:], qm.Data[i*qm.Stride+i:i*qm.Stride+k])
	}
	lapack64.Orgqr(qm, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapack64.Orgqr(qm, tau, work, len(work))
	return q, r
}

// Diagonal returns dⱼ = φⱼᵀBφⱼ for every candidate function j (the
// likelihood's precisions B = diag βₙ): bⱼᵀW̃bⱼ with W̃ = UᵀBU (βI when
// the precisions are uniform), from the rows of B W̃, O(N r² + P r²); for
// the explicit design with non-uniform precisions, whose B W̃ would be
// P × N, as large as the design, one row at a time (explicitDiag). It
// changes only with the likelihood's factor.
func (f *Factor) Diagonal(lik Weights) []float64 {
	bf := f.BFull
	p, r := bf.Dims()
	dv := make([]float64, p)
	if p == 0 || r == 0 {
		return dv
	}
	beta, uni := lik.Weights()
	switch {
	case beta == nil:
		row := make([]float64, r)
		for j := range p {
			src := bf.RawRowView(j)
			for n, v := range src {
				row[n] = uni * v
			}
			dv[j] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: src}, blas64.Vector{N: r, Inc: 1, Data: row})
		}
	case f.Ident:
		return f.explicitDiag(beta)
	default:
		// Gemm rather than Symm: dense.Gemm is blocked, vectorised and
		// runs on all processors, and these two products dominate.
		wt := f.WeightedGram(beta)
		bw := mat.NewDense(p, r, nil)
		dense.Gemm(blas.NoTrans, blas.NoTrans, 1, bf.RawMatrix(), wt.RawMatrix(), 0, bw.RawMatrix())
		for j := range p {
			dv[j] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: bf.RawRowView(j)}, blas64.Vector{N: r, Inc: 1, Data: bw.RawRowView(j)})
		}
	}
	return dv
}

// ScaleBy sets dst[n] = beta[n]·src[n].
func ScaleBy(dst, beta, src []float64) {
	for n, v := range src {
		dst[n] = beta[n] * v
	}
}

// explicitDiag returns dⱼ = φⱼᵀBφⱼ = Σₙ βₙBⱼₙ² of the explicit design
// (B = Φᵀ) for the precisions beta, a row of B W̃ at a time: O(N)
// memory, not P × N (the same products, in the same order, as the whole
// B W̃ gave before it was no longer formed).
func (f *Factor) explicitDiag(beta []float64) []float64 {
	bf := f.BFull
	p, r := bf.Dims()
	dv := make([]float64, p)
	row := make([]float64, r)
	for j := range p {
		dv[j] = WeightedSquare(row, beta, bf.RawRowView(j))
	}
	return dv
}

// WeightedSquare returns Σₙ βₙsrcₙ², a dⱼ = φⱼᵀBφⱼ for the row src of
// B = Φᵀ, leaving the row of B W̃, β∘src, in row.
func WeightedSquare(row, beta, src []float64) float64 {
	ScaleBy(row, beta, src)
	return blas64.Dot(blas64.Vector{N: len(src), Inc: 1, Data: src}, blas64.Vector{N: len(src), Inc: 1, Data: row})
}

// Project returns Uᵀd.
func (f *Factor) Project(d []float64) []float64 {
	n, r := f.U.Dims()
	out := make([]float64, r)
	blas64.Gemv(blas.Trans, 1, f.U.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: d}, 0, blas64.Vector{N: r, Inc: 1, Data: out})
	return out
}

// WeightedGram returns UᵀWU = (W^½U)ᵀ(W^½U) for the precisions beta of W.
func (f *Factor) WeightedGram(beta []float64) *mat.Dense {
	n, r := f.UFull.Dims()
	uw := mat.NewDense(n, r, nil)
	for i := range n {
		src, dst := f.UFull.RawRowView(i), uw.RawRowView(i)
		s := math.Sqrt(beta[i])
		for j, v := range src {
			dst[j] = s * v
		}
	}
	return vec.GramBlocks(uw)
}

// WeightedDiag returns dⱼ = φⱼᵀWφⱼ = bⱼᵀ(UᵀWU)bⱼ for every candidate of
// the factored design (not the explicit one) with non-uniform precisions,
// as ‖Lᵀbⱼ‖² with UᵀWU = LLᵀ: half the flops of forming B W̃ (Diagonal).
// If UᵀWU is not numerically positive definite it falls back to Diagonal.
func (f *Factor) WeightedDiag(lik Weights) []float64 {
	beta, _ := lik.Weights()
	bf := f.BFull
	p, r := bf.Dims()
	if beta == nil || f.Ident || p == 0 || r == 0 {
		return f.Diagonal(lik)
	}
	wt := f.WeightedGram(beta)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(r, wt.RawMatrix().Data)) {
		return f.Diagonal(lik)
	}
	var l mat.TriDense
	ch.LTo(&l)
	y := vec.MulTri(nil, bf, l.RawTriangular())
	dv := make([]float64, p)
	for j := range p {
		row := y.RawRowView(j)
		dv[j] = vec.Dot(row, row)
	}
	return dv
}

// DenseFactor is the exact factorisation of an explicit design: Φ = QR,
// U = Q, B = Rᵀ if M ≤ N; U = I, B = Φᵀ otherwise.
func DenseFactor(phi *mat.Dense) *Factor {
	n, m := phi.Dims()
	var u, b *mat.Dense
	if m <= n {
		var r *mat.Dense
		u, r = ThinQR(phi)
		b = mat.DenseCopyOf(r.T())
	} else {
		u = mat.NewDense(n, n, nil)
		for i := range n {
			u.Set(i, i, 1)
		}
		b = mat.DenseCopyOf(phi.T())
	}
	cols := make([]int, m)
	for j := range cols {
		cols[j] = j
	}
	return &Factor{U: u, B: b, Cols: cols, UFull: u, BFull: b}
}
