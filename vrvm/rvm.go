package vrvm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/rvm"
)

// RVMRegressor is the relevance vector machine of Tipping (2001) for
// regression, fitted by type-II maximum likelihood (evidence
// maximisation): point estimates of αₘ and of the noise precision β, and
// the Gaussian posterior over w given them. It is the baseline that
// Bishop & Tipping (2000) compare the variational RVM with.
//
// Updates (Tipping 2001, eqs. 45–47):
//
//	Σ = (A + βΦᵀΦ)⁻¹,  μ = βΣΦᵀt,  γₘ = 1 − αₘΣₘₘ,
//	αₘ ← γₘ/μₘ²,       β ← (N − Σₘγₘ)/‖t − Φμ‖².
//
// Method chooses how the evidence is maximised: by default (Sequential)
// the sequential algorithm of Tipping & Faul (2003), which
// starts from one basis function and, one function per iteration, adds
// the function, re-estimates its αₘ to the exact optimum given the
// others, or deletes it, whichever raises the evidence most; it works on
// the factorisation of the design that the variational Sequential solver
// uses and never forms the N × N kernel matrix for a positive
// semi-definite kernel, so it scales to large N. PaperSchedule iterates
// the updates above on all N + 1 functions, as Tipping (2001) and the
// paper did, forming the full design and its Gram matrix (O(N³) per
// early iteration). The two can stop at different local maxima of the
// evidence; Newton is an *OptionError. Alpha0 is the initial αₘ of every
// function for PaperSchedule, and of the first function for Sequential
// when the evidence has no finite optimum for it; PruneAlpha removes
// functions whose αₘ exceeds it. A fit converges when no re-estimate
// (and, for Sequential, no addition or deletion) would change any ln αₘ,
// nor ln β, by more than Tol.
//
// LowerBound and BoundTrace report the log evidence ln p(t | α, β);
// NoiseSD is 1/√β. The exported fields configure the fit; zero values
// mean the defaults.
type RVMRegressor struct {
	// Kernel generates one basis function per training input. nil means
	// a Gaussian whose width is Regressor's default, chosen from the
	// data: the width that maximises the evidence of the dense model
	// (docs/design.md, "The default width", (W4), a type-II maximum likelihood
	// criterion itself) on at most 500 rows spread through the data,
	// doubled while the fit's EffectiveParameters exceed half the rows
	// ((W5); WidthDoublings) (R6). FittedKernel reports it and Save
	// writes it with the model.
	Kernel     Kernel
	Method     Method  // Sequential{} (nil means it) or PaperSchedule{}
	NoBias     bool    // remove the bias function φ₀ = 1
	Alpha0     float64 // initial αₘ; 0 means 1
	Beta0      float64 // initial β; 0 means 1/var(t)
	PruneAlpha float64 // pruning threshold on αₘ; 0 means 1e12 (the αₘ of irrelevant functions diverge)
	MaxIter    int     // 0 means DefaultMaxIter
	Tol        float64 // largest change of ln αₘ and ln β at convergence; 0 means 1e-6
	// Monitor, if not nil, is called after every iteration with the log
	// evidence as Bound; returning true stops the fit.
	Monitor func(Progress) bool
	// Centres is as for Regressor: the number of kernel functions the
	// model may use, one per training input up to 5,000 rows and 5,000
	// drawn from them (with a fixed seed) above that, so that the
	// design, N × Centres, bounds the memory of a fit.
	Centres int

	// ctl holds the controls of the engine's parts (controls.go; zero:
	// every part on), set by tests and ablations.
	ctl controls

	regressionFit
}

