package dense

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Mul sets dst = a·b like dst.Mul(a, b), by Gemm when a and b are
// *mat.Dense or their transposes (mat.Transpose of a *mat.Dense) and by
// dst.Mul otherwise. dst may share storage with a or b (Gemm then copies
// the operand first, as dst.Mul does); an empty dst is sized to the
// product, any other must have its shape.
func Mul(dst *mat.Dense, a, b mat.Matrix) {
	ra, ta, okA := rawOperand(a)
	rb, tb, okB := rawOperand(b)
	if !okA || !okB {
		dst.Mul(a, b)
		return
	}
	m, k := a.Dims()
	k2, n := b.Dims()
	if k != k2 {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(m, n)
	} else if r, c := dst.Dims(); r != m || c != n {
		panic(mat.ErrShape)
	}
	if k == 0 {
		dst.Zero()
		return
	}
	Gemm(ta, tb, 1, ra, rb, 0, dst.RawMatrix())
}

// rawOperand returns the storage of a *mat.Dense or of the transpose of
// one, and whether a is either.
func rawOperand(a mat.Matrix) (blas64.General, blas.Transpose, bool) {
	switch a := a.(type) {
	case *mat.Dense:
		if a.IsEmpty() {
			return blas64.General{}, blas.NoTrans, false
		}
		return a.RawMatrix(), blas.NoTrans, true
	case mat.Transpose:
		if d, ok := a.Matrix.(*mat.Dense); ok && !d.IsEmpty() {
			return d.RawMatrix(), blas.Trans, true
		}
	}
	return blas64.General{}, blas.NoTrans, false
}
