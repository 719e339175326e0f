package posterior

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// QuadGemmMin is the number of rows of C from which quadForms uses one
// dense.Gemm.
const QuadGemmMin = 64

// QuadForms sets out[j] = cⱼᵀΣcⱼ for the columns cⱼ of c (M × p), from the
// upper triangle of Σ, as Σᵢ cᵢⱼ (ΣC)ᵢⱼ with ΣC by one dense.Gemm (Σ
// filled on both sides from its upper triangle): twice the products of
// the Axpy loop over the upper triangle it replaces, but faster on many
// active functions. Below quadGemmMin active functions it calls
// QuadFormsAxpy, which costs less there (docs/benchmarks.md, "Measurements behind choices in the code").
// Σ filled and ΣC are written on work, kept by the caller between calls
// (every value of both is written before it is read).
func QuadForms(sig blas64.Symmetric, c *mat.Dense, out []float64, work *[]float64) {
	m, p := c.Dims()
	if m < QuadGemmMin {
		QuadFormsAxpy(sig, c, out)
		return
	}
	clear(out[:p])
	if m == 0 || p == 0 {
		return
	}
	wd := vec.WorkDense(work, m, m+p).RawMatrix().Data
	full := mat.NewDense(m, m, wd[:m*m])
	fd := full.RawMatrix().Data
	for i := range m {
		copy(fd[i*m+i:(i+1)*m], sig.Data[i*sig.Stride+i:i*sig.Stride+m])
		for k := i + 1; k < m; k++ {
			fd[k*m+i] = fd[i*m+k]
		}
	}
	t := mat.NewDense(m, p, wd[m*m:])
	dense.Gemm(blas.NoTrans, blas.NoTrans, 1, full.RawMatrix(), c.RawMatrix(), 0, t.RawMatrix())
	for i := range m {
		ci, ti := c.RawRowView(i), t.RawRowView(i)
		for j := range p {
			out[j] += ci[j] * ti[j]
		}
	}
}

// QuadBlock is the number of columns of C that quadFormsAxpy takes at a
// time.
const QuadBlock = 256

// QuadFormsAxpy sets out[j] = cⱼᵀΣcⱼ for the columns cⱼ of c (M × p), from the
// upper triangle of Σ, as Σᵢ cᵢⱼ (Σᵢᵢcᵢⱼ + 2tᵢⱼ) with tᵢ = Σₖ₍ₖ₎ᵢ₎ Σᵢₖ cₖ,
// by blocks of quadBlock columns, in parallel over the blocks: half the
// products of the Gemm Σ C (gonum's blocked Gemm, one Axpy per block of
// 64, was slower (docs/benchmarks.md, "Measurements behind choices in the code")).
func QuadFormsAxpy(sig blas64.Symmetric, c *mat.Dense, out []float64) {
	m, p := c.Dims()
	cr := c.RawMatrix()
	// The range is of 256 per block, so that design.ParallelRange (at most one
	// worker per 256) may split the blocks among the processors.
	blocks := (p + QuadBlock - 1) / QuadBlock
	_ = design.ParallelRange(blocks*256, func(blo, bhi int) error {
		t := make([]float64, QuadBlock)
		for b := blo / 256; b < bhi/256; b++ {
			lo, hi := b*QuadBlock, min(p, (b+1)*QuadBlock)
			QuadTile(sig, m, cr.Data[lo:], cr.Stride, hi-lo, out[lo:hi], t)
		}
		return nil
	})
}

// QuadTile sets o[j] = cⱼᵀΣcⱼ for the n columns of a block of C whose row
// k is c[k·stride : k·stride+n], as quadFormsAxpy computes them
// (Σᵢ cᵢⱼ (Σᵢᵢcᵢⱼ + 2tᵢⱼ), tᵢ = Σₖ₍ₖ₎ᵢ₎ Σᵢₖ cₖ, in that order: each
// row's terms by dense.QuadRow, whose tᵢ are the values of one Axpy per
// k); t is work space of at least n.
func QuadTile(sig blas64.Symmetric, m int, c []float64, stride, n int, o, t []float64) {
	clear(o)
	ws, offs := make([]float64, 0, m), make([]int, 0, m)
	for i := range m {
		ti := t[:n]
		row := sig.Data[i*sig.Stride : i*sig.Stride+m]
		ws, offs = ws[:0], offs[:0]
		for k := i + 1; k < m; k++ {
			if w := row[k]; w != 0 {
				ws, offs = append(ws, w), append(offs, k*stride)
			}
		}
		dense.QuadRow(o, c[i*stride:i*stride+n], ti, ws, offs, c, row[i])
	}
}

// PotrsVec solves UᵀU x = b in place for one right-hand side, U upper
// triangular m × m in a (row-major, stride m): the operations of gonum's
// Dpotrs (Dtrsm with Uᵀ, then with U), in the same order, so with the same
// rounding, without the call per element that Dtrsm makes for a single
// column.
func PotrsVec(a []float64, m int, b []float64) {
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

// SyrUpper is blas64.Syr on the upper triangle of a, a ← a + alpha·x xᵀ,
// one Axpy per row: the same products and sums as gonum's Dsyr, in half
// its time (its inner loop is not vectorised) (docs/benchmarks.md, "Measurements behind choices in the code"),
// by dense.Axpy (the values of blas64.Axpy, without its checks and calls).
func SyrUpper(alpha float64, x []float64, a blas64.Symmetric) {
	n := a.N
	for i := range n {
		if t := x[i] * alpha; t != 0 {
			dense.Axpy(t, x[i:n], a.Data[i*a.Stride+i:i*a.Stride+n])
		}
	}
}