// RVMClassifier is the type-II maximum likelihood RVM of Tipping (2001)
// for binary classification: for fixed α the weight posterior is
// approximated by Laplace's method around its mode, found by iteratively
// reweighted least squares (Newton's method), and α maximises the
// evidence of that Gaussian, by the Method and with the options of
// RVMRegressor (without β). LowerBound and BoundTrace report Laplace's
// approximation of the log evidence.
type RVMClassifier struct {
	// Kernel generates one basis function per training input. nil means
	// a Gaussian whose width is the one Classifier's default learns by
	// its full-model bound (an approximation of the same evidence),
	// started from the inputs' MedianDistance, on at most 500 rows spread
	// through the data (docs/design.md (R7)); FittedKernel reports it,
	// LearnTrace the bounds of that learning, and Save writes it with the
	// model.
	Kernel     Kernel
	Method     Method
	NoBias     bool
	Alpha0     float64
	PruneAlpha float64
	MaxIter    int
	Tol        float64
	Monitor    func(Progress) bool
	// Centres is as for RVMRegressor.
	Centres int

	// ctl holds the controls of the engine's parts (controls.go; zero:
	// every part on), set by tests and ablations.
	ctl controls

	classificationFit
}

func (r *RVMRegressor) options() options {
	o := rvmOptions(r.Kernel, r.NoBias, r.Alpha0, r.PruneAlpha, r.MaxIter, r.Tol, r.Monitor, r.Centres)
	o.method, o.noNewton, o.ctl = r.Method, "RVMRegressor", r.ctl
	return o
}

func (c *RVMClassifier) options() options {
	o := rvmOptions(c.Kernel, c.NoBias, c.Alpha0, c.PruneAlpha, c.MaxIter, c.Tol, c.Monitor, c.Centres)
	o.method, o.noNewton, o.ctl = c.Method, "RVMClassifier", c.ctl
	return o
}

// rvmOptions are the options of the RVM estimators, with their defaults.
func rvmOptions(k Kernel, noBias bool, alpha0, prune float64, maxIter int, tol float64, monitor func(Progress) bool, centres int) options {
	return options{kernel: k, noBias: noBias, alpha0: alpha0, pruneAlpha: prune, maxIter: maxIter,
		tol: tol, monitor: monitor, defPrune: defaultRVMPrune, defTol: defaultRVMTol, ownScale: true,
		centres: centres, hasCentres: true}
}

// prepareRVM records the kind of an RVM model in f and checks its
// options (the method Newton is an *OptionError) and data. For a nil
// Kernel it sets o.kernel to the default Gaussian: for regression the
// width of the dense model's evidence (W4) (R6), for classification the
// width Classifier's default learns by its bound (R7).
func (f *fitted) prepareRVM(ctx context.Context, task string, o *options, x mat.Matrix, t []float64) (settings, basis, error) {
	*f = fitted{task: task, estimator: "rvm"}
	if o.kernel == nil {
		// The options first: a bad one is reported before the search.
		if _, err := o.resolve(); err != nil {
			return settings{}, basis{}, err
		}
		var err error
		if task == "regression" {
			err = f.defaultWidth(ctx, o, x, t, KernelLearning{}) // (R6)
		} else {
			err = f.rvmClassifierWidth(ctx, o, x, t) // (R7)
		}
		if err != nil {
			return settings{}, basis{}, err
		}
	}
	return prepare(*o, x, t, false)
}

