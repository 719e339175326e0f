package vrvm

import "gonum.org/v1/gonum/mat"

// Linear is the kernel K(x, x') = x·x'. It implements BlockKernel.
type Linear struct{}

// Eval returns x·y.
func (Linear) Eval(x, y []float64) float64 { return dot(x, y) }

// PSD reports true: the linear kernel is positive semi-definite.
func (Linear) PSD() bool { return true }

func (Linear) String() string { return "Linear" }

func (Linear) spec() kernelSpec { return kernelSpec{Type: "linear"} }

// SymmetricBlock reports true: EvalBlock(dst, c, x) is the transpose of
// EvalBlock(dst, x, c) to the bit (see BlockKernel).
func (Linear) SymmetricBlock() bool { return true }

// EvalBlock sets dst[i, j] = xᵢ·cⱼ (see BlockKernel), by BLAS from 16
// input columns.
func (Linear) EvalBlock(dst, x, c *mat.Dense) {
	checkBlock(dst, x, c)
	innerBlock(dst, x, c)
}
