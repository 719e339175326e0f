package vrvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// The statistics pass of a streamed fit evaluates the design of every
// row once: C kernel values per row, 10¹⁰ of them for 10⁷ rows and
// C = 1,000. For a Gaussian basis Basis.Design forms them with
// internal/dense's AVX-512 kernel where the processor has it (GaussRows:
// eight centres per instruction, the squared distance by fused
// multiply–adds, a polynomial exponential), about 2·10⁻¹⁶ relative from
// the pairwise values of Eval and EvalBlock that a fit on the rows uses;
// elsewhere, and for other kernels, the design is the fit's own.

// gaussDesign returns the design of the Gaussian basis bs at the rows of
// x by the AVX-512 kernel, or nil (nothing computed) where there is none
// or bs's kernel is not a plain Gaussian.
func gaussDesign(bs basis, x *mat.Dense) *mat.Dense {
	g, ok := bs.kernel.(Gaussian)
	n, d := x.Dims()
	if !ok || !dense.HasGaussRows() || bs.centers == nil || n == 0 || d == 0 {
		return nil
	}
	m, _ := bs.centers.Dims()
	off := bs.offset()
	phi := mat.NewDense(n, m+off, nil)
	mp := (m + 7) &^ 7
	ct := make([]float64, d*mp+mp) // the centres transposed, then a row of scratch
	for j := range m {
		for l, v := range bs.centers.RawRowView(j) {
			ct[l*mp+j] = v
		}
	}
	pr, xr := phi.RawMatrix(), x.RawMatrix()
	dense.GaussRows(pr.Data[off:], pr.Stride, xr.Data, xr.Stride, n, d, ct[:d*mp], mp, m, g.scale(), ct[d*mp:])
	if off == 1 {
		for i := range n {
			pr.Data[i*pr.Stride] = 1 // the bias
		}
	}
	return phi
}
