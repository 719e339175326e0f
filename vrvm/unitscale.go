package vrvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// The solvers see basis functions of root mean square at most about 1
// (docs/design.md, "Pruning and convergence", (U1)–(U2)): a kernel whose values
// at the training inputs have a larger root mean square s is divided by
// s, and so is a column of a user design, so that PruneAlpha and the
// Gamma prior on ⟨αₘ⟩ mean the same whatever the scale of the inputs or
// of the kernel. The fitted model is stated in the units of the kernel
// the user gave (U2).

// scaledKernel is the kernel divided by its root mean square s > 1 (U1).
type scaledKernel = design.Scaled

// unitKernel returns k, or k divided by the root mean square of its
// values between design.UnitSample centres spread through centres if that
// is above 1 (U1): design.Unit.
func unitKernel(k Kernel, centres *mat.Dense) (Kernel, error) {
	u, err := design.Unit(k, centres)
	return u, kernelErr(err)
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
		out[i] = sk.S
		if b.bias && c == 0 {
			out[i] = 1 // the bias is not scaled
		}
	}
	return out
}

// unscaled returns b with the kernel the user gave and no design scales.
func (b basis) unscaled() basis {
	if sk, ok := b.kernel.(scaledKernel); ok {
		b.kernel = sk.K
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
