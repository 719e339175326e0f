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
// (see Regressor.LearnKernel). ARDGaussian implements Learnable.
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

// LogParams returns the logarithms of the length scales (see Learnable).
func (k ARDGaussian) LogParams() []float64 {
	u := make([]float64, len(k.Scales))
	for i, s := range k.Scales {
		u[i] = math.Log(s)
	}
	return u
}

// WithLogParams returns the ARDGaussian of length scales e^u (see
// Learnable).
func (k ARDGaussian) WithLogParams(u []float64) Learnable {
	s := make([]float64, len(u))
	for i, v := range u {
		s[i] = math.Exp(v)
	}
	return ARDGaussian{Scales: s}
}

// AddLogGrad adds w·∂K/∂ln ℓₖ = w·2K(xₖ − yₖ)²/ℓₖ² to dst[k] for every
// k (K2), given kv = K(x, y) (see Learnable).
func (k ARDGaussian) AddLogGrad(dst, x, y []float64, kv, w float64) {
	c := 2 * w * kv
	for i, xi := range x {
		d := (xi - y[i]) / k.Scales[i]
		dst[i] += c * d * d // (K2)
	}
}

// unset reports nil length scales, which learning starts from the
// inputs' scale (startKernel).
func (k ARDGaussian) unset() bool { return k.Scales == nil }

// doubled returns the ARDGaussian with every length scale doubled (W5).
func (k ARDGaussian) doubled() Kernel {
	s := make([]float64, len(k.Scales))
	for i, v := range k.Scales {
		s[i] = 2 * v
	}
	return ARDGaussian{Scales: s}
}

// widened returns the ARDGaussian of length scales f·Scales
// (floorKernel, (A15)).
func (k ARDGaussian) widened(f float64) Kernel {
	s := make([]float64, len(k.Scales))
	for i, v := range k.Scales {
		s[i] = f * v
	}
	return ARDGaussian{Scales: s}
}

// selfValue returns K(x, x) = 1, the same at every x (augment.Kernel).
func (ARDGaussian) selfValue() (float64, bool) { return 1, true }

// atScale returns the ARDGaussian with every one of d length scales m
// (startKernel).
func (ARDGaussian) atScale(m float64, d int) Learnable { return ARDGaussian{Scales: constant(d, m)} }

// owned returns k with its own copy of the Scales (ownKernel).
func (k ARDGaussian) owned() Kernel { return ARDGaussian{Scales: append([]float64(nil), k.Scales...)} }

// byEvidence marks a kernel Regressor learns by the dense model's
// evidence (E2)–(E6).
func (ARDGaussian) byEvidence() {}

// checkKernelDim reports a kernel whose parameters are per input column
// (ARDGaussian) with a number of them other than d.
func checkKernelDim(k Kernel, d int) error {
	if c, ok := k.(perInput); ok {
		return c.checkDim(d)
	}
	return nil
}

// perInput is a kernel with one parameter per input column
// (ARDGaussian): its learning defaults to more refits and may switch
// inputs off (KernelLearning.resolve, rprop.move).
type perInput interface {
	Kernel
	checkDim(d int) error
}
