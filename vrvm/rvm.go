package vrvm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
// the sequential algorithm of Tipping & Faul (2003) (rvmseq.go), which
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
	if set.method == (Sequential{}) {
		return r.fitSequential(ctx, set, b, x, t, beta)
	}
	phi, err := b.full(x)
	if err != nil {
		return err
	}
	n, m := phi.Dims()
	g := &rvmGauss{phi: phi, t: t, beta: beta, betaMax: rvmBetaMax(t), resid: make([]float64, n)}
	g.gram = mat.NewSymDense(m, nil)
	g.gram.SymOuterK(1, phi.T())
	g.phiT = make([]float64, m)
	mat.NewVecDense(m, g.phiT).MulVec(phi.T(), mat.NewVecDense(n, t))
	if err := stopped(ctx, 0); err != nil {
		return err
	}
	q := gaussQ{ctx: ctx}
	res, err := reestimate(ctx, set, g, &q)
	if err != nil {
		return err
	}
	r.noise = 1 / g.beta
	return r.recordRVM(ctx, b, res, &q)
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
	if set.method == (Sequential{}) {
		if err := checkLabels(t); err != nil {
			return err
		}
		return c.fitSequential(ctx, set, b, x, t)
	}
	phi, err := b.full(x)
	if err != nil {
		return err
	}
	if err := checkLabels(t); err != nil {
		return err
	}
	if err := stopped(ctx, 0); err != nil {
		return err
	}
	_, m := phi.Dims()
	var q gaussQ
	res, err := reestimate(ctx, set, &rvmLogistic{phi: phi, t: t, w: make([]float64, m)}, &q)
	if err != nil {
		return err
	}
	return c.recordRVM(ctx, b, res, &q)
}

// rvmModel is what the re-estimation algorithm (PaperSchedule) needs of
// a likelihood: the posterior over the active weights given α, its
// noise re-estimate, and the selection of its own per-function state.
type rvmModel interface {
	// size is the number of candidate functions.
	size() int
	// posterior sets q to the posterior (regression) or its Laplace
	// approximation (classification) for precisions alpha and returns
	// the log evidence (or its Laplace approximation).
	posterior(q *gaussQ, alpha []float64, iter int) (float64, error)
	// reestimateNoise re-estimates the noise given Σγₘ and returns
	// |Δ ln β| (0 without a noise parameter).
	reestimateNoise(gammaSum float64) float64
	// keep restricts the model to the functions at positions keep; q
	// holds the last posterior.
	keep(keep []int, q *gaussQ)
	// carry prepares the next iteration without pruning.
	carry(q *gaussQ)
}

// rvmResult is the outcome of an RVM fit over the functions cols (indices
// into the full basis).
type rvmResult struct {
	cols   []int
	alpha  []float64
	trace  []float64
	iters  int
	status Status
}

// reestimate runs the re-estimation of Tipping (2001) from all functions,
// each αₘ = Alpha0: every iteration computes the posterior, records the
// evidence, re-estimates every αₘ ← γₘ/μₘ², γₘ = 1 − αₘΣₘₘ (eq. 46), and
// the noise (eq. 47), and removes the functions whose αₘ exceeds
// PruneAlpha. It converges when no ln αₘ (nor ln β) changes by more than
// Tol. q is left with the posterior of the final active set.
func reestimate(ctx context.Context, set settings, model rvmModel, q *gaussQ) (rvmResult, error) {
	m := model.size()
	res := rvmResult{cols: seq(m), alpha: constant(m, set.alpha0), status: IterationLimit}
	for k := 1; k <= set.maxIter; k++ {
		if ctx.Err() != nil {
			res.status = Canceled
			break
		}
		res.iters = k
		ev, err := model.posterior(q, res.alpha, k)
		if err != nil {
			if ctx.Err() != nil {
				res.status, res.iters = Canceled, k-1
				break
			}
			return res, err
		}
		res.trace = append(res.trace, ev)
		change, gammaSum := reestimateAlpha(res.alpha, q.diag, q.mu)
		change = math.Max(change, model.reestimateNoise(gammaSum))
		if set.monitor != nil && set.monitor(Progress{Iteration: k, Bound: ev, Change: change, Active: len(res.cols)}) {
			res.status = Stopped
			break
		}
		if keep, pruned := pruneSet(res.alpha, set.pruneAt); pruned {
			model.keep(keep, q)
			res.alpha = selectVec(res.alpha, keep)
			res.cols = selectInts(res.cols, keep)
			continue
		}
		model.carry(q)
		if change <= set.tol {
			res.status = Converged
			break
		}
	}
	if q.mu == nil || len(q.mu) != len(res.cols) {
		// The last iteration pruned (or the fit was cancelled before the
		// first one): refresh the posterior for the final active set, in
		// one piece (the context may be cancelled already).
		q.ctx = nil
		if _, err := model.posterior(q, res.alpha, res.iters); err != nil {
			return res, err
		}
	}
	return res, nil
}

