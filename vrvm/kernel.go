package vrvm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Kernel is a basis function generator: the model places one basis function
// φₘ(x) = K(x, xₘ) on every training input xₘ (the paper's model (1)).
//
// Eval must be a pure function of its arguments and must not retain or modify
// them. It may be implemented in interpreted Go (yaegi or gophernotes); a
// kernel value that returns NaN or ±Inf makes Fit and the prediction methods
// return a *KernelError.
type Kernel interface {
	Eval(x, y []float64) float64
}

// Gaussian is the kernel K(x, x') = exp(−‖x − x'‖² / r²) with width r, the
// parameterisation used by Tipping (2001) and by Bishop & Tipping (2000).
// Width must be positive and finite.
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
	return math.Exp(-d2 / (k.Width * k.Width))
}

// MaxPolynomialDegree is the largest Polynomial.Degree accepted.
const MaxPolynomialDegree = 100

// Polynomial is the kernel K(x, x') = (1 + s·x·x')^p with degree p = Degree
// and scale s = Scale. Degree must be from 1 to MaxPolynomialDegree. If Scale is zero it is
// taken to be 1; a common choice for standardised inputs of dimension d is
// Scale = 1/d.
type Polynomial struct {
	Degree int
	Scale  float64
}

// Eval returns (1 + Scale·x·y)^Degree.
func (k Polynomial) Eval(x, y []float64) float64 {
	s := k.Scale
	if s == 0 {
		s = 1
	}
	base := 1 + s*dot(x, y)
	v := 1.0
	for range k.Degree {
		v *= base
	}
	return v
}

// Linear is the kernel K(x, x') = x·x'.
type Linear struct{}

// Eval returns x·y.
func (Linear) Eval(x, y []float64) float64 { return dot(x, y) }

func dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

// DefaultKernel is the kernel used when an estimator's Kernel field is nil.
var DefaultKernel Kernel = Gaussian{Width: 1}

// checkKernel validates the parameters of the kernels defined in this
// package. User-defined kernels are checked through their values instead.
func checkKernel(k Kernel) error {
	switch k := k.(type) {
	case Gaussian:
		if !(k.Width > 0) || math.IsInf(k.Width, 0) {
			return &OptionError{Field: "Gaussian.Width", Value: k.Width, Reason: "must be positive and finite"}
		}
	case *Gaussian:
		if k == nil {
			return &OptionError{Field: "Kernel", Reason: "nil *Gaussian"}
		}
		return checkKernel(*k)
	case Polynomial:
		if k.Degree < 1 || k.Degree > MaxPolynomialDegree {
			return &OptionError{Field: "Polynomial.Degree", Value: float64(k.Degree), Reason: fmt.Sprintf("must be from 1 to %d", MaxPolynomialDegree)}
		}
		if k.Scale < 0 || math.IsNaN(k.Scale) || math.IsInf(k.Scale, 0) {
			return &OptionError{Field: "Polynomial.Scale", Value: k.Scale, Reason: "must be positive and finite (0 means 1)"}
		}
	case *Polynomial:
		if k == nil {
			return &OptionError{Field: "Kernel", Reason: "nil *Polynomial"}
		}
		return checkKernel(*k)
	}
	return nil
}

// basis describes the full set of candidate basis functions: an optional
// bias φ₀ = 1 followed by one kernel function per centre, in centre order.
// When kernel is nil the design matrix was supplied by the user and column j
// of it is basis function j.
type basis struct {
	kernel  Kernel
	bias    bool
	centers *mat.Dense // one row per candidate centre; nil for a user design or when there are none
	dim     int        // input columns (kernel) or design columns (user design)
}

// design evaluates the basis functions with indices cols (indices into the
// full basis) at the rows of x and returns the len(x rows) × len(cols)
// design matrix. Non-finite kernel values are reported as a *KernelError.
func (b *basis) design(x mat.Matrix, cols []int) (*mat.Dense, error) {
	return b.designCtx(context.Background(), x, cols)
}

// designCtx is design that stops, with the error of stopped, when ctx is
// done; it looks before each column, so that an interrupt reaches a slow
// (for example interpreted) kernel within one column of N evaluations.
func (b *basis) designCtx(ctx context.Context, x mat.Matrix, cols []int) (*mat.Dense, error) {
	n, d := x.Dims()
	phi := mat.NewDense(n, len(cols), nil)
	if b.kernel == nil {
		if d != b.dim {
			return nil, &DimensionError{What: "design matrix columns", Got: d, Want: b.dim}
		}
		for j, c := range cols {
			for i := range n {
				phi.Set(i, j, x.At(i, c))
			}
		}
		return phi, nil
	}
	if d != b.dim {
		return nil, &DimensionError{What: "input columns", Got: d, Want: b.dim}
	}
	rows := rowsOf(x)
	for j, c := range cols {
		if err := stopped(ctx, 0); err != nil {
			return nil, err
		}
		if b.bias && c == 0 {
			for i := range n {
				phi.Set(i, j, 1)
			}
			continue
		}
		center := b.centers.RawRowView(c - b.offset())
		for i := range n {
			v := b.kernel.Eval(rows[i], center)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &KernelError{Row: i, Center: c - b.offset(), Value: v}
			}
			phi.Set(i, j, v)
		}
	}
	return phi, nil
}

// offset is the index of the first kernel basis function.
func (b *basis) offset() int {
	if b.bias {
		return 1
	}
	return 0
}

// size is the number of candidate basis functions.
func (b *basis) size() int {
	if b.kernel == nil {
		return b.dim
	}
	if b.centers == nil {
		return b.offset()
	}
	r, _ := b.centers.Dims()
	return r + b.offset()
}

// rowsOf returns the rows of x as slices (views where x is a *mat.Dense).
func rowsOf(x mat.Matrix) [][]float64 {
	n, d := x.Dims()
	rows := make([][]float64, n)
	if dx, ok := x.(*mat.Dense); ok {
		for i := range n {
			rows[i] = dx.RawRowView(i)
		}
		return rows
	}
	for i := range n {
		r := make([]float64, d)
		for j := range d {
			r[j] = x.At(i, j)
		}
		rows[i] = r
	}
	return rows
}

// kernelName describes a kernel for messages and persistence.
func kernelName(k Kernel) string {
	switch k := k.(type) {
	case Gaussian:
		return fmt.Sprintf("Gaussian(width=%g)", k.Width)
	case Polynomial:
		return fmt.Sprintf("Polynomial(degree=%d, scale=%g)", k.Degree, k.Scale)
	case Linear:
		return "Linear"
	}
	return fmt.Sprintf("%T", k)
}
