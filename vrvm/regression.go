package vrvm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// Regressor is the variational relevance vector machine for regression
// (Bishop & Tipping 2000, section 4): the model tₙ = wᵀφ(xₙ) + ε with noise
// precision τ, weight precisions αₘ and Gamma hyperpriors, fitted by the
// factorised posterior Q_w(w) Q_α(α) Q_τ(τ).
//
// The exported fields configure the fit; their zero values mean the
// defaults. Fit never modifies them. The fitted state is read through the
// methods.
//
// Multiplying the targets by c multiplies every weight by c and divides
// ⟨αₘ⟩ and ⟨τ⟩ by c². For targets of population variance v > 1 the
// zero-valued Prior.B, Prior.D, Alpha0 and PruneAlpha therefore mean
// their defaults stated for the targets divided by √v (T1 in docs/design.md,
// "Target scale"), and the fit does not depend on the targets' scale
// above unit variance; values set explicitly are used as given.
type Regressor struct {
	// Kernel generates one basis function per training input.
	// If nil, a Gaussian kernel whose width maximises the evidence of the
	// dense model (every kernel function kept, one shared weight
	// precision; docs/design.md, "The default width"), searched from the inputs'
	// MedianDistance on at most Learning.MaxRows rows, and doubled while
	// the fit's EffectiveParameters exceed half the rows (W5; see
	// WidthDoublings). Kernel: Gaussian{}
	// with LearnKernel learns the width too (by the same evidence).
	Kernel Kernel
	// NoBias removes the bias basis function φ₀ = 1 (present by default).
	NoBias bool
	// Prior holds the Gamma hyperprior parameters; zero fields mean 1e-6.
	Prior Prior
	// Alpha0 is the initial ⟨αₘ⟩ of every weight; 0 means 1.
	Alpha0 float64
	// Tau0 is the initial noise precision ⟨τ⟩; 0 means 1/var(t)
	// (population variance).
	Tau0 float64
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
	// NoPrune keeps all N+1 basis functions to the end (the pure algorithm
	// and the setting of the reference fixtures).
	NoPrune bool
	// PruneAlpha is the pruning threshold: a basis function whose ⟨αₘ⟩
	// exceeds it leaves the active set. 0 means 100 (docs/design.md, "Pruning").
	// The Sequential solver holds active functions at ⟨αₘ⟩ ≤ PruneAlpha
	// and removes one whose optimum exceeds it; in its final polish, only
	// if the full-model bound loses less than 0.1 nat by it (S5).
	// With the default priors ⟨αₘ⟩ ≤ (a + ½)/b = 5e5, so thresholds at or
	// above that never prune.
	PruneAlpha float64
	// MaxIter limits the number of iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol is the convergence tolerance on the relative change of the lower
	// bound per iteration; 0 means 1e-10. A fit stops when, over one
	// iteration, the bound changes by at most Tol·max(1, |L|) and every
	// monitored parameter by at most ParamTol relative to its value.
	Tol float64
	// ParamTol is the convergence tolerance on the largest relative change
	// per iteration of ⟨αₘ⟩ (active functions) and ⟨τ⟩; 0 means 1e-6.
	ParamTol float64
	// Monitor, if not nil, is called after every iteration; returning
	// true stops the fit with status Stopped.
	Monitor func(Progress) bool
	// Method is the algorithm that maximises the bound: Sequential{},
	// PaperSchedule{} or Newton{...}; nil means Sequential{}.
	Method Method
	// LearnKernel learns the kernel's parameters by maximising the
	// evidence of the dense model (every kernel function kept, one shared
	// weight precision: the Gaussian process whose covariance is the
	// model's prior) with a hyperprior on the log scales: the width of a
	// Gaussian kernel, or the length scales of an ARDGaussian kernel, by
	// L-BFGS from the default width (and from the kernel's values where
	// given) on at most Learning.MaxRows rows (300 for ARD unless
	// MaxRows is set), then fits the sparse model at that kernel as the
	// default does (W5). A guard keeps the default width instead unless
	// the learned kernel raises the evidence by more than one nat per
	// further length scale that does not switch its input off (at least
	// half a nat), and a second keeps it only if the sparse fit at it
	// predicts the learning rows, each held out in turn, better than the
	// fit at the default width by more than two standard errors; String
	// reports the values and which was kept, and LearnTrace holds the
	// first two (docs/kernel-learning.md, (E1)–(E6), (E8)).
	// FittedKernel reports the kernel fitted (an ARDGaussian with equal
	// scales where the guard kept the default width), which Save writes
	// with the model. Other kernels, FitDesign and more than 2,000
	// learning rows are errors.
	LearnKernel bool
	// Learning holds the settings of kernel learning; the zero value
	// means the defaults.
	Learning KernelLearning
	// NoAugment turns off the augmentation of predictions. By default
	// Latent and the predictions augment the model at each test point
	// with a kernel function centred there (Rasmussen & Quiñonero-Candela
	// 2005; docs/design.md, "Variance away from the data", (A6)), so that the
	// predictive variance returns to a prior level away from the
	// relevance vectors instead of collapsing to the noise. The model
	// then keeps a low-rank factor of the kernel matrix at the training
	// inputs over r pivots ((A10)–(A13): the sd within about 1.5 % of the
	// exact augmentation; (A14): the fewest leading pivots whose
	// predictions match all r at probe points), and each prediction
	// costs O(r(d + r + M)) more for d inputs and M active functions,
	// whatever the number N of training rows; a kernel matrix that needs
	// more than min(256, N/2) pivots keeps the training inputs instead, at
	// O(N(d + M)) more per prediction, or, above 2,048 training rows with
	// the floor below, keeps the floor alone ((A19): the plain mean and
	// variance held at the floor's, at O(M² + m(d + m)) a prediction; the
	// variance far from the data is then the floor's GP prior, not
	// (A5)'s). With a Gaussian or ARDGaussian
	// kernel the augmented latent variance is also held at least at that
	// of the GP with the sparse model's continuum-limit prior, the kernel
	// at √2 times its widths ((A15)–(A18): the sparse posterior is too
	// confident where the data are dense but the relevance vectors few),
	// through a pivoted Cholesky factor of at most 512 pivots, at O(m(d +
	// m)) more per prediction for its m pivots. The paper's model is not
	// augmented (NoAugment: true).
	// FitDesign, which has no kernel to centre at a test point, never
	// augments, nor does a kernel whose K(x, x) varies over the training
	// inputs, such as Polynomial and Linear ((A9): their variance grows
	// away from the data by itself).
	NoAugment bool
	// ExactAugment keeps the exact augmentation (A1)–(A4) wherever the
	// kernel matrix fails (A12), at any number of training rows, instead
	// of the floor alone above 2,048 rows (A19): the model then holds
	// every training input, and each prediction costs O(N(d + M)) more.
	ExactAugment bool
	// KeepDuplicates fits every row. By default Fit leaves out a row whose
	// inputs and target both equal an earlier row's (D1 in docs/design.md,
	// "Repeated rows"): under Gaussian noise two targets are never equal,
	// and each such pair pulls the noise estimate toward zero.
	// RelevanceVectors and ActiveSet report rows of the x given either
	// way; Duplicates reports how many were left out. FitDesign fits
	// every row.
	KeepDuplicates bool

	// ctl holds the controls of the engine's parts (controls.go; zero:
	// every part on), set by tests and ablations.
	ctl controls

	regressionFit
	duplicates int
}