// reestimateAlpha sets every αₘ ← γₘ/μₘ², γₘ = 1 − αₘΣₘₘ (Tipping 2001,
// eq. 46), ∞ where that is not positive and finite, and returns the
// largest |Δ ln αₘ| and Σγₘ.
func reestimateAlpha(alpha, diag, mu []float64) (change, gammaSum float64) {
	for i, a := range alpha {
		g := 1 - a*diag[i]
		gammaSum += g
		na := g / (mu[i] * mu[i])
		if !(na > 0) || math.IsInf(na, 0) {
			na = math.Inf(1)
		}
		change = math.Max(change, math.Abs(math.Log(na/a)))
		alpha[i] = na
	}
	return change, gammaSum
}

// recordRVM stores the result of an RVM fit: the posterior q over the
// functions res.cols of basis b. It returns the context's error if the
// fit was cancelled, and the error of stopped if it ended before its
// first iteration.
func (f *fitted) recordRVM(ctx context.Context, b basis, res rvmResult, q *gaussQ) error {
	if len(res.trace) == 0 {
		return stopped(ctx, 0)
	}
	dv := b.divisors(res.cols) // (U2)
	f.setPosterior(b.unscaled(), res.cols, unscaleVec(append([]float64(nil), q.mu...), dv, unscaleMean), unscaleSym(q.sigma(), dv),
		unscaleVec(res.alpha, dv, unscaleAlpha), dv)
	f.trace, f.iters, f.status = res.trace, res.iters, res.status
	f.full = res.trace[len(res.trace)-1]
	f.checkRelevance()
	if res.status == Canceled {
		return stopped(ctx, res.iters)
	}
	return nil
}

// rvmGauss is the Gaussian likelihood of the re-estimation algorithm:
// the design of the active functions, its Gram matrix ΦᵀΦ and Φᵀt, and β.
type rvmGauss struct {
	phi  *mat.Dense
	gram *mat.SymDense
	phiT []float64
	t    []float64
	beta float64
	// betaMax caps β (rvmBetaMax).
	betaMax float64
	resid   []float64
	rss     float64
}

func (g *rvmGauss) size() int { _, m := g.phi.Dims(); return m }

// posterior sets q to Σ = (A + βΦᵀΦ)⁻¹, μ = βΣΦᵀt (Tipping 2001, eq. 45)
// and returns the log evidence (rvmLogEvidence).
func (g *rvmGauss) posterior(q *gaussQ, alpha []float64, iter int) (float64, error) {
	n, m := g.phi.Dims()
	a := mat.NewSymDense(m, nil)
	a.ScaleSym(g.beta, g.gram)
	for i := range m {
		a.SetSym(i, i, a.At(i, i)+alpha[i])
	}
	if err := q.factor(a, iter); err != nil {
		return 0, err
	}
	h := make([]float64, m)
	for i, v := range g.phiT {
		h[i] = g.beta * v
	}
	if err := q.solveMean(h); err != nil {
		return 0, err
	}
	copy(g.resid, g.t)
	blas64.Gemv(blas.NoTrans, -1, g.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: q.mu}, 1, blas64.Vector{N: n, Inc: 1, Data: g.resid})
	g.rss = mat.Dot(mat.NewVecDense(n, g.resid), mat.NewVecDense(n, g.resid))
	return rvmLogEvidence(n, g.beta, alpha, q.mu, q.logDet, g.rss), nil
}

