package vrvm

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// DefaultPrior is the value of each Prior field left at zero: the broad
// Gamma(10⁻⁶, 10⁻⁶) hyperpriors of Bishop & Tipping (2000), section 6.
const DefaultPrior = 1e-6

// Prior holds the parameters of the Gamma hyperpriors (18)
//
//	p(αₘ) = Γ(αₘ | A, B),   p(τ) = Γ(τ | C, D),
//
// with shape A, C and rate B, D, so that ⟨α⟩ = A/B (19). A field that is
// zero takes the value DefaultPrior; negative values are an error. C and D
// are used by regression only.
type Prior struct {
	A, B float64 // shape and rate of the weight precisions αₘ
	C, D float64 // shape and rate of the noise precision τ
}

// resolve returns the prior with defaults filled in, or an error.
func (p Prior) resolve() (Prior, error) {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"Prior.A", &p.A}, {"Prior.B", &p.B}, {"Prior.C", &p.C}, {"Prior.D", &p.D}} {
		if err := positive(f.name, f.v, DefaultPrior, "must be positive and finite (0 means the default 1e-6)"); err != nil {
			return p, err
		}
	}
	return p, nil
}

// Pruning thresholds, chosen by measurement (see docs/design.md, "Pruning"): they
// reproduce the paper's relevance-vector counts with unchanged errors and a
// fit several times faster than without pruning. defaultRVMPrune is the
// threshold of the type-II maximum likelihood RVM, whose αₘ diverge to
// infinity at the evidence optimum, so that any large value serves
// (Tipping 2001).
const (
	defaultRegressionPrune     = 1e2
	defaultClassificationPrune = 10
	defaultRVMPrune            = 1e12
)

// DefaultMaxIter is the iteration limit of a fit whose MaxIter is 0.
const DefaultMaxIter = 10000

// Default convergence settings. A variational fit stops when, over one
// iteration, the lower bound changes by at most Tol·max(1, |L|) AND every
// monitored parameter (⟨αₘ⟩ of the active functions, ⟨τ⟩ or ξ) changes by
// at most ParamTol relative to its value. The type-II ML RVM stops when no
// ln αₘ (nor ln β) changes by more than its Tol, defaultRVMTol.
const (
	defaultTol      = 1e-10
	defaultParamTol = 1e-6
	defaultRVMTol   = 1e-6
)

// Progress is what a Monitor sees after each iteration.
type Progress struct {
	Iteration int     // 1-based iteration number
	Bound     float64 // the objective after the iteration, as in BoundTrace: L (full model for Sequential), or the RVM's log evidence
	Change    float64 // relative change of L over the iteration
	Active    int     // number of basis functions in the active set
}

// Status tells how a fit ended. A fit that stops at its iteration limit is
// not an error: inspect Status.
type Status int

const (
	NotFitted      Status = iota // no successful Fit yet
	Converged                    // convergence criteria met
	IterationLimit               // MaxIter reached first
	Stopped                      // the Monitor asked to stop
	Canceled                     // the context was cancelled
	// InterceptOnly: the convergence criteria were met, but the model
	// keeps no relevance vector (no kernel or design function with
	// |⟨wₘ⟩| > RelevanceThreshold), only the bias: the kernel explains
	// nothing of the targets at this width, or its values are badly
	// scaled. The model predicts (about) a constant.
	InterceptOnly
)

var statusNames = [...]string{"not fitted", "converged", "iteration limit reached", "stopped by monitor", "canceled",
	"converged to the bias alone (no relevance vector)"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return "unknown status"
	}
	return statusNames[s]
}

// options are an estimator's option fields as the user set them (zero
// values mean the defaults); every estimator fills in those it has.
type options struct {
	kernel     Kernel
	noBias     bool
	prior      Prior
	alpha0     float64
	noPrune    bool
	pruneAlpha float64
	maxIter    int
	tol        float64
	paramTol   float64
	monitor    func(Progress) bool
	method     Method
	// noNewton, if not empty, names the estimator for which the method
	// Newton is an *OptionError.
	noNewton string
	// centres is the Centres field of estimators that have one (hasCentres);
	// the others always take every training input as a centre.
	centres    int
	hasCentres bool
	// Defaults that differ between estimators.
	defPrune, defTol float64
	// ownScale leaves the basis functions at their own scale (no (U1)):
	// the RVM, whose type-II estimate does not depend on it, and
	// regression (docs/design.md, "Pruning and convergence"), and the classifiers
	// with NoRescale.
	ownScale bool
	// ctl is the estimator's controls (zero: every part on).
	ctl controls
}

