package vrvm

import (
	"errors"
	"fmt"
)

// Error policy, as in gonum: failures that depend on the data or on option
// values are returned as errors that name the problem; nothing in this
// package panics on bad data or returns NaN silently. The sentinel errors
// can be tested with errors.Is and the typed errors with errors.As.
var (
	// ErrNoData is returned when the training set has no rows.
	ErrNoData = errors.New("vrvm: no training rows")
	// ErrNoColumns is returned when the inputs have no columns.
	ErrNoColumns = errors.New("vrvm: inputs have no columns")
	// ErrConstantTargets is returned by regression fits whose targets are
	// all equal: the noise precision has no finite initial value 1/var(t)
	// and there is nothing to learn. Predict the constant instead.
	ErrConstantTargets = errors.New("vrvm: all regression targets are equal (zero variance); nothing to fit")
	// ErrTargetScale is returned by regression fits whose targets vary
	// on a scale the fit cannot represent in float64: a standard
	// deviation above 1e60 or below 1e-60, where products of squared
	// weights and precisions overflow or underflow. Rescale the targets.
	// Targets of any scale within that range give the same fit, stated
	// in their units ((T1) in the package documentation).
	ErrTargetScale = errors.New("vrvm: the regression targets' scale is beyond what the fit can represent in float64; rescale the targets (for example to unit standard deviation)")
	// ErrSingleClass is returned by classification fits whose labels are
	// all one class (all 0 or all 1 for a binary classifier).
	ErrSingleClass = errors.New("vrvm: classification labels are all one class; need at least two classes")
	// ErrNotFitted is returned by the prediction and persistence methods of
	// a model that has not been fitted successfully.
	ErrNotFitted = errors.New("vrvm: model is not fitted")
	// ErrZeroBasis is returned by the Sequential solver when every basis
	// function is zero at the training inputs (for example an all-zero
	// design matrix), so there is nothing to fit.
	ErrZeroBasis = errors.New("vrvm: every basis function is zero at the training inputs; nothing to fit")
	// ErrKernelScale is wrapped by the error of a fit whose kernel takes
	// values so large (|K(x, x)| above 1e50 at some training input, or spread over more than 20 orders of magnitude) that
	// the posterior's precision overflows or loses every other basis
	// function to rounding: for example a polynomial of high degree, or
	// a linear kernel, on inputs of a large scale. Rescale the inputs
	// (standardise them: datasets.NewScaling), or lower the degree or the
	// scale.
	ErrKernelScale = errors.New("kernel values too large for the posterior's precision")
	// ErrUnsavableKernel is returned by Save for a model whose kernel is
	// neither one of this package's kernels nor named with NamedKernel.
	ErrUnsavableKernel = errors.New("vrvm: the model's kernel cannot be saved: name it with vrvm.NamedKernel")
)

// NonFiniteError reports a NaN or infinite value in the data, or computed
// from it. For a kernel value (What "kernel value"), Row is the row of the
// evaluated inputs and Col the basis centre's training row.
type NonFiniteError struct {
	What     string // "x", "t", "design matrix", "kernel value" …
	Row, Col int    // 0-based; Col is -1 for a vector
	Value    float64
}

func (e *NonFiniteError) Error() string {
	if e.What == "kernel value" {
		return fmt.Sprintf("vrvm: kernel returned %v for input row %d and centre %d", e.Value, e.Row, e.Col)
	}
	if e.Col < 0 {
		return fmt.Sprintf("vrvm: %s[%d] is %v (row %d)", e.What, e.Row, e.Value, e.Row)
	}
	return fmt.Sprintf("vrvm: %s has %v at row %d, column %d", e.What, e.Value, e.Row, e.Col)
}

// DimensionError reports mismatched sizes between arguments.
type DimensionError struct {
	What      string
	Got, Want int
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("vrvm: %s: got %d, want %d", e.What, e.Got, e.Want)
}

// LabelError reports a classification label that cannot be used: a binary
// label that is not 0 or 1, a class number that is not an integer
// (IntLabels), the only row of its class (a class seen once cannot be told
// from its one input, and its weights are not identifiable), or a label
// the model was not trained on (the evaluation helpers).
type LabelError struct {
	Row    int    // 0-based row of the label
	Label  string // the label, as text
	Reason string // why it cannot be used
}

func (e *LabelError) Error() string {
	return fmt.Sprintf("vrvm: label %q at row %d %s", e.Label, e.Row, e.Reason)
}

// OptionError reports an invalid option or kernel parameter.
type OptionError struct {
	Field string
	// Value is the option's value; Text is it for an option that is
	// not a number (a Method), and then Value is 0.
	Value  float64
	Text   string
	Reason string
}

func (e *OptionError) Error() string {
	if e.Text != "" {
		return fmt.Sprintf("vrvm: invalid option %s = %s: %s", e.Field, e.Text, e.Reason)
	}
	return fmt.Sprintf("vrvm: invalid option %s = %v: %s", e.Field, e.Value, e.Reason)
}

// NotPositiveDefiniteError reports a posterior precision matrix that could
// not be factorised even after adding diagonal jitter.
type NotPositiveDefiniteError struct {
	Iteration int
	Jitter    float64 // the largest jitter tried
}

func (e *NotPositiveDefiniteError) Error() string {
	if e.Jitter == 0 {
		return fmt.Sprintf("vrvm: posterior precision has non-finite or non-positive entries at iteration %d; "+
			"the basis functions may be nearly collinear (a wide kernel on many rows) or badly scaled: "+
			"try a narrower kernel, or standardise the inputs", e.Iteration)
	}
	return fmt.Sprintf("vrvm: posterior precision is not positive definite at iteration %d (jitter up to %g tried); "+
		"the basis functions may be nearly collinear (a wide kernel on many rows) or badly scaled: "+
		"try a narrower kernel, or standardise the inputs", e.Iteration, e.Jitter)
}

// ModelFileError reports a model file that cannot be loaded.
type ModelFileError struct {
	Reason string
}

func (e *ModelFileError) Error() string { return "vrvm: bad model file: " + e.Reason }