// rvmBetaMaxFactor bounds the noise precision of the RVM estimators:
// β ≤ rvmBetaMaxFactor/var(t), a noise variance at least a millionth of
// the targets' (SparseBayes's BetaMaxFactor, its "work-around zero-noise
// issue"). Where the basis can nearly interpolate the targets (a kernel
// far narrower than the inputs' spacing) the evidence keeps rising as
// β → ∞ and the sequential algorithm does not converge (docs/benchmarks.md,
// "Measurements behind choices in the code").
const rvmBetaMaxFactor = 1e6

// rvmBetaMax returns rvmBetaMaxFactor/var(t) (+∞ for constant targets,
// which the estimators reject before fitting).
func rvmBetaMax(t []float64) float64 {
	if v := variance(t); v > 0 {
		return rvmBetaMaxFactor / v
	}
	return math.Inf(1)
}

// reestimateNoise sets β ← (N − Σγₘ)/‖t − Φμ‖² (Tipping 2001, eq. 47),
// at most betaMax, when that is positive.
func (g *rvmGauss) reestimateNoise(gammaSum float64) float64 {
	n, _ := g.phi.Dims()
	var d float64
	g.beta, d = reestimateBeta(n, gammaSum, g.rss, g.beta, g.betaMax)
	return d
}

// reestimateBeta returns β ← (N − γ)/rss (Tipping 2001, eq. 47) for n
// rows, γ = Σγₘ and rss = ‖t − Φμ‖², at most betaMax, and |Δ ln β|; it
// returns beta and 0 when the estimate is not positive.
func reestimateBeta(n int, gamma, rss, beta, betaMax float64) (float64, float64) {
	nb := (float64(n) - gamma) / rss
	if !(nb > 0) || math.IsNaN(nb) {
		return beta, 0
	}
	nb = math.Min(nb, betaMax)
	return nb, math.Abs(math.Log(nb / beta))
}

func (g *rvmGauss) keep(keep []int, _ *gaussQ) {
	g.phi = selectCols(g.phi, keep)
	g.gram = selectSym(g.gram, keep)
	g.phiT = selectVec(g.phiT, keep)
}

func (g *rvmGauss) carry(*gaussQ) {}

// rvmLogistic is the logistic likelihood of the re-estimation algorithm,
// with the Laplace approximation at the mode w.
type rvmLogistic struct {
	phi *mat.Dense
	t   []float64
	w   []float64 // the starting point of the next mode search
}

func (l *rvmLogistic) size() int { _, m := l.phi.Dims(); return m }

// posterior finds the mode by IRLS from w (laplaceMode) and returns
// Laplace's approximation of the log evidence,
// ln p(t|w*) − ½w*ᵀAw* + ½Σ ln αₘ + ½ln|Σ|.
func (l *rvmLogistic) posterior(q *gaussQ, alpha []float64, iter int) (float64, error) {
	logp, err := laplaceMode(l.phi, l.t, alpha, l.w, q, iter)
	if err != nil {
		return 0, err
	}
	var sumLnA float64
	for _, a := range alpha {
		sumLnA += math.Log(a)
	}
	return logp + 0.5*sumLnA + 0.5*q.logDet, nil
}

func (l *rvmLogistic) reestimateNoise(float64) float64 { return 0 }

func (l *rvmLogistic) keep(keep []int, q *gaussQ) {
	l.phi = selectCols(l.phi, keep)
	l.w = selectVec(q.mu, keep)
}