// rvmClassifierWidth sets o.kernel to the Gaussian that Classifier's
// default (a nil Kernel) learns by its full-model bound, on the rows of
// x it learns on (at most defaultLearnRows, spread through x, or all of
// them if those hold one class only), and f.learnTrace to the bounds of
// that learning (R7). On inputs whose rows are all equal that is
// Gaussian{Width: 1}, as for Classifier.
func (f *fitted) rvmClassifierWidth(ctx context.Context, o *options, x mat.Matrix, t []float64) error {
	if err := checkInputs(x, t); err != nil {
		return err
	}
	if err := checkLabels(t); err != nil {
		return err
	}
	xs, ts := learnRows(x, t, defaultLearnRows)
	if checkLabels(ts) != nil {
		xs, ts = x, t
	}
	var c Classifier
	if err := c.FitContext(ctx, xs, ts); err != nil {
		if ctx != nil && ctx.Err() != nil {
			return stopped(ctx, 0)
		}
		return fmt.Errorf("vrvm: RVMClassifier's default width, learned by Classifier (R7): %w", err)
	}
	o.kernel, f.learnTrace = c.FittedKernel(), c.LearnTrace()
	return nil
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *RVMRegressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (r *RVMRegressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	_, err := fitUnder(ctx, &r.regressionFit, &r.fitted, func() error { return r.fitNew(ctx, x, t) })
	return err
}

func (r *RVMRegressor) fitNew(ctx context.Context, x mat.Matrix, t []float64) error {
	r.regressionFit = regressionFit{fitted{task: "regression", estimator: "rvm"}}
	v, err := targetVarScale(t)
	if err != nil {
		return err
	}
	o := r.options()
	// Targets of variance below minTargetVar: the zero-valued PruneAlpha
	// and Alpha0 as for targets of that variance (T1), as Regressor's. The
	// type-II model has no prior to scale, and above unit variance the
	// threshold 10¹² is only more lenient than in standardised units.
	if v < 1 {
		o.defPrune = defaultRVMPrune / v
		if r.Alpha0 == 0 {
			o.alpha0 = 1 / v
		}
	}
	set, b, err := r.prepareRVM(ctx, "regression", &o, x, t)
	if err != nil {
		return err
	}
	if v < 1 {
		r.weightScale = math.Sqrt(v)
	}
	beta, err := noisePrecision0("Beta0", r.Beta0, t)
	if err != nil {
		return err
	}
	if r.Kernel != nil {
		return r.fit(ctx, set, b, x, t, beta)
	}
	// The default width (R6): that of (W4), doubled while the fit's γ
	// exceeds half the rows (W5), as Regressor's (fitWidened). The
	// sequential algorithm stops a fit as soon as its γ passes the limit.
	limit := widthCrowded * float64(len(t))
	userStop := false
	if user := set.monitor; user != nil {
		set.monitor = func(p Progress) bool { userStop = user(p); return userStop }
	}
	for doublings := 0; ; doublings++ {
		guard := !set.noWiden && doublings < widthMaxUp
		if guard {
			set.gammaLimit = limit
		}
		err := r.fit(ctx, set, b, x, t, beta)
		r.widthDoublings = doublings
		if !guard || userStop || err != nil || ctx.Err() != nil ||
			r.status != Stopped && !(r.EffectiveParameters() > limit) {
			return err
		}
		g, _ := o.kernel.(Gaussian)
		o.kernel = Gaussian{Width: 2 * g.Width}
		monitor := set.monitor
		if set, b, err = prepare(o, x, t, false); err != nil {
			return err
		}
		set.monitor = monitor
	}
}

// fit fits the regression RVM with the settings set to the basis b.
func (r *RVMRegressor) fit(ctx context.Context, set settings, b basis, x mat.Matrix, t []float64, beta float64) error {
	lik := rvm.Likelihood{T: t, Beta0: beta}
	res, err := fitRVM(ctx, set, b, x, lik)
	if err != nil {
		return err
	}
	r.noise = 1 / res.Beta
	return r.recordRVM(ctx, b, res)
}

// Fit fits the classifier to inputs x and labels t in {0, 1}.
func (c *RVMClassifier) Fit(x mat.Matrix, t []float64) error {
	return c.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (c *RVMClassifier) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	_, err := fitUnder(ctx, &c.classificationFit, &c.fitted, func() error { return c.fitNew(ctx, x, t) })
	return err
}

func (c *RVMClassifier) fitNew(ctx context.Context, x mat.Matrix, t []float64) error {
	c.classificationFit = classificationFit{fitted{task: "classification", estimator: "rvm"}}
	o := c.options()
	set, b, err := c.prepareRVM(ctx, "classification", &o, x, t)
	if err != nil {
		return err
	}
	res, err := fitRVM(ctx, set, b, x, rvm.Likelihood{T: t, Logistic: true})
	if err != nil {
		return err
	}
	return c.recordRVM(ctx, b, res)
}

// fitRVM fits an RVM with the settings set to the basis b at the rows x
// by the internal solver (vrvm/internal/rvm): by its sequential algorithm
// on the design of the Sequential solver (R9), or, for PaperSchedule, by
// the re-estimation on the full design. Its errors are this package's.
func fitRVM(ctx context.Context, set settings, b basis, x mat.Matrix, lik rvm.Likelihood) (rvm.Result, error) {
	s := rvm.Settings{Alpha0: set.alpha0, PruneAt: set.pruneAt, MaxIter: set.maxIter, Tol: set.tol,
		GammaLimit: set.gammaLimit, Monitor: engineMonitor(set.monitor)}
	var res rvm.Result
	if set.method == (Sequential{}) {
		if lik.Logistic {
			if err := checkLabels(lik.T); err != nil {
				return res, err
			}
		}
		f, err := newSeqDesign(ctx, b, x) // (R9)
		if err != nil {
			return res, err
		}
		d := &rvm.Design{U: f.U, B: f.B, Cols: f.Cols, Explicit: f.Ident}
		res, err = rvm.Sequential(ctx, d, lik, s)
		return res, rvmError(err)
	}
	phi, err := b.full(x)
	if err != nil {
		return res, err
	}
	if lik.Logistic {
		if err := checkLabels(lik.T); err != nil {
			return res, err
		}
		if err := stopped(ctx, 0); err != nil {
			return res, err
		}
	}
	res, err = rvm.Schedule(ctx, phi, lik, s)
	return res, rvmError(err)
}

// rvmError is an error of the internal solver as this package reports it.
func rvmError(err error) error {
	if errors.Is(err, rvm.ErrZeroBasis) {
		return ErrZeroBasis
	}
	return notPD(err)
}

// recordRVM stores the result res of an RVM fit over the functions
// res.Cols of basis b. It returns the error of stopped if the fit was
// cancelled or ended before its first iteration.
func (f *fitted) recordRVM(ctx context.Context, b basis, res rvm.Result) error {
	if len(res.Trace) == 0 {
		return stopped(ctx, 0)
	}
	dv := b.divisors(res.Cols) // (U2)
	f.setPosterior(b.unscaled(), res.Cols, unscaleVec(res.Mu, dv, unscaleMean), unscaleSym(res.Sigma, dv),
		unscaleVec(res.Alpha, dv, unscaleAlpha), dv)
	f.trace, f.iters, f.status = res.Trace, res.Iters, engineStatus(res.Status)
	f.full = res.Trace[len(res.Trace)-1]
	f.checkRelevance()
	if res.Status == engine.Canceled {
		return stopped(ctx, res.Iters)
	}
	return nil
}

// WithKernel returns an unfitted copy of r's configuration with kernel k
// and no Monitor.
func (r *RVMRegressor) WithKernel(k Kernel) Estimator {
	c := *r
	c.Kernel, c.Monitor, c.regressionFit = k, nil, regressionFit{}
	return &c
}

// WithKernel returns an unfitted copy of c's configuration with kernel k
// and no Monitor.
func (c *RVMClassifier) WithKernel(k Kernel) Estimator {
	d := *c
	d.Kernel, d.Monitor, d.classificationFit = k, nil, classificationFit{}
	return &d
}

// HTML is String as an HTML table of properties and values, for notebooks.
func (r *RVMRegressor) HTML() string { return r.summarise().HTML() }

// HTML is String as an HTML table of properties and values, for notebooks.
func (c *RVMClassifier) HTML() string { return c.summarise().HTML() }

// String summarises the configuration and, once fitted, the fit.
func (r *RVMRegressor) String() string { return r.summarise().String() }

func (r *RVMRegressor) summarise() summary {
	if !r.hasPosterior() {
		return r.describe("vrvm.RVMRegressor", orLearned(r.Kernel), "")
	}
	return r.describe("vrvm.RVMRegressor", orLearned(r.Kernel), "", row("noise sd", fmt.Sprintf("%.4g (β = %.4g)", r.NoiseSD(), 1/r.noise)))
}

// String summarises the configuration and, once fitted, the fit.
func (c *RVMClassifier) String() string { return c.summarise().String() }

func (c *RVMClassifier) summarise() summary {
	return c.describe("vrvm.RVMClassifier", orLearned(c.Kernel), "")
}
