package vrvm

import (
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RobustRegressor is the variational relevance vector machine for
// regression with Student-t noise, robust to outlying targets (Tipping &
// Lawrence 2005; the derivation is in docs/robust.md): the model
//
//	tₙ ~ N(wᵀφ(xₙ), (τuₙ)⁻¹),  uₙ ~ Γ(ν/2, ν/2),
//	w ~ N(0, diag(α)⁻¹),  αₘ ~ Γ(a, b),  τ ~ Γ(c, d),
//
// in which integrating out the per-row scale uₙ gives each target a
// Student-t distribution of ν degrees of freedom, fitted by the factorised
// posterior Q_w(w) Q_α(α) Q_τ(τ) Q_u(u), every factor in closed form,
// with ν learned by maximising the bound (or fixed by Nu). A row whose
// residual is large gets a small ⟨uₙ⟩ (RowWeights) and counts little in
// Q_w: Σ = (⟨τ⟩ΦᵀUΦ + diag⟨α⟩)⁻¹ with U = diag⟨uₙ⟩.
//
// The fit is the paper's schedule (PaperSchedule) over the four factors
// and ν, with pruning, run from up to three starts, one of them the
// Gaussian-noise Regressor's Sequential fit, and the start with the
// largest full-model bound kept (docs/robust.md, (RS1)), and a learned ν
// then set to the maximiser of the full-model bound over fits at ν held
// fixed (RS3); there is no
// other solver and no kernel learning. The exported fields configure the
// fit; their zero values mean the defaults, as for Regressor. Fit never
// modifies them. The fitted state is read through the methods.
type RobustRegressor struct {
	// Kernel generates one basis function per training input. If nil, a
	// Gaussian kernel whose width maximises the evidence of the dense
	// Gaussian-noise model, as Regressor's default (docs/design.md, "The default
	// width"), without its doubling (W5).
	Kernel Kernel
	// NoBias removes the bias basis function φ₀ = 1 (present by default).
	NoBias bool
	// Prior holds the Gamma hyperprior parameters of α and τ; zero fields
	// mean 1e-6 (with the scaling for the targets' scale of Regressor,
	// (T1)).
	Prior Prior
	// Alpha0 is the initial ⟨αₘ⟩ of every weight; 0 means 1.
	Alpha0 float64
	// Tau0 is the initial noise precision ⟨τ⟩; 0 means 1/var(t)
	// (population variance).
	Tau0 float64
	// Nu, if positive, fixes the degrees of freedom ν of the noise. 0
	// means ν is learned: set after every iteration to the maximiser of
	// the bound over [0.5, 10⁴] (ST10), starting from DefaultNu (from
	// 10⁴ in the starts from the Gaussian fit, (RS1)), and at the end to
	// the ν whose fit has the largest full-model bound (RS3). A learned
	// ν near 10⁴ says the noise is Gaussian.
	Nu float64
	// Centres is the number of kernel functions the model may use, as
	// Regressor's Centres; 0 means one per training input up to 5,000.
	Centres int
	// NoPrune keeps all N+1 basis functions to the end.
	NoPrune bool
	// PruneAlpha is the pruning threshold: a basis function whose ⟨αₘ⟩
	// exceeds it leaves the active set before the next update of Q_w. 0
	// means 100, as for Regressor.
	PruneAlpha float64
	// MaxIter limits the number of iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol is the convergence tolerance on the relative change of the lower
	// bound per iteration; 0 means 1e-10. A fit stops when, over one
	// iteration, the bound changes by at most Tol·max(1, |L|) and every
	// monitored parameter (⟨αₘ⟩, ⟨τ⟩, ν) by at most ParamTol relative to
	// its value.
	Tol float64
	// ParamTol is the convergence tolerance on the largest relative change
	// per iteration of ⟨αₘ⟩ (active functions), ⟨τ⟩ and ν; 0 means 1e-6.
	ParamTol float64
	// Monitor, if not nil, is called after every iteration; returning
	// true stops the fit with status Stopped. The fit runs from up to
	// three starts (docs/robust.md, (RS1)), and Progress.Iteration counts
	// from 1 in each; the fits of (RS3) at fixed ν do not call it.
	Monitor func(Progress) bool
	// NoAugment turns off the augmentation of predictions, as for
	// Regressor (docs/design.md, "Variance away from the data", (A6)): by default
	// Latent and Predict augment the model at each test point with a
	// kernel function centred there, under the fitted precisions
	// ⟨τ⟩⟨uₙ⟩ of the training rows, so that the predictive variance
	// returns to a prior level away from the relevance vectors. FitDesign
	// and kernels whose K(x, x) varies never augment.
	NoAugment bool

	regressionFit
	nu      float64
	weights []float64
	// step, if not nil, is passed to the solver: it is called after every
	// factor update (tests check that the bound never falls).
	step func(factor string, s *robustState)
}

var _ Estimator = (*RobustRegressor)(nil)

func (r *RobustRegressor) options() options {
	return options{kernel: r.Kernel, noBias: r.NoBias, prior: r.Prior, alpha0: r.Alpha0, noPrune: r.NoPrune,
		pruneAlpha: r.PruneAlpha, maxIter: r.MaxIter, tol: r.Tol, paramTol: r.ParamTol, monitor: r.Monitor,
		centres: r.Centres, hasCentres: true, method: PaperSchedule{}, defPrune: defaultRegressionPrune, ownScale: true}
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *RobustRegressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext: when ctx is
// cancelled the fit stops, keeps the state it reached with status
// Canceled, and returns an error that wraps context.Cause(ctx).
func (r *RobustRegressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	return r.fit(ctx, x, t, false)
}

// FitDesign fits the general linear model with a user-supplied N × M
// design matrix phi, as Regressor.FitDesign: no bias column is added,
// and Kernel is not used.
func (r *RobustRegressor) FitDesign(phi mat.Matrix, t []float64) error {
	return r.fit(context.Background(), phi, t, true)
}

// fit is fitNew under the fit contract (fitted.settle).
func (r *RobustRegressor) fit(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	prev, nu, weights := r.regressionFit, r.nu, r.weights
	err := r.fitNew(ctx, x, t, design)
	if r.settle(ctx, err) {
		r.regressionFit, r.nu, r.weights = prev, nu, weights
	}
	return err
}

// fitNew fits from scratch: the model holds no posterior until the
// solver returns one.
func (r *RobustRegressor) fitNew(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	r.regressionFit, r.nu, r.weights = regressionFit{fitted{task: "regression", estimator: "vrvm"}}, 0, nil
	if !(r.Nu >= 0) || math.IsInf(r.Nu, 0) {
		return &OptionError{Field: "Nu", Value: r.Nu, Reason: "must be positive and finite (0 means learned)"}
	}
	f := &r.regressionFit
	v, err := targetVarScale(t)
	if err != nil {
		return err
	}
	opts := r.options()
	// (T1): the zero-valued defaults stated for the targets' scale, as
	// Regressor states them.
	f.weightScale = targetScale(&opts, &Regressor{Prior: r.Prior, Alpha0: r.Alpha0}, v)
	if opts.kernel == nil && !design {
		if err := f.defaultWidth(ctx, &opts, x, t, KernelLearning{}); err != nil {
			return err
		}
	}
	s, b, err := prepare(opts, x, t, design)
	if err != nil {
		return err
	}
	tau0, err := noisePrecision0("Tau0", r.Tau0, t)
	if err != nil {
		return err
	}
	phi, err := b.fullCtx(ctx, x)
	if err != nil {
		return err
	}
	nu0, learn := r.Nu, r.Nu == 0
	if learn {
		nu0 = DefaultNu
	}
	st, sol, err := robustFit(ctx, robustProblem{basis: b, x: x, phi: phi, t: t, set: s, tau0: tau0, nu0: nu0, learnNu: learn, step: r.step})
	if sol == nil {
		return err
	}
	f.record(b, sol)
	if !r.NoAugment && !design && constantDiagonal(b.kernel, x) { // (A9)
		f.aug = st.augmentation(x, b, sol)
	}
	f.ct, f.dt = st.ct, st.dt
	f.noise = st.dt / st.ct
	r.nu = st.nu
	r.weights = make([]float64, len(t))
	for i := range r.weights {
		r.weights[i] = st.u(i)
	}
	return err
}

// DegreesOfFreedom returns the degrees of freedom ν of the fitted noise:
// learned, or Nu; 0 on a model without a posterior (docs/design.md, "Fit
// contract").
func (r *RobustRegressor) DegreesOfFreedom() float64 { return r.nu }

// TauPosterior returns the shape c̃ and rate d̃ of Q_τ (ST8); ⟨τ⟩ = c̃/d̃
// = 1/NoiseSD² is the precision of a row with uₙ = 1.
func (r *RobustRegressor) TauPosterior() (shape, rate float64) {
	return r.ct, r.dt
}

// RowWeights returns ⟨uₙ⟩ (ST9) for each training row, in the order of
// the rows fitted: the row's weight in Q_w relative to a row with
// uₙ = 1, well below 1 for a row the model treats as an outlier. nil
// for a model read by Load, which does not keep the training rows.
func (r *RobustRegressor) RowWeights() []float64 {
	return append([]float64(nil), r.weights...)
}

// Save writes the fitted model as JSON, as Regressor's Save; Load reads
// it back as a *RobustRegressor.
func (r *RobustRegressor) Save(w io.Writer) error {
	p, err := r.encode()
	if err != nil {
		return err
	}
	p.Likelihood, p.Nu = studentLikelihood, r.nu
	return writeModel(w, p, nil)
}

// studentLikelihood names the Student-t noise of a RobustRegressor in a
// model file.
const studentLikelihood = "student"

// WithKernel returns an unfitted copy of r's configuration with kernel k
// and no Monitor.
func (r *RobustRegressor) WithKernel(k Kernel) Estimator {
	c := *r
	c.Kernel, c.Monitor, c.regressionFit, c.weights, c.nu = k, nil, regressionFit{}, nil, 0
	return &c
}

// HTML is String as an HTML table of properties and values, for notebooks.
func (r *RobustRegressor) HTML() string { return r.summarise().HTML() }

// String summarises the configuration and, once fitted, the fit.
func (r *RobustRegressor) String() string { return r.summarise().String() }

func (r *RobustRegressor) summarise() summary {
	if !r.hasPosterior() {
		return r.describe("vrvm.RobustRegressor", orLearned(r.Kernel), "")
	}
	return r.describe("vrvm.RobustRegressor", orLearned(r.Kernel), "",
		summaryRow{key: "Student-t noise", sep: ": ", value: fmt.Sprintf("ν = %.4g, scale %.4g (⟨τ⟩ = %.4g)", r.nu, r.NoiseSD(), r.ct/r.dt)})
}

// loadRobust rebuilds a RobustRegressor from a model file's payload p and
// its decoded fit f (noise posterior set).
func loadRobust(p *payload, f *fitted) (*RobustRegressor, error) {
	if !(p.Nu > 0) || math.IsInf(p.Nu, 0) {
		return nil, &ModelFileError{Reason: fmt.Sprintf("Student-t degrees of freedom %v, want positive and finite", p.Nu)}
	}
	return &RobustRegressor{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, NoAugment: f.aug == nil, regressionFit: regressionFit{*f}, nu: p.Nu}, nil
}