func (l *rvmLogistic) carry(q *gaussQ) { copy(l.w, q.mu) }

// laplaceDecrement is the Newton decrement gᵀH⁻¹g, relative to
// max(1, |log joint|), below which laplaceMode takes one last full Newton
// step and stops: twice the rise a further step would give, below the
// rounding of the log joint's N terms, where the step's error is the
// square of the one before. Without it the mode search ends only when a
// step fails to raise the log joint at every halving, which dominated the
// fit of large problems (docs/benchmarks.md, "Measurements behind choices
// in the code").
const laplaceDecrement = 1e-14

// laplaceMode finds the mode of ln p(t|w) + ln p(w|α) by Newton's method
// (IRLS) from w, with step halving, and leaves in q the Gaussian with mean
// at the mode and covariance (ΦᵀBΦ + A)⁻¹, B = diag(yₙ(1 − yₙ)). Once the
// Newton decrement is below laplaceDecrement (relative) it takes a last
// full step and stops. It returns the log joint ln p(t|w*) − ½w*ᵀAw* at
// the mode.
func laplaceMode(phi *mat.Dense, t, alpha, w []float64, q *gaussQ, iter int) (float64, error) {
	n, m := phi.Dims()
	y := make([]float64, n)
	grad := make([]float64, m)
	wphi := mat.NewDense(n, m, nil)
	h := mat.NewSymDense(m, nil)
	obj := func(w []float64) float64 {
		act := mat.NewVecDense(n, nil)
		act.MulVec(phi, mat.NewVecDense(m, w))
		var s float64
		for i := range n {
			a := act.AtVec(i)
			if t[i] == 1 {
				s += LogSigmoid(a)
			} else {
				s += LogSigmoid(-a)
			}
		}
		for i, v := range w {
			s -= 0.5 * alpha[i] * v * v
		}
		return s
	}
	cur := obj(w)
	step := make([]float64, m)
	trial := make([]float64, m)
	polished := false
	for range 100 {
		act := mat.NewVecDense(n, nil)
		act.MulVec(phi, mat.NewVecDense(m, w))
		resid := make([]float64, n)
		for i := range n {
			y[i] = Sigmoid(act.AtVec(i))
			resid[i] = t[i] - y[i]
			f := math.Sqrt(y[i] * (1 - y[i]))
			src, dst := phi.RawRowView(i), wphi.RawRowView(i)
			for j, v := range src {
				dst[j] = f * v
			}
		}
		mat.NewVecDense(m, grad).MulVec(phi.T(), mat.NewVecDense(n, resid))
		var gnorm float64
		for i := range m {
			grad[i] -= alpha[i] * w[i]
			gnorm = math.Max(gnorm, math.Abs(grad[i]))
		}
		blas64.Syrk(blas.Trans, 1, wphi.RawMatrix(), 0, h.RawSymmetric())
		for i := range m {
			h.SetSym(i, i, h.At(i, i)+alpha[i])
		}
		if err := q.factor(h, iter); err != nil {
			return 0, err
		}
		if gnorm < 1e-9 {
			break
		}
		if err := conditionOK(q.chol.SolveVecTo(mat.NewVecDense(m, step), mat.NewVecDense(m, grad))); err != nil {
			return 0, err
		}
		if polished {
			break
		}
		if dec := floats.Dot(grad, step); dec <= laplaceDecrement*math.Max(1, math.Abs(cur)) {
			// Close enough for Newton's quadratic model to be exact to
			// rounding: a last full step without the line search, whose
			// Hessian is then factorised for q.
			floats.Add(w, step)
			cur = obj(w)
			polished = true
			continue
		}
		improved := false
		for lr := 1.0; lr > 1e-8; lr /= 2 {
			for i := range m {
				trial[i] = w[i] + lr*step[i]
			}
			if v := obj(trial); v >= cur {
				cur = v
				copy(w, trial)
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	q.mu = append(q.mu[:0], w...)
	return cur, nil
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
