package vrvm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The solvers see basis functions of root mean square at most about 1
// (docs/design.md, "Pruning and convergence", (U1)–(U2)): a kernel whose values
// at the training inputs have a larger root mean square s is divided by
// s, and so is a column of a user design, so that PruneAlpha and the
// Gamma prior on ⟨αₘ⟩ mean the same whatever the scale of the inputs or
// of the kernel. The fitted model is stated in the units of the kernel
// the user gave (U2).

// unitSample is the number of training inputs, spread through them, at
// which unitKernel measures the kernel's root mean square (unitSample²
// values).
const unitSample = 256

// scaledKernel is the kernel k divided by s > 1 (U1).
type scaledKernel struct {
	k Kernel
	s float64
}

// Eval returns k(x, y)/s.
func (k scaledKernel) Eval(x, y []float64) float64 { return k.k.Eval(x, y) / k.s }

// Validate and PSD are those of k.
func (k scaledKernel) Validate() error { return validateKernel(k.k) }
func (k scaledKernel) PSD() bool       { return isPSD(k.k) }
func (k scaledKernel) String() string  { return fmt.Sprintf("%s/%.4g", kernelString(k.k), k.s) }

// unitKernel returns k, or k divided by the root mean square of its
// values between unitSample centres spread through centres if that is
// above 1 (U1). (A kernel bounded by 1, such as the Gaussian ones, is
// returned as it is.)
func unitKernel(k Kernel, centres *mat.Dense) (Kernel, error) {
	if centres == nil {
		return k, nil
	}
	n, d := centres.Dims()
	rows := spread(n, min(n, unitSample))
	c := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		copy(c.RawRowView(i), centres.RawRowView(r))
	}
	v := mat.NewDense(len(rows), len(rows), nil)
	if err := kernelBlock(k, v, c, c, 0, rows, false); err != nil {
		return nil, err
	}
	s := rms(v.RawMatrix().Data)
	if !(s > 1) || math.IsInf(s, 0) {
		return k, nil
	}
	return scaledKernel{k: k, s: s}, nil
}

// rms returns the root mean square of v, by floats.Norm, which scales
// so that values whose squares overflow (a design column of 1e200) still
// give a finite result.
func rms(v []float64) float64 {
	return floats.Norm(v, 2) / math.Sqrt(float64(len(v)))
}

// designScales returns, for a user design x, the root mean square of each
// column where it is above 1, else 1 (U1); nil if every column's is at
// most 1.
func designScales(x mat.Matrix) []float64 {
	n, m := x.Dims()
	var out []float64
	col := make([]float64, n)
	for j := range m {
		mat.Col(col, j, x)
		if s := rms(col); s > 1 && !math.IsInf(s, 0) {
			if out == nil {
				out = constant(m, 1)
			}
			out[j] = s
		}
	}
	return out
}

// divisors returns the numbers by which the solver's basis functions cols
// of b were divided, or nil if none was.
func (b *basis) divisors(cols []int) []float64 {
	if b.kernel == nil {
		if b.scales == nil {
			return nil
		}
		return selectVec(b.scales, cols)
	}
	sk, ok := b.kernel.(scaledKernel)
	if !ok {
		return nil
	}
	out := make([]float64, len(cols))
	for i, c := range cols {
		out[i] = sk.s
		if b.bias && c == 0 {
			out[i] = 1 // the bias is not scaled
		}
	}
	return out
}

// unscaled returns b with the kernel the user gave and no design scales.
func (b basis) unscaled() basis {
	if sk, ok := b.kernel.(scaledKernel); ok {
		b.kernel = sk.k
	}
	b.scales = nil
	return b
}

// A posterior over the weights w̃ₘ of the functions divided by dₘ is
// stated in the units of the functions themselves by wₘ = w̃ₘ/dₘ (U2):
// μₘ /= dₘ, Σₘₗ /= dₘdₗ and ⟨αₘ⟩ *= dₘ². unscaleMean, unscaleAlpha and
// unscaleSym return new values and leave their arguments unchanged; each
// returns its argument itself when dv is nil. The rows of a matrix
// argument are the functions (one column per class).

func unscaleMean(mu *mat.Dense, dv []float64) *mat.Dense {
	return rowsTimes(mu, dv, func(d float64) float64 { return 1 / d })
}

func unscaleAlpha(alpha *mat.Dense, dv []float64) *mat.Dense {
	return rowsTimes(alpha, dv, func(d float64) float64 { return d * d })
}

func unscaleVec(v, dv []float64, f func(*mat.Dense, []float64) *mat.Dense) []float64 {
	if dv == nil || len(v) == 0 {
		return v
	}
	return f(mat.NewDense(len(v), 1, v), dv).RawMatrix().Data
}

// rowsTimes returns a copy of a with row i multiplied by f(dv[i]).
func rowsTimes(a *mat.Dense, dv []float64, f func(float64) float64) *mat.Dense {
	if dv == nil || a == nil {
		return a
	}
	out := mat.DenseCopyOf(a)
	for i, d := range dv {
		row := out.RawRowView(i)
		for j := range row {
			row[j] *= f(d)
		}
	}
	return out
}

func unscaleSym(s *mat.SymDense, dv []float64) *mat.SymDense {
	if dv == nil || s == nil {
		return s
	}
	out := mat.NewSymDense(len(dv), nil)
	for i := range dv {
		for j := i; j < len(dv); j++ {
			out.SetSym(i, j, s.At(i, j)/(dv[i]*dv[j]))
		}
	}
	return out
}
