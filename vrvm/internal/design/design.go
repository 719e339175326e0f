// Package design builds the design matrix Φ of a sparse kernel model
// from inputs and the centres of its kernel basis functions
// φₘ(x) = K(x, xₘ) (Bishop & Tipping 2000, model (1)): kernel blocks
// evaluated in parallel (Fill, Columns, Parallel), the division of a
// kernel or of a user's design columns to unit root mean square (Scaled,
// Unit, ColumnScales; (U1)), the subset of training inputs used as
// centres (CentreRows), and the grouping of repeated rows (DistinctRows,
// Twins; (D1)).
//
// It depends on kernels only through the Kernel and Block interfaces
// defined here, which the vrvm package's kernels satisfy; it does not
// import that package.
package design

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Kernel evaluates K(x, y); it must not retain or modify x or y.
type Kernel interface {
	Eval(x, y []float64) float64
}

// Block is a Kernel that fills a whole block at once: EvalBlock sets
// dst[i, j] = K(xᵢ, cⱼ) for the rows of x and c. A Block may also
// implement SymmetricBlock() bool, reporting that EvalBlock(dst, c, x)
// is the transpose of EvalBlock(dst, x, c) to the bit.
type Block interface {
	Kernel
	EvalBlock(dst, x, c *mat.Dense)
}

// NonFiniteError reports a NaN or infinite kernel value K(x_Row, c_Col).
type NonFiniteError struct {
	Row, Col int
	Value    float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("kernel value %v at row %d, centre %d", e.Value, e.Row, e.Col)
}

// inner returns the kernel k wraps (a kernel with an Inner method
// returning a design.Kernel, such as the vrvm package's named kernels,
// which evaluate exactly as the kernel they wrap), or nil.
func inner(k Kernel) Kernel {
	if in, ok := k.(interface{ Inner() Kernel }); ok {
		return in.Inner()
	}
	return nil
}

// kernelString names a kernel: its String method, or its type.
func kernelString(k Kernel) string {
	if s, ok := k.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", k)
}