// settings are the resolved options shared by every estimator and solver.
type settings struct {
	kernel        Kernel
	bias          bool
	prior         Prior
	maxIter       int
	tol, paramTol float64
	prune         bool
	pruneAt       float64
	monitor       func(Progress) bool
	alpha0        float64
	// method is the estimator's Method resolved: never nil, its zero
	// fields set to their defaults.
	method Method
	// gammaLimit, if positive, stops the sequential solver and the RVM's
	// sequential algorithm (status Stopped) once the effective number of
	// parameters γ exceeds it (W5), (R6).
	gammaLimit float64
	// The controls of the engine's parts, from options.ctl.
	controls
}

// resolve validates o and fills in the defaults.
func (o options) resolve() (settings, error) {
	s := settings{kernel: o.kernel, bias: !o.noBias, maxIter: o.maxIter, tol: o.tol, paramTol: o.paramTol,
		prune: !o.noPrune, pruneAt: o.pruneAlpha, monitor: o.monitor, alpha0: o.alpha0,
		controls: o.ctl}
	if s.kernel == nil {
		s.kernel = defaultKernel
	}
	var err error
	if s.prior, err = o.prior.resolve(); err != nil {
		return s, err
	}
	if err := count("Centres", &o.centres, 0); err != nil {
		return s, err
	}
	if err := count("MaxIter", &s.maxIter, DefaultMaxIter); err != nil {
		return s, err
	}
	if o.defTol == 0 {
		o.defTol = defaultTol
	}
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
	}{{"Tol", &s.tol, o.defTol}, {"ParamTol", &s.paramTol, defaultParamTol}, {"PruneAlpha", &s.pruneAt, o.defPrune}, {"Alpha0", &s.alpha0, 1}} {
		if err := positive(f.name, f.v, f.def, "must be positive and finite (0 means the default)"); err != nil {
			return s, err
		}
	}
	s.method, err = resolveMethod(o.method, o.noNewton)
	return s, err
}

// count replaces a zero *v by def and rejects a negative one.
func count(name string, v *int, def int) error {
	if *v < 0 {
		return &OptionError{Field: name, Value: float64(*v), Reason: "must not be negative (0 means the default)"}
	}
	if *v == 0 {
		*v = def
	}
	return nil
}

// positive replaces a zero *v by def and rejects a negative, NaN or
// infinite one.
func positive(name string, v *float64, def float64, reason string) error {
	switch x := *v; {
	case x == 0:
		*v = def
	case !(x > 0) || math.IsInf(x, 0):
		return &OptionError{Field: name, Value: x, Reason: reason}
	}
	return nil
}

// checkInputs validates a training set.
func checkInputs(x mat.Matrix, t []float64) error {
	if x == nil {
		return ErrNoData
	}
	n, d := x.Dims()
	if n == 0 {
		return ErrNoData
	}
	if d == 0 {
		return ErrNoColumns
	}
	if len(t) != n {
		return &DimensionError{What: "number of targets vs rows of x", Got: len(t), Want: n}
	}
	if err := checkFinite("x", x); err != nil {
		return err
	}
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{What: "t", Row: i, Col: -1, Value: v}
		}
	}
	return nil
}

// checkFinite reports the first NaN or infinite element of x.
func checkFinite(what string, x mat.Matrix) error {
	n, d := x.Dims()
	for i := range n {
		for j := range d {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return &NonFiniteError{What: what, Row: i, Col: j, Value: v}
			}
		}
	}
	return nil
}

// checkLabels validates classification targets.
func checkLabels(t []float64) error {
	var n1 int
	for i, v := range t {
		switch v {
		case 0:
		case 1:
			n1++
		default:
			return &LabelError{Row: i, Label: strconv.FormatFloat(v, 'g', -1, 64), Reason: "is not 0 or 1"}
		}
	}
	if n1 == 0 || n1 == len(t) {
		return ErrSingleClass
	}
	return nil
}
