package vrvm

import (
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
// Solver chooses how the evidence is maximised (see RVMSolver): by
// default one function at a time from an empty model (Tipping & Faul
// 2003, rvmseq.go), which scales to large N; RVMReestimate iterates the
// updates above on all N + 1 functions, as Tipping (2001) and the paper
// did. The two can stop at different local maxima of the evidence.
// Alpha0 is the initial αₘ of every function for RVMReestimate, and of
// the first function for RVMSequential when the evidence has no finite
// optimum for it; PruneAlpha removes functions whose αₘ exceeds it.
//
// LowerBound and BoundTrace report the log evidence ln p(t | α, β). The
// exported fields configure the fit; zero values mean the defaults.
type RVMRegressor struct {
	Kernel     Kernel    // nil means DefaultKernel
	Solver     RVMSolver // the algorithm; the zero value is RVMSequential
	NoBias     bool      // remove the bias function φ₀ = 1
	Alpha0     float64   // initial αₘ; 0 means 1
	Beta0      float64   // initial β; 0 means 1/var(t)
	PruneAlpha float64   // pruning threshold on αₘ; 0 means DefaultRVMPrune
	MaxIter    int       // 0 means DefaultMaxIter
	Tol        float64   // largest change of ln αₘ and ln β at convergence; 0 means DefaultRVMTol
	// Monitor, if not nil, is called after every iteration with the log
	// evidence as Bound; returning true stops the fit.
	Monitor func(Progress) bool

	regressionFit
}

// RVMClassifier is the type-II maximum likelihood RVM of Tipping (2001)
// for binary classification: for fixed α the weight posterior is
// approximated by Laplace's method around its mode, found by iteratively
// reweighted least squares (Newton's method), and αₘ ← γₘ/μₘ².
// LowerBound and BoundTrace report Laplace's approximation of the log
// evidence.
type RVMClassifier struct {
	Kernel     Kernel  // nil means DefaultKernel
	NoBias     bool    // remove the bias function φ₀ = 1
	Alpha0     float64 // initial αₘ; 0 means 1
	PruneAlpha float64 // pruning threshold on αₘ; 0 means DefaultRVMPrune
	MaxIter    int     // 0 means DefaultMaxIter
	Tol        float64 // largest change of ln αₘ at convergence; 0 means DefaultRVMTol
	// Monitor, if not nil, is called after every iteration with the
	// Laplace approximation of the log evidence as Bound.
	Monitor func(Progress) bool

	classificationFit
}

func (r *RVMRegressor) options() options {
	return options{kernel: r.Kernel, noBias: r.NoBias, alpha0: r.Alpha0, pruneAlpha: r.PruneAlpha, maxIter: r.MaxIter,
		tol: r.Tol, monitor: r.Monitor, defPrune: DefaultRVMPrune, defTol: DefaultRVMTol}
}

func (c *RVMClassifier) options() options {
	return options{kernel: c.Kernel, noBias: c.NoBias, alpha0: c.Alpha0, pruneAlpha: c.PruneAlpha, maxIter: c.MaxIter,
		tol: c.Tol, monitor: c.Monitor, defPrune: DefaultRVMPrune, defTol: DefaultRVMTol}
}

// rvmDesign resolves the options, validates the data and evaluates the
// full design.
func rvmDesign(o options, x mat.Matrix, t []float64) (settings, basis, *mat.Dense, error) {
	s, b, err := prepare(o, x, t, false)
	if err != nil {
		return s, b, nil, err
	}
	phi, err := b.full(x)
	return s, b, phi, err
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *RVMRegressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (r *RVMRegressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	r.regressionFit = regressionFit{}
	if err := r.Solver.check(); err != nil {
		return err
	}
	set, b, err := prepare(r.options(), x, t, false)
	if err != nil {
		return err
	}
	beta, err := noisePrecision0("Beta0", r.Beta0, t)
	if err != nil {
		return err
	}
	if r.Solver == RVMSequential {
		return r.fitSequential(ctx, set, b, x, t, beta)
	}
	phi, err := b.full(x)
	if err != nil {
		return err
	}
	alpha0, prune, tol, maxIter := set.alpha0, set.pruneAt, set.tol, set.maxIter
	n, m := phi.Dims()
	cols := seq(m)
	alpha := make([]float64, m)
	for i := range alpha {
		alpha[i] = alpha0
	}
	gram := mat.NewSymDense(m, nil)
	gram.SymOuterK(1, phi.T())
	phiT := make([]float64, m)
	mat.NewVecDense(m, phiT).MulVec(phi.T(), mat.NewVecDense(n, t))
	if err := stopped(ctx, 0); err != nil {
		return err
	}
	q := gaussQ{ctx: ctx}
	// posterior sets q to Σ = (A + βΦᵀΦ)⁻¹, μ = βΣΦᵀt for the active set.
	posterior := func(iter int) error {
		m := len(cols)
		a := mat.NewSymDense(m, nil)
		a.ScaleSym(beta, gram)
		for i := range m {
			a.SetSym(i, i, a.At(i, i)+alpha[i])
		}
		if err := q.factor(a, iter); err != nil {
			return err
		}
		h := make([]float64, m)
		for i, v := range phiT {
			h[i] = beta * v
		}
		return q.solveMean(h)
	}
	var trace []float64
	resid := make([]float64, n)
	status := IterationLimit
	iters := 0
	for k := 1; k <= maxIter; k++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = k
		m = len(cols)
		if err := posterior(k); err != nil {
			if ctx.Err() != nil {
				status, iters = Canceled, k-1
				break
			}
			return err
		}
		copy(resid, t)
		blas64.Gemv(blas.NoTrans, -1, phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: q.mu}, 1, blas64.Vector{N: n, Inc: 1, Data: resid})
		rss := mat.Dot(mat.NewVecDense(n, resid), mat.NewVecDense(n, resid))
		// Log evidence ln p(t | α, β) = −½{N ln 2π − N ln β − Σ ln αₘ − ln|Σ| + β‖t − Φμ‖² + μᵀAμ}.
		var sumLnA, muAmu, gammaSum, change float64
		for i := range m {
			sumLnA += math.Log(alpha[i])
			muAmu += alpha[i] * q.mu[i] * q.mu[i]
		}
		trace = append(trace, -0.5*(float64(n)*ln2Pi-float64(n)*math.Log(beta)-sumLnA-q.logDet+beta*rss+muAmu))
		for i := range m {
			g := 1 - alpha[i]*q.diag[i]
			gammaSum += g
			na := g / (q.mu[i] * q.mu[i])
			if !(na > 0) || math.IsInf(na, 0) {
				na = math.Inf(1)
			}
			change = math.Max(change, math.Abs(math.Log(na/alpha[i])))
			alpha[i] = na
		}
		nb := (float64(n) - gammaSum) / rss
		if nb > 0 && !math.IsInf(nb, 0) {
			change = math.Max(change, math.Abs(math.Log(nb/beta)))
			beta = nb
		}
		if set.monitor != nil && set.monitor(Progress{Iteration: k, Bound: trace[len(trace)-1], Change: change, Active: m}) {
			status = Stopped
			break
		}
		keep, pruned := pruneSet(alpha, prune)
		if pruned {
			phi = selectCols(phi, keep)
			gram = selectSym(gram, keep)
			phiT = selectVec(phiT, keep)
			alpha = selectVec(alpha, keep)
			cols = selectInts(cols, keep)
			continue
		}
		if change <= tol {
			status = Converged
			break
		}
	}
	if q.mu == nil || len(q.mu) != len(cols) {
		// The last iteration pruned (or the fit was cancelled before the
		// first one): refresh the posterior for the final active set, in
		// one piece (the context may be cancelled already).
		q.ctx = nil
		if err := posterior(iters); err != nil {
			return err
		}
	}
	if len(trace) == 0 {
		return stopped(ctx, 0)
	}
	r.setPosterior(b, cols, append([]float64(nil), q.mu...), q.sigma(), alpha)
	r.trace, r.iters, r.status = trace, iters, status
	r.full = trace[len(trace)-1]
	r.checkRelevance()
	r.noise = 1 / beta
	if status == Canceled {
		return stopped(ctx, iters)
	}
	return nil
}