// Duplicates returns the number of training rows the last Fit left out as
// repeats of an earlier row, inputs and target (KeepDuplicates).
func (r *Regressor) Duplicates() int { return r.duplicates }

// WidthDoublings returns the number of times the last Fit with the
// default kernel (a nil Kernel; for Regressor, LearnKernel false) doubled
// the width of the dense model's evidence because the fit at the
// narrower width had an effective number of parameters
// (EffectiveParameters) above half the rows (docs/design.md, "The default
// width", (W5), and (R6) for RVMRegressor); 0 for every other fit.
func (f *regressionFit) WidthDoublings() int { return f.widthDoublings }

// regressionFit is the fitted state of a regression model.
type regressionFit struct{ fitted }

// Predict returns the predictive mean μᵀφ(x) and variance
// noise + φ(x)ᵀΣφ(x) for each row of x: (37)–(38) with noise 1/⟨τ⟩ for
// the VRVM, 1/β for the RVM; for a Regressor fitted without NoAugment,
// those of the model augmented at the row, (A3)–(A4), floored by (A18).
func (f *regressionFit) Predict(x mat.Matrix) (mean, variance []float64, err error) {
	mean, variance, err = f.Latent(x)
	if err != nil {
		return nil, nil, err
	}
	for i := range variance {
		variance[i] += f.noise
		if math.IsInf(variance[i], 0) {
			return nil, nil, &NonFiniteError{What: "predicted variance", Row: i, Col: -1, Value: variance[i]}
		}
	}
	return mean, variance, nil
}

// Task reports Regression.
func (f *regressionFit) Task() Task { return Regression }

