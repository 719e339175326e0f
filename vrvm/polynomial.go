package vrvm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxPolynomialDegree is the largest Polynomial.Degree accepted.
const maxPolynomialDegree = 100

// Polynomial is the kernel K(x, x') = (1 + s·x·x')^p with degree p = Degree
// and scale s = Scale. Degree must be from 1 to 100. If Scale is zero it is
// taken to be 1; a common choice for standardised inputs of dimension d is
// Scale = 1/d. Polynomial implements BlockKernel.
type Polynomial struct {
	Degree int
	Scale  float64
}

// Eval returns (1 + Scale·x·y)^Degree.
func (k Polynomial) Eval(x, y []float64) float64 { return k.power(dot(x, y)) }

// power returns (1 + s·ip)^Degree for the inner product ip.
func (k Polynomial) power(ip float64) float64 {
	base := 1 + k.scale()*ip
	v := 1.0
	for range k.Degree {
		v *= base
	}
	return v
}

// scale is Scale, or 1 for a zero Scale.
func (k Polynomial) scale() float64 {
	if k.Scale == 0 {
		return 1
	}
	return k.Scale
}

// Validate reports a degree outside 1…100 or a negative or
// non-finite scale.
func (k Polynomial) Validate() error {
	if k.Degree < 1 || k.Degree > maxPolynomialDegree {
		return &OptionError{Field: "Polynomial.Degree", Value: float64(k.Degree), Reason: fmt.Sprintf("must be from 1 to %d", maxPolynomialDegree)}
	}
	if k.Scale < 0 || math.IsNaN(k.Scale) || math.IsInf(k.Scale, 0) {
		return &OptionError{Field: "Polynomial.Scale", Value: k.Scale, Reason: "must be positive and finite (0 means 1)"}
	}
	return nil
}

// PSD reports whether the kernel is positive semi-definite: true for every
// valid (non-negative) scale, since (1 + s·x·x')^p is a sum of products of
// positive semi-definite kernels.
func (k Polynomial) PSD() bool { return k.Scale >= 0 }

func (k Polynomial) String() string {
	return fmt.Sprintf("Polynomial(degree=%d, scale=%.4g)", k.Degree, k.scale())
}

func (k Polynomial) spec() kernelSpec {
	return kernelSpec{Type: "polynomial", Degree: k.Degree, Scale: k.Scale}
}

// SymmetricBlock reports true: EvalBlock(dst, c, x) is the transpose of
// EvalBlock(dst, x, c) to the bit (see BlockKernel).
func (Polynomial) SymmetricBlock() bool { return true }

// EvalBlock sets dst[i, j] = (1 + Scale·xᵢ·cⱼ)^Degree (see BlockKernel),
// the inner products by BLAS from 16 input columns.
func (k Polynomial) EvalBlock(dst, x, c *mat.Dense) {
	checkBlock(dst, x, c)
	innerBlock(dst, x, c)
	n, _ := x.Dims()
	m, _ := c.Dims()
	for i := range n {
		row := dst.RawRowView(i)[:m]
		for j, ip := range row {
			row[j] = k.power(ip)
		}
	}
}