// Fit fits the classifier to inputs x and labels t in {0, 1}.
func (c *RVMClassifier) Fit(x mat.Matrix, t []float64) error {
	return c.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (c *RVMClassifier) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	c.classificationFit = classificationFit{}
	set, b, phi, err := rvmDesign(c.options(), x, t)
	if err != nil {
		return err
	}
	if err := checkLabels(t); err != nil {
		return err
	}
	alpha0, prune, tol, maxIter := set.alpha0, set.pruneAt, set.tol, set.maxIter
	if err := stopped(ctx, 0); err != nil {
		return err
	}
	_, m := phi.Dims()
	cols := seq(m)
	alpha := make([]float64, m)
	for i := range alpha {
		alpha[i] = alpha0
	}
	w := make([]float64, m)
	var q gaussQ
	var trace []float64
	status := IterationLimit
	iters := 0
	for k := 1; k <= maxIter; k++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = k
		logp, err := laplaceMode(phi, t, alpha, w, &q, k)
		if err != nil {
			return err
		}
		// Laplace approximation of the log evidence:
		// ln p(t|w*) − ½w*ᵀAw* + ½Σ ln αₘ + ½ln|Σ|.
		var sumLnA float64
		for _, a := range alpha {
			sumLnA += math.Log(a)
		}
		trace = append(trace, logp+0.5*sumLnA+0.5*q.logDet)
		var change float64
		for i := range alpha {
			g := 1 - alpha[i]*q.diag[i]
			na := g / (q.mu[i] * q.mu[i])
			if !(na > 0) || math.IsInf(na, 0) {
				na = math.Inf(1)
			}
			change = math.Max(change, math.Abs(math.Log(na/alpha[i])))
			alpha[i] = na
		}
		if set.monitor != nil && set.monitor(Progress{Iteration: k, Bound: trace[len(trace)-1], Change: change, Active: len(cols)}) {
			status = Stopped
			break
		}
		keep, pruned := pruneSet(alpha, prune)
		if pruned {
			phi = selectCols(phi, keep)
			alpha = selectVec(alpha, keep)
			w = selectVec(q.mu, keep)
			cols = selectInts(cols, keep)
			continue
		}
		copy(w, q.mu)
		if change <= tol {
			status = Converged
			break
		}
	}
	if len(q.mu) != len(cols) {
		if _, err := laplaceMode(phi, t, alpha, w, &q, iters); err != nil {
			return err
		}
	}
	if len(trace) == 0 {
		return stopped(ctx, 0)
	}
	c.setPosterior(b, cols, append([]float64(nil), q.mu...), q.sigma(), alpha)
	c.trace, c.iters, c.status = trace, iters, status
	c.full = trace[len(trace)-1]
	c.checkRelevance()
	if status == Canceled {
		return stopped(ctx, iters)
	}
	return nil
}