// EffectiveParameters returns γ = Σₘ (1 − ⟨αₘ⟩Σₘₘ) over the active
// weights (αₘ for the RVM estimators): the number of weights the data
// determine rather than the prior (MacKay 1992; Tipping 2001, section
// 2.2), between 0 and the number of active weights. The training
// residual has about N − γ degrees of freedom, and the noise estimate
// rests on them: with γ close to the number of training rows N the model
// nearly interpolates its targets and NoiseSD is far too small, most
// often because the kernel is too narrow for the inputs (on Friedman #1,
// N = 300, Gaussian width 0.16 gives γ = 294 and noise sd 0.04 for a true
// 1; the default width gives γ = 42 and 1.4).
func (f *regressionFit) EffectiveParameters() float64 {
	if !f.hasPosterior() {
		return 0
	}
	return posterior.EffectiveParams(f.alpha, f.sigma.get())
}

func (r *Regressor) options() options {
	return options{kernel: r.Kernel, noBias: r.NoBias, prior: r.Prior, alpha0: r.Alpha0, noPrune: r.NoPrune,
		pruneAlpha: r.PruneAlpha, maxIter: r.MaxIter, tol: r.Tol, paramTol: r.ParamTol, monitor: r.Monitor,
		centres: r.Centres, hasCentres: true,
		method: r.Method, defPrune: defaultRegressionPrune, ownScale: true, ctl: r.ctl}
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *Regressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context: when ctx is cancelled the fit stops,
// keeps the state it reached with status Canceled, and returns an error
// that wraps context.Cause(ctx) (so errors.Is(err, context.Canceled)
// holds for a plain cancellation). A fit cancelled before its first
// iteration keeps no posterior: its accessors return zero values and
// its predictions ErrNotFitted. A fit that fails otherwise (bad data or
// options) leaves the model as it was: see "Fit contract" in the package
// documentation.
func (r *Regressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	return r.fit(ctx, x, t, false)
}

// FitDesign fits the general linear model (1) with a user-supplied N × M
// design matrix phi: column m holds basis function φₘ at the N training
// inputs. No bias column is added, and Kernel is not used. Predict by
// passing rows of the design at new inputs to Predict or Latent.
func (r *Regressor) FitDesign(phi mat.Matrix, t []float64) error {
	return r.fit(context.Background(), phi, t, true)
}

// fit is fitNew under the fit contract (fitted.settle).
func (r *Regressor) fit(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	dup := r.duplicates
	restored, err := fitUnder(ctx, &r.regressionFit, &r.fitted, func() error { return r.fitNew(ctx, x, t, design) })
	if restored {
		r.duplicates = dup
	}
	return err
}

func (r *Regressor) fitNew(ctx context.Context, x mat.Matrix, t []float64, design bool) error {
	r.regressionFit = regressionFit{fitted{task: "regression", estimator: "vrvm"}}
	r.duplicates = 0
	var kept []int
	if !design && !r.KeepDuplicates {
		if xs, ts, k := distinctData(x, t); k != nil {
			r.duplicates = len(t) - len(k)
			x, t, kept = xs, ts, k
		}
	}
	defer func() {
		if kept == nil {
			return
		}
		// Rows of the data given (RelevanceVectors, ActiveSet).
		for i, row := range r.rows {
			r.rows[i] = kept[row]
		}
	}()
	v, err := targetVarScale(t)
	if err != nil {
		return err
	}
	opts := r.options()
	r.weightScale = targetScale(&opts, r, v)
	lik, err := r.fitVariational(ctx, opts, x, t, design, variational{r.LearnKernel, r.Learning, !r.NoAugment && !design, r.ExactAugment, true},
		func(s settings, t []float64) (likelihood, error) {
			tau0, err := noisePrecision0("Tau0", r.Tau0, t)
			if err != nil {
				return nil, err
			}
			return newGaussLik(t, s.prior, tau0), nil
		})
	if lik != nil {
		f := lik.Factor(nil) // c̃, d̃
		r.ct, r.dt = f[0], f[1]
		r.noise = r.dt / r.ct
	}
	return err
}

// targetScale states the zero-valued defaults of o for targets of
// population variance v outside [minTargetVar, 1] as for the targets
// divided by √(v/v₁), v₁ the nearer end of that range (T1), given
// s = v/v₁ (targetVarScale): the rates b and d of the Gamma priors times
// s, Alpha0 and PruneAlpha divided by it. Multiplying the targets by c
// multiplies the weights by c and divides ⟨αₘ⟩ and ⟨τ⟩ by c²; with the
// defaults so scaled every update is the same as on the divided targets,
// so that the fit does not depend on the targets' scale outside that
// range. It returns √s, 1 where nothing was scaled.
func targetScale(o *options, r *Regressor, v float64) float64 {
	if v == 1 {
		return 1
	}
	if r.Prior.B == 0 {
		o.prior.B = DefaultPrior * v
	}
	if r.Prior.D == 0 {
		o.prior.D = DefaultPrior * v
	}
	if r.Alpha0 == 0 {
		o.alpha0 = 1 / v
	}
	o.defPrune = defaultRegressionPrune / v
	return math.Sqrt(v)
}

// minTargetVar is the smallest population variance of regression targets
// for which the zero-valued defaults are taken as they are (T1): sinc's
// targets, on which the paper's defaults were set, have variance about
// 0.1, and targets 0.1 times them (variance 10⁻³) fitted with the
// unscaled defaults had 3 times the error, 10⁻³ times them none but the
// bias.
const minTargetVar = 1e-2

// Regression targets whose population variance is outside
// [minFitVar, maxFitVar] (standard deviation beyond 10⁻⁶⁰ or 10⁶⁰) are
// refused with ErrTargetScale: even with (T1), products of squared
// weights and precisions leave float64's range at such scales (the
// sequential solver found no function to add at 10⁻⁸⁰ times sinc's
// targets, and no Cholesky factor at 10⁸⁰ times).
const (
	minFitVar = 1e-120
	maxFitVar = 1e120
)

// targetVarScale returns s = v/v₁ for targets t of population variance v
// outside [minTargetVar, 1], v₁ the nearer end, or 1 (T1); and
// ErrTargetScale for finite, non-constant targets whose variance is
// outside [minFitVar, maxFitVar]. Other targets (NaN, constant, fewer
// than two) get 1 and are left to the checks of the fit.
func targetVarScale(t []float64) (float64, error) {
	if len(t) < 2 || constantSlice(t) {
		return 1, nil
	}
	for _, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 1, nil
		}
	}
	_, sd := stat.PopMeanStdDev(t, nil)
	return varScale(sd * sd)
}

