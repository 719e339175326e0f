package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Classifier is the variational relevance vector machine for binary
// classification (Bishop & Tipping 2000, section 5): labels tₙ ∈ {0, 1},
// P(t = 1 | x, w) = σ(wᵀφ(x)) (8), the weight prior of the regression
// model, and the Jaakkola–Jordan bound (50) with one variational parameter
// ξₙ per training point.
//
// The exported fields configure the fit; their zero values mean the
// defaults. Fit never modifies them.
type Classifier struct {
	// Kernel generates one basis function per training input.
	// If nil, the width of a Gaussian kernel is learned by maximising
	// the full-model bound, starting from the inputs' MedianDistance, as
	// with Kernel: Gaussian{} and LearnKernel (Learning applies).
	Kernel Kernel
	// NoBias removes the bias basis function φ₀ = 1 (present by default).
	NoBias bool
	// Prior holds the Gamma hyperprior parameters (A, B); zero fields mean
	// 1e-6. C and D are not used.
	Prior Prior
	// Alpha0 is the initial ⟨αₘ⟩ of every weight; 0 means 1.
	Alpha0 float64
	// Xi0 is the initial value of every ξₙ; 0 means 1.
	Xi0 float64
	// Centres is the number of kernel functions the model may use, each
	// centred at a training input. 0 means one per training input when
	// there are at most 5,000 of them, and 5,000
	// otherwise; a value at or above the number of training rows also
	// means one per input. Fewer centres than inputs are drawn uniformly
	// without replacement by a generator with a fixed seed, so that a
	// refit gives the same subset; RelevanceVectors and ActiveSet still
	// report training rows. The design is then N × Centres, and the
	// memory of the fit O(N·Centres) at most. LearnKernel needs every
	// input as a centre.
	Centres int
	// NoPrune, PruneAlpha, MaxIter, Tol, ParamTol, Monitor and Method are
	// as for Regressor, except that a zero PruneAlpha means 10, that it
	// applies to the basis functions divided to a root mean square of at
	// most 1 (docs/design.md, "Pruning and convergence", (U1)), and that
	// ParamTol monitors the ξₙ where a regression monitors ⟨τ⟩.
	NoPrune    bool
	PruneAlpha float64
	MaxIter    int
	Tol        float64
	ParamTol   float64
	Monitor    func(Progress) bool
	Method     Method

	// LearnKernel, Learning and NoAugment are as for Regressor: kernel
	// learning by the full-model bound, and predictions augmented at
	// each test point unless NoAugment is set (a Polynomial or Linear
	// kernel is never augmented, (A9)).
	LearnKernel bool
	Learning    KernelLearning
	NoAugment   bool
	// NoRescale fits the kernel exactly as given, the paper's model: the
	// Gamma prior on ⟨αₘ⟩ and PruneAlpha then apply to the weights of
	// the kernel's own functions. By default a kernel other than
	// Gaussian and ARDGaussian whose values at the training inputs have
	// a root mean square s above 1 (a Polynomial of high degree, a
	// Linear kernel on wide inputs), and a column of a design given to
	// FitDesign with such a root mean square, is divided by s before
	// the fit (docs/design.md, (U1)), so that the prior and the threshold mean
	// the same whatever the scale of the inputs; the fitted model is
	// stated in the kernel's own units either way (U2). Gaussian
	// kernels are never divided, so NoRescale does not change their fit.
	NoRescale bool

	// ctl holds the controls of the engine's parts (controls.go; zero:
	// every part on), set by tests and ablations.
	ctl controls

	classificationFit
}

// classificationFit is the fitted state of a binary classifier.
type classificationFit struct{ fitted }

// Task reports Classification.
func (f *classificationFit) Task() Task { return Classification }

// ProbPlugin returns P(t = 1 | x, ⟨w⟩) = σ(μᵀφ(x)) (65) for each row of x.
func (f *classificationFit) ProbPlugin(x mat.Matrix) ([]float64, error) {
	m, _, err := f.Latent(x)
	if err != nil {
		return nil, err
	}
	for i, v := range m {
		m[i] = Sigmoid(v)
	}
	return m, nil
}

