package vrvm

import (
	"fmt"
	"math"
	"strings"
)

// ARDGaussian is the Gaussian kernel with one length scale per input
// dimension (automatic relevance determination of the inputs),
//
//	K(x, x') = exp(−Σₖ (xₖ − x'ₖ)² / ℓₖ²),                         (K1)
//
// with ℓₖ = Scales[k]. With every ℓₖ = r it is Gaussian{Width: r}. An
// input whose length scale is large compared with the spread of that
// input hardly changes K: the model ignores it. Scales must have one
// positive, finite entry per input column; with LearnKernel on, nil
// Scales mean "start every ℓₖ from the inputs' median pairwise distance"
// (see Regressor.LearnKernel).
type ARDGaussian struct {
	Scales []float64
}

// Eval returns exp(−Σₖ (xₖ − yₖ)² / ℓₖ²) (K1). The lengths of x, y and
// Scales must agree (Fit checks it against the input columns).
func (k ARDGaussian) Eval(x, y []float64) float64 {
	var d2 float64
	for i, xi := range x {
		d := (xi - y[i]) / k.Scales[i]
		d2 += d * d
	}
	return math.Exp(-d2)
}

// Validate reports no length scales, or a length scale that is not
// positive and finite or whose square under- or overflows.
func (k ARDGaussian) Validate() error {
	if len(k.Scales) == 0 {
		return &OptionError{Field: "ARDGaussian.Scales", Reason: "needs one length scale per input column"}
	}
	for _, s := range k.Scales {
		if !(s > 0) || math.IsInf(s, 0) {
			return &OptionError{Field: "ARDGaussian.Scales", Value: s, Reason: "must be positive and finite"}
		}
		if s2 := s * s; s2 == 0 || math.IsInf(s2, 0) {
			return &OptionError{Field: "ARDGaussian.Scales", Value: s, Reason: "its square under- or overflows float64; rescale the inputs instead"}
		}
	}
	return nil
}

// checkDim reports a number of length scales that differs from the number
// of input columns d.
func (k ARDGaussian) checkDim(d int) error {
	if len(k.Scales) != d {
		return &DimensionError{What: "ARDGaussian length scales vs input columns", Got: len(k.Scales), Want: d}
	}
	return nil
}

// PSD reports true: a product of Gaussian kernels is positive definite.
func (ARDGaussian) PSD() bool { return true }

func (k ARDGaussian) String() string {
	parts := make([]string, len(k.Scales))
	for i, s := range k.Scales {
		parts[i] = fmt.Sprintf("%.4g", s)
	}
	return "ARDGaussian(scales=[" + strings.Join(parts, " ") + "])"
}

func (k ARDGaussian) spec() kernelSpec {
	return kernelSpec{Type: "ard-gaussian", Scales: append([]float64(nil), k.Scales...)}
}

// checkKernelDim reports a kernel whose parameters are per input column
// (ARDGaussian) with a number of them other than d.
func checkKernelDim(k Kernel, d int) error {
	if c, ok := k.(interface{ checkDim(int) error }); ok {
		return c.checkDim(d)
	}
	return nil
}