// varScale is targetVarScale for targets of population variance v.
func varScale(v float64) (float64, error) {
	switch {
	case !(v >= minFitVar && v <= maxFitVar):
		return 1, ErrTargetScale
	case v > 1:
		return v, nil
	case v < minTargetVar:
		return v / minTargetVar, nil
	}
	return 1, nil
}

// TauPosterior returns the shape c̃ and rate d̃ of Q_τ (26)–(27); the
// posterior mean noise precision is ⟨τ⟩ = c̃/d̃ = 1/NoiseSD². Both are 0
// for a model without a posterior.
func (r *Regressor) TauPosterior() (shape, rate float64) {
	return r.ct, r.dt
}

// WithKernel returns an unfitted copy of r's configuration with kernel k
// and no Monitor.
func (r *Regressor) WithKernel(k Kernel) Estimator {
	c := *r
	c.Kernel, c.Monitor, c.regressionFit = k, nil, regressionFit{}
	return &c
}

// HTML is String as an HTML table of properties and values, for notebooks.
func (r *Regressor) HTML() string { return r.summarise().HTML() }

// String summarises the configuration and, once fitted, the fit.
func (r *Regressor) String() string { return r.summarise().String() }

func (r *Regressor) summarise() summary {
	if !r.hasPosterior() {
		return r.describe("vrvm.Regressor", orLearned(r.Kernel), methodName(r.Method))
	}
	return r.describe("vrvm.Regressor", orLearned(r.Kernel), methodName(r.Method), row("noise sd", fmt.Sprintf("%.4g (⟨τ⟩ = %.4g)", r.NoiseSD(), r.ct/r.dt)))
}

// noisePrecision0 returns the initial noise precision: v0, or 1/var(t)
// (population variance) when v0 is zero.
func noisePrecision0(field string, v0 float64, t []float64) (float64, error) {
	switch {
	case v0 == 0:
		v := variance(t)
		if v == 0 && constantSlice(t) {
			return 0, ErrConstantTargets
		}
		if p := 1 / v; !(p > 0) || math.IsInf(p, 0) || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, ErrTargetScale
		}
		return 1 / v, nil
	case !(v0 > 0) || math.IsInf(v0, 0):
		return 0, &OptionError{Field: field, Value: v0, Reason: "must be positive and finite (0 means 1/var(t))"}
	}
	return v0, nil
}

// constantSlice reports whether every element of t equals the first.
func constantSlice(t []float64) bool {
	for _, v := range t {
		if v != t[0] {
			return false
		}
	}
	return true
}
