package vec

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// GramBlocks returns aᵀa (both triangles) by dense.Gram, which computes
// the tiles on and above the diagonal with the packed, vectorised product
// and runs on all processors, where gonum's Syrk is neither blocked nor
// parallel.
func GramBlocks(a *mat.Dense) *mat.Dense {
	_, r := a.Dims()
	out := mat.NewDense(max(r, 1), max(r, 1), nil)
	if r == 0 {
		return &mat.Dense{}
	}
	dense.Gram(1, a.RawMatrix(), 0, out.RawMatrix())
	return out
}

// MulTri returns dst = y·T for the triangular t, as dense.Gemm with the
// other triangle of t zero: twice the flops of blas64.Trmm, but the
// product is packed, vectorised and parallel where gonum's Trmm is none of
// these. A nil dst, or one of the wrong shape, is allocated; dst may be y.
// It panics with mat.ErrShape if the non-empty y's columns are not t's
// size.
func MulTri(dst, y *mat.Dense, t blas64.Triangular) *mat.Dense {
	n, m := y.Dims()
	if n == 0 || m == 0 {
		return &mat.Dense{}
	}
	if t.N != m {
		panic(mat.ErrShape)
	}
	if dst == nil || dst.IsEmpty() {
		dst = mat.NewDense(n, m, nil)
	} else if r, c := dst.Dims(); r != n || c != m {
		dst = mat.NewDense(n, m, nil)
	}
	full := mat.NewDense(m, m, nil)
	for i := range m {
		lo, hi := 0, i+1
		if t.Uplo == blas.Upper {
			lo, hi = i, m
		}
		copy(full.RawRowView(i)[lo:hi], t.Data[i*t.Stride+lo:i*t.Stride+hi])
		if t.Diag == blas.Unit {
			full.Set(i, i, 1)
		}
	}
	dense.Gemm(blas.NoTrans, blas.NoTrans, 1, y.RawMatrix(), full.RawMatrix(), 0, dst.RawMatrix())
	return dst
}