// laplaceMode finds the mode of ln p(t|w) + ln p(w|α) by Newton's method
// (IRLS) from w, with step halving, and leaves in q the Gaussian with mean
// at the mode and covariance (ΦᵀBΦ + A)⁻¹, B = diag(yₙ(1 − yₙ)). It returns
// the log joint ln p(t|w*) − ½w*ᵀAw* at the mode.
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

// Beta returns the noise precision estimate β.
func (r *RVMRegressor) Beta() float64 { r.mustFit(); return 1 / r.noise }

// WithKernel returns an unfitted copy of r's configuration with kernel k
// and no Monitor.
func (r *RVMRegressor) WithKernel(k Kernel) Estimator {
	return &RVMRegressor{Kernel: k, Solver: r.Solver, NoBias: r.NoBias, Alpha0: r.Alpha0, Beta0: r.Beta0, PruneAlpha: r.PruneAlpha, MaxIter: r.MaxIter, Tol: r.Tol}
}

// WithKernel returns an unfitted copy of c's configuration with kernel k
// and no Monitor.
func (c *RVMClassifier) WithKernel(k Kernel) Estimator {
	return &RVMClassifier{Kernel: k, NoBias: c.NoBias, Alpha0: c.Alpha0, PruneAlpha: c.PruneAlpha, MaxIter: c.MaxIter, Tol: c.Tol}
}

// Save writes the fitted model as JSON (see Load).
func (r *RVMRegressor) Save(w io.Writer) error {
	p, err := r.encode("regression", "rvm")
	if err != nil {
		return err
	}
	p.Beta = 1 / r.noise
	return writeModel(w, p, nil)
}

// Save writes the fitted model as JSON (see Load).
func (c *RVMClassifier) Save(w io.Writer) error {
	p, err := c.encode("classification", "rvm")
	if err != nil {
		return err
	}
	return writeModel(w, p, nil)
}

// HTML is String as an HTML table, for notebooks.
func (r *RVMRegressor) HTML() string { return htmlSummary(r.String()) }

// HTML is String as an HTML table, for notebooks.
func (c *RVMClassifier) HTML() string { return htmlSummary(c.String()) }

// String summarises the configuration and, once fitted, the fit.
func (r *RVMRegressor) String() string {
	if r.status == NotFitted {
		return r.describe("vrvm.RVMRegressor", r.Kernel, "")
	}
	return r.describe("vrvm.RVMRegressor", r.Kernel, "", fmt.Sprintf("noise sd %.4g (β = %.4g)", r.NoiseSD(), r.Beta()))
}

// String summarises the configuration and, once fitted, the fit.
func (c *RVMClassifier) String() string { return c.describe("vrvm.RVMClassifier", c.Kernel, "") }