// ProbModerated returns MacKay's moderated probability σ(κ(s²) μᵀφ(x)),
// κ(s²) = (1 + πs²/8)^(−1/2), which accounts for the posterior uncertainty
// of the weights, for each row of x.
func (f *classificationFit) ProbModerated(x mat.Matrix) ([]float64, error) {
	m, v, err := f.Latent(x)
	if err != nil {
		return nil, err
	}
	for i := range m {
		m[i] = Moderated(m[i], v[i])
	}
	return m, nil
}

// Predict returns the most probable label (0 or 1) for each row of x: 1
// where the activation mean is positive. Plug-in and moderated
// probabilities give the same labels.
func (f *classificationFit) Predict(x mat.Matrix) ([]float64, error) {
	m, _, err := f.Latent(x)
	if err != nil {
		return nil, err
	}
	for i, v := range m {
		if v > 0 {
			m[i] = 1
		} else {
			m[i] = 0
		}
	}
	return m, nil
}

func (c *Classifier) options() options {
	return options{kernel: c.Kernel, noBias: c.NoBias, prior: c.Prior, alpha0: c.Alpha0, noPrune: c.NoPrune,
		pruneAlpha: c.PruneAlpha, maxIter: c.MaxIter, tol: c.Tol, paramTol: c.ParamTol, monitor: c.Monitor,
		centres: c.Centres, hasCentres: true,
		method: c.Method, defPrune: defaultClassificationPrune, ownScale: c.NoRescale, ctl: c.ctl}
}

// Fit fits the classifier to inputs x (one row per sample) and labels t in {0, 1}.
func (c *Classifier) Fit(x mat.Matrix, t []float64) error {
	return c.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (c *Classifier) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	return c.fit(ctx, x, t, false)
}

// FitDesign fits the classifier with a user-supplied N × M design matrix
// (see Regressor.FitDesign); predict by passing rows of the design at new
// inputs to the prediction methods.
func (c *Classifier) FitDesign(phi mat.Matrix, t []float64) error {
	return c.fit(context.Background(), phi, t, true)
}

// fit is fitNew under the fit contract (fitted.settle).
func (c *Classifier) fit(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	_, err := fitUnder(ctx, &c.classificationFit, &c.fitted, func() error { return c.fitNew(ctx, x, t, design) })
	return err
}

func (c *Classifier) fitNew(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	c.classificationFit = classificationFit{fitted{task: "classification", estimator: "vrvm"}}
	lik, err := c.fitVariational(ctx, c.options(), x, t, design, variational{c.LearnKernel, c.Learning, !c.NoAugment && !design, false, false},
		func(_ settings, t []float64) (likelihood, error) {
			if err := checkLabels(t); err != nil {
				return nil, err
			}
			xi0 := c.Xi0
			switch {
			case xi0 == 0:
				xi0 = 1
			case !(xi0 > 0) || math.IsInf(xi0, 0):
				return nil, &OptionError{Field: "Xi0", Value: xi0, Reason: "must be positive and finite (0 means 1)"}
			}
			return newLogitLik(t, xi0), nil
		})
	if lik != nil {
		c.xi = lik.Factor(nil)
	}
	return err
}

// Xi returns the variational parameters ξₙ, one per training point.
func (c *Classifier) Xi() []float64 { return append([]float64(nil), c.xi...) }

// WithKernel returns an unfitted copy of c's configuration with kernel k
// and no Monitor.
func (c *Classifier) WithKernel(k Kernel) Estimator {
	d := *c
	d.Kernel, d.Monitor, d.classificationFit = k, nil, classificationFit{}
	return &d
}

// HTML is String as an HTML table of properties and values, for notebooks.
func (c *Classifier) HTML() string { return c.summarise().HTML() }

// String summarises the configuration and, once fitted, the fit.
func (c *Classifier) String() string { return c.summarise().String() }

func (c *Classifier) summarise() summary {
	return c.describe("vrvm.Classifier", orLearned(c.Kernel), methodName(c.Method))
}
