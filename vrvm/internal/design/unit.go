package design

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The solvers see basis functions of root mean square at most about 1
// (U1): a kernel whose values at the training inputs have a larger root
// mean square s is divided by s, and so is a column of a user design, so
// that the pruning threshold and the Gamma prior on ⟨αₘ⟩ mean the same
// whatever the scale of the inputs or of the kernel.

// UnitSample is the number of centres, spread through them, at which
// Unit measures the kernel's root mean square (UnitSample² values).
const UnitSample = 256

// Scaled is the kernel K divided by S > 1 (U1).
type Scaled struct {
	K Kernel
	S float64
}

// Eval returns K(x, y)/S.
func (k Scaled) Eval(x, y []float64) float64 { return k.K.Eval(x, y) / k.S }

// Validate and PSD are those of K, if it has them.
func (k Scaled) Validate() error {
	if v, ok := k.K.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// PSD reports whether K says it is positive semi-definite.
func (k Scaled) PSD() bool {
	p, ok := k.K.(interface{ PSD() bool })
	return ok && p.PSD()
}

func (k Scaled) String() string { return fmt.Sprintf("%s/%.4g", kernelString(k.K), k.S) }

// Unit returns k, or k divided by the root mean square of its values
// between UnitSample centres spread through centres if that is above 1
// (U1). A kernel bounded by 1, such as a Gaussian, is returned as it is.
func Unit(k Kernel, centres *mat.Dense) (Kernel, error) {
	if centres == nil {
		return k, nil
	}
	n, d := centres.Dims()
	rows := Spread(n, min(n, UnitSample))
	c := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		copy(c.RawRowView(i), centres.RawRowView(r))
	}
	v := mat.NewDense(len(rows), len(rows), nil)
	if err := Fill(k, v, c, c, 0, rows, false); err != nil {
		return nil, err
	}
	s := RMS(v.RawMatrix().Data)
	if !(s > 1) || math.IsInf(s, 0) {
		return k, nil
	}
	return Scaled{K: k, S: s}, nil
}

// RMS returns the root mean square of v, by floats.Norm, which scales so
// that values whose squares overflow (a design column of 1e200) still
// give a finite result.
func RMS(v []float64) float64 {
	return floats.Norm(v, 2) / math.Sqrt(float64(len(v)))
}

// ColumnScales returns, for a user design x, the root mean square of each
// column where it is above 1, else 1 (U1); nil if every column's is at
// most 1.
func ColumnScales(x mat.Matrix) []float64 {
	n, m := x.Dims()
	var out []float64
	col := make([]float64, n)
	for j := range m {
		mat.Col(col, j, x)
		if s := RMS(col); s > 1 && !math.IsInf(s, 0) {
			if out == nil {
				out = make([]float64, m)
				for i := range out {
					out[i] = 1
				}
			}
			out[j] = s
		}
	}
	return out
}

// Spread returns m row indices spread evenly through 0 … n−1.
func Spread(n, m int) []int {
	r := make([]int, m)
	for i := range r {
		r[i] = i * n / m
	}
	return r
}
