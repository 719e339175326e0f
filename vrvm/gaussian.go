package vrvm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// Gaussian is the kernel K(x, x') = exp(−‖x − x'‖² / r²) with width r, the
// parameterisation used by Tipping (2001) and by Bishop & Tipping (2000).
// Width must be positive and finite; with LearnKernel on, a zero Width
// means "start from the inputs' median pairwise distance" (see
// Regressor.LearnKernel). Gaussian implements BlockKernel and Learnable.
type Gaussian struct {
	Width float64
}

// Eval returns exp(−‖x − y‖² / Width²).
func (k Gaussian) Eval(x, y []float64) float64 {
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	return fastExp(d2 * k.scale())
}

// scale is −1/Width², the factor of ‖x − y‖² in the exponent.
func (k Gaussian) scale() float64 { return -1 / (k.Width * k.Width) }

// Validate reports a width that is not positive and finite, or whose
// square under- or overflows (below about 1e-154 or above 1e154).
func (k Gaussian) Validate() error {
	if !(k.Width > 0) || math.IsInf(k.Width, 0) {
		return &OptionError{Field: "Gaussian.Width", Value: k.Width, Reason: "must be positive and finite"}
	}
	if w2 := k.Width * k.Width; w2 == 0 || math.IsInf(w2, 0) {
		return &OptionError{Field: "Gaussian.Width", Value: k.Width, Reason: "its square under- or overflows float64; rescale the inputs instead"}
	}
	return nil
}

// PSD reports true: the Gaussian kernel is positive definite.
func (Gaussian) PSD() bool { return true }

func (k Gaussian) String() string { return fmt.Sprintf("Gaussian(width=%g)", k.Width) }

func (k Gaussian) spec() kernelSpec { return kernelSpec{Type: "gaussian", Width: k.Width} }

// SymmetricBlock reports true: EvalBlock(dst, c, x) is the transpose of
// EvalBlock(dst, x, c) to the bit (see BlockKernel).
func (Gaussian) SymmetricBlock() bool { return true }

// LogParams returns [ln Width] (see Learnable).
func (k Gaussian) LogParams() []float64 { return []float64{math.Log(k.Width)} }

// WithLogParams returns Gaussian{Width: e^u[0]} (see Learnable).
func (k Gaussian) WithLogParams(u []float64) Learnable { return Gaussian{Width: math.Exp(u[0])} }

// AddLogGrad adds w·∂K/∂ln r = w·2K‖x − y‖²/r² to dst[0] (K2), given
// kv = K(x, y) (see Learnable).
func (k Gaussian) AddLogGrad(dst, x, y []float64, kv, w float64) {
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	dst[0] += w * kv * 2 * d2 / (k.Width * k.Width) // (K2)
}

// unset reports a zero width, which learning starts from the inputs'
// scale (startKernel).
func (k Gaussian) unset() bool { return k.Width == 0 }

// doubled returns the Gaussian of twice the width (W5).
func (k Gaussian) doubled() Kernel { return Gaussian{Width: 2 * k.Width} }

// widened returns the Gaussian of width f·Width (floorKernel, (A15)).
func (k Gaussian) widened(f float64) Kernel { return Gaussian{Width: f * k.Width} }

// selfValue returns K(x, x) = 1, the same at every x (augment.Kernel).
func (Gaussian) selfValue() (float64, bool) { return 1, true }

// atScale returns the Gaussian of width m (startKernel).
func (Gaussian) atScale(m float64, _ int) Learnable { return Gaussian{Width: m} }

// byEvidence marks a kernel Regressor learns by the dense model's
// evidence (E2)–(E6).
func (Gaussian) byEvidence() {}

// EvalBlock sets dst[i, j] = exp(−‖xᵢ − cⱼ‖² / Width²) (see BlockKernel).
// From 16 input columns the squared distances are formed as
// ‖xᵢ‖² + ‖cⱼ‖² − 2xᵢ·cⱼ through BLAS, after both sets are shifted by the
// mean of c (the kernel depends only on differences; the shift keeps the
// cancellation small); below that, pair by pair as Eval does.
func (k Gaussian) EvalBlock(dst, x, c *mat.Dense) {
	_, d := x.Dims()
	k.evalBlock(dst, x, c, d >= gemmDim)
}

// evalBlock is EvalBlock through BLAS if gemm, else pair by pair, at any
// input dimension (BenchmarkKernelBlock compares the two).
func (k Gaussian) evalBlock(dst, x, c *mat.Dense, gemm bool) {
	checkBlock(dst, x, c)
	s := k.scale()
	if !gemm {
		pairBlock(dst, x, c, s)
		return
	}
	n, d := x.Dims()
	m, _ := c.Dims()
	shift := make([]float64, d)
	for j := range m {
		for l, v := range c.RawRowView(j) {
			shift[l] += v
		}
	}
	for l := range shift {
		shift[l] /= float64(m)
	}
	xs, xn := shifted(x, shift)
	cs, cn := shifted(c, shift)
	dense.Gemm(blas.NoTrans, blas.Trans, -2, xs.RawMatrix(), cs.RawMatrix(), 0, dst.RawMatrix())
	for i := range n {
		row := dst.RawRowView(i)[:m]
		for j, v := range row {
			row[j] = max(0, v+xn[i]+cn[j]) * s
		}
		expTo(row)
	}
}

// pairBlock sets dst[i, j] = exp(s·‖xᵢ − cⱼ‖²) pair by pair, in Eval's
// order, with the loops for one and two input columns unrolled.
func pairBlock(dst, x, c *mat.Dense, s float64) {
	n, d := x.Dims()
	m, _ := c.Dims()
	cr := c.RawMatrix()
	for i := range n {
		xi := x.RawRowView(i)
		row := dst.RawRowView(i)[:m]
		switch d {
		case 1: // the sinc problems
			x0 := xi[0]
			for j := range row {
				e := x0 - cr.Data[j*cr.Stride]
				row[j] = e * e * s
			}
		case 2:
			x0, x1 := xi[0], xi[1]
			for j := range row {
				c := cr.Data[j*cr.Stride : j*cr.Stride+2]
				e, f := x0-c[0], x1-c[1]
				row[j] = (e*e + f*f) * s
			}
		default:
			for j := range row {
				cj := cr.Data[j*cr.Stride : j*cr.Stride+d]
				cj = cj[:len(xi)]
				var d2 float64
				for l, v := range xi {
					e := v - cj[l]
					d2 += e * e
				}
				row[j] = d2 * s
			}
		}
		expTo(row)
	}
}

// shifted returns the rows of a minus shift and their squared norms.
func shifted(a *mat.Dense, shift []float64) (*mat.Dense, []float64) {
	r, d := a.Dims()
	out := mat.NewDense(r, d, nil)
	norms := make([]float64, r)
	for i := range r {
		src, dst := a.RawRowView(i), out.RawRowView(i)
		var s float64
		for l, v := range src {
			e := v - shift[l]
			dst[l] = e
			s += e * e
		}
		norms[i] = s
	}
	return out, norms
}
