package vrvm

import (
	"context"
	"io"
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
	// NoPrune keeps all N+1 basis functions to the end.
	NoPrune bool
	// PruneAlpha is the pruning threshold on ⟨αₘ⟩; 0 means
	// DefaultClassificationPrune.
	PruneAlpha float64
	// MaxIter limits the number of iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol is the convergence tolerance on the relative change of the lower
	// bound per iteration; 0 means DefaultTol.
	Tol float64
	// ParamTol is the convergence tolerance on the largest relative change
	// per iteration of ⟨αₘ⟩ (active functions) and ξₙ; 0 means
	// DefaultParamTol.
	ParamTol float64
	// Monitor, if not nil, is called after every iteration; returning
	// true stops the fit with status Stopped.
	Monitor func(Progress) bool
	// Solver selects the algorithm that maximises the bound; the zero
	// value is Sequential.
	Solver Solver
	// LearnKernel learns the kernel's parameters by maximising the
	// full-model bound, as Regressor.LearnKernel.
	LearnKernel bool
	// Learning holds the settings of kernel learning; the zero value
	// means the defaults.
	Learning KernelLearning
	// Augment makes Latent and the predictions augment the model at each
	// test point with a kernel function centred there (Rasmussen &
	// Quiñonero-Candela 2005; doc.go, "Variance away from the data"), so
	// that the predictive variance returns to a prior level far from the
	// training inputs instead of collapsing to the noise. The model then
	// keeps the training inputs, and each prediction costs O(N(d + M))
	// more for N training rows, d inputs and M active functions. Not
	// available with FitDesign.
	Augment bool

	classificationFit
	xi []float64
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
		solver: c.Solver, defPrune: DefaultClassificationPrune}
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

func (c *Classifier) fit(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	c.classificationFit, c.xi = classificationFit{}, nil
	lik, err := c.fitVariational(ctx, c.options(), x, t, design, variational{c.LearnKernel, c.Learning, c.Augment},
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
		c.xi = append([]float64(nil), lik.(*logitLik).xi...)
	}
	return err
}

// Xi returns the variational parameters ξₙ, one per training point.
func (c *Classifier) Xi() []float64 { c.mustFit(); return append([]float64(nil), c.xi...) }

// WithKernel returns an unfitted copy of c's configuration with kernel k
// and no Monitor.
func (c *Classifier) WithKernel(k Kernel) Estimator {
	return &Classifier{Kernel: k, NoBias: c.NoBias, Prior: c.Prior, Alpha0: c.Alpha0, Xi0: c.Xi0, NoPrune: c.NoPrune,
		PruneAlpha: c.PruneAlpha, MaxIter: c.MaxIter, Tol: c.Tol, ParamTol: c.ParamTol, Solver: c.Solver,
		LearnKernel: c.LearnKernel, Learning: c.Learning, Augment: c.Augment}
}

// Save writes the fitted classifier as JSON (see Load).
func (c *Classifier) Save(w io.Writer) error {
	p, err := c.encode("classification", "vrvm")
	if err != nil {
		return err
	}
	p.Xi = c.xi
	return writeModel(w, p, nil)
}

// HTML is String as an HTML table, for notebooks.
func (c *Classifier) HTML() string { return htmlSummary(c.String()) }

// String summarises the configuration and, once fitted, the fit.
func (c *Classifier) String() string {
	return c.describe("vrvm.Classifier", orLearned(c.Kernel), c.Solver.String())
}
