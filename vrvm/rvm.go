package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// DefaultRVMPrune is the precision above which the type-II maximum
// likelihood RVM removes a basis function: its αₘ diverges to infinity at
// the evidence optimum, so any large value serves (Tipping 2001).
const DefaultRVMPrune = 1e12

// DefaultRVMTol is the default convergence tolerance of the type-II ML
// RVM: the largest change of ln αₘ (and of ln β) over one iteration.
const DefaultRVMTol = 1e-6

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
// The exported fields configure the fit; zero values mean the defaults.
type RVMRegressor struct {
	Kernel     Kernel  // nil means DefaultKernel
	NoBias     bool    // remove the bias function φ₀ = 1
	Alpha0     float64 // initial αₘ; 0 means 1
	Beta0      float64 // initial β; 0 means 1/var(t)
	PruneAlpha float64 // pruning threshold on αₘ; 0 means DefaultRVMPrune
	MaxIter    int     // 0 means DefaultMaxIter
	Tol        float64 // 0 means DefaultRVMTol
	// Monitor, if not nil, is called after every iteration with the log
	// evidence as Bound; returning true stops the fit.
	Monitor func(Progress) bool

	res  fitResult
	beta float64
}

// RVMClassifier is the type-II maximum likelihood RVM of Tipping (2001)
// for binary classification: for fixed α the weight posterior is
// approximated by Laplace's method around its mode, found by iteratively
// reweighted least squares (Newton's method), and αₘ ← γₘ/μₘ².
type RVMClassifier struct {
	Kernel     Kernel  // nil means DefaultKernel
	NoBias     bool    // remove the bias function φ₀ = 1
	Alpha0     float64 // initial αₘ; 0 means 1
	PruneAlpha float64 // pruning threshold on αₘ; 0 means DefaultRVMPrune
	MaxIter    int     // 0 means DefaultMaxIter
	Tol        float64 // 0 means DefaultRVMTol
	// Monitor, if not nil, is called after every iteration with the
	// Laplace approximation of the log evidence as Bound.
	Monitor func(Progress) bool

	res fitResult
}

// rvmSettings resolves the shared options.
func rvmSettings(alpha0, prune, tol float64, maxIter int) (a0, pr, tl float64, mi int, err error) {
	a0, pr, tl, mi = alpha0, prune, tol, maxIter
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
	}{{"Alpha0", &a0, 1}, {"PruneAlpha", &pr, DefaultRVMPrune}, {"Tol", &tl, DefaultRVMTol}} {
		switch v := *f.v; {
		case v == 0:
			*f.v = f.def
		case !(v > 0) || math.IsInf(v, 0):
			return 0, 0, 0, 0, &OptionError{Field: f.name, Value: v, Reason: "must be positive and finite (0 means the default)"}
		}
	}
	if mi < 0 {
		return 0, 0, 0, 0, &OptionError{Field: "MaxIter", Value: float64(mi), Reason: "must not be negative"}
	}
	if mi == 0 {
		mi = DefaultMaxIter
	}
	return a0, pr, tl, mi, nil
}

// setupBasis validates x, t and the kernel and evaluates the full design.
func setupBasis(k Kernel, noBias bool, x mat.Matrix, t []float64) (basis, *mat.Dense, error) {
	if k == nil {
		k = DefaultKernel
	}
	if err := checkKernel(k); err != nil {
		return basis{}, nil, err
	}
	if err := checkInputs(x, t); err != nil {
		return basis{}, nil, err
	}
	_, d := x.Dims()
	b := basis{kernel: k, bias: !noBias, centers: mat.DenseCopyOf(x), dim: d}
	phi, err := b.design(x, seq(b.size()))
	return b, phi, err
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *RVMRegressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context, as Regressor.FitContext.
func (r *RVMRegressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	r.res = fitResult{}
	b, phi, err := setupBasis(r.Kernel, r.NoBias, x, t)
	if err != nil {
		return err
	}
	alpha0, prune, tol, maxIter, err := rvmSettings(r.Alpha0, r.PruneAlpha, r.Tol, r.MaxIter)
	if err != nil {
		return err
	}
	beta := r.Beta0
	switch {
	case beta == 0:
		v := variance(t)
		if v == 0 {
			return ErrConstantTargets
		}
		beta = 1 / v
	case !(beta > 0) || math.IsInf(beta, 0):
		return &OptionError{Field: "Beta0", Value: beta, Reason: "must be positive and finite (0 means 1/var(t))"}
	}
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
	if err := ctx.Err(); err != nil {
		return err
	}
	var q gaussQ
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
		a := mat.NewSymDense(m, nil)
		a.ScaleSym(beta, gram)
		for i := range m {
			a.SetSym(i, i, a.At(i, i)+alpha[i])
		}
		if err := q.factor(a, k); err != nil {
			return err
		}
		h := make([]float64, m)
		for i, v := range phiT {
			h[i] = beta * v
		}
		if err := q.solveMean(h); err != nil {
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
		if r.Monitor != nil && r.Monitor(Progress{Iteration: k, Bound: trace[len(trace)-1], Change: change, Active: m}) {
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
		// first one): refresh the posterior for the final active set.
		m = len(cols)
		a := mat.NewSymDense(m, nil)
		a.ScaleSym(beta, gram)
		for i := range m {
			a.SetSym(i, i, a.At(i, i)+alpha[i])
		}
		if err := q.factor(a, iters); err != nil {
			return err
		}
		h := make([]float64, m)
		for i, v := range phiT {
			h[i] = beta * v
		}
		if err := q.solveMean(h); err != nil {
			return err
		}
	}
	r.res.setPosterior(b, cols, append([]float64(nil), q.mu...), q.sigma(), alpha)
	r.res.trace, r.res.iters, r.res.status = trace, iters, status
	r.beta = beta
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
	c.res = fitResult{}
	b, phi, err := setupBasis(c.Kernel, c.NoBias, x, t)
	if err != nil {
		return err
	}
	if err := checkLabels(t); err != nil {
		return err
	}
	alpha0, prune, tol, maxIter, err := rvmSettings(c.Alpha0, c.PruneAlpha, c.Tol, c.MaxIter)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
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
		if c.Monitor != nil && c.Monitor(Progress{Iteration: k, Bound: trace[len(trace)-1], Change: change, Active: len(cols)}) {
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
	c.res.setPosterior(b, cols, append([]float64(nil), q.mu...), q.sigma(), alpha)
	c.res.trace, c.res.iters, c.res.status = trace, iters, status
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

// Predict returns the predictive mean μᵀφ(x) and variance 1/β + φ(x)ᵀΣφ(x).
func (r *RVMRegressor) Predict(x mat.Matrix) (mean, variance []float64, err error) {
	mean, variance, err = r.res.latent(x)
	if err != nil {
		return nil, nil, err
	}
	for i := range variance {
		variance[i] += 1 / r.beta
	}
	return mean, variance, nil
}

// PredictLatent returns the mean and variance of the noise-free function.
func (r *RVMRegressor) PredictLatent(x mat.Matrix) (mean, variance []float64, err error) {
	return r.res.latent(x)
}

// Beta returns the noise precision estimate β.
func (r *RVMRegressor) Beta() float64 { r.res.mustFit(); return r.beta }

// NoiseSD returns the noise standard deviation estimate 1/√β.
func (r *RVMRegressor) NoiseSD() float64 { return 1 / math.Sqrt(r.Beta()) }

// Status returns how the last fit ended.
func (r *RVMRegressor) Status() Status { return r.res.status }

// LogEvidence returns the log marginal likelihood ln p(t | α, β) at the
// last iteration.
func (r *RVMRegressor) LogEvidence() float64 { return r.res.lowerBound() }

// EvidenceTrace returns the log evidence at each iteration.
func (r *RVMRegressor) EvidenceTrace() []float64 { return r.res.boundTrace() }

// Iterations returns the number of iterations of the last fit.
func (r *RVMRegressor) Iterations() int { return r.res.iterations() }

// RelevanceVectors returns the training rows of the relevance vectors
// (active, |μₘ| > RelevanceThreshold; bias excluded).
func (r *RVMRegressor) RelevanceVectors() []int { return r.res.relevant() }

// ActiveSet returns the training rows of the active kernel functions.
func (r *RVMRegressor) ActiveSet() []int { return r.res.activeIdx() }

// Mean returns μ for the active weights (bias first if active).
func (r *RVMRegressor) Mean() []float64 { return r.res.mean() }

// Covariance returns Σ for the active weights.
func (r *RVMRegressor) Covariance() *mat.SymDense { return r.res.covariance() }

// Alpha returns αₘ for the active weights.
func (r *RVMRegressor) Alpha() []float64 { return r.res.alphas() }

// Activation returns the mean and variance of the activation wᵀφ(x)
// under the Laplace approximation.
func (c *RVMClassifier) Activation(x mat.Matrix) (mean, variance []float64, err error) {
	return c.res.latent(x)
}

// ProbPlugin returns σ(μᵀφ(x)) for each row of x.
func (c *RVMClassifier) ProbPlugin(x mat.Matrix) ([]float64, error) {
	m, _, err := c.res.latent(x)
	for i, v := range m {
		m[i] = Sigmoid(v)
	}
	return m, err
}

// ProbModerated returns σ(κ(s²) μᵀφ(x)) for each row of x.
func (c *RVMClassifier) ProbModerated(x mat.Matrix) ([]float64, error) {
	m, v, err := c.res.latent(x)
	for i := range m {
		m[i] = Moderated(m[i], v[i])
	}
	return m, err
}

// Predict returns the most probable label for each row of x.
func (c *RVMClassifier) Predict(x mat.Matrix) ([]float64, error) {
	m, _, err := c.res.latent(x)
	for i, v := range m {
		m[i] = 0
		if v > 0 {
			m[i] = 1
		}
	}
	return m, err
}

// Status returns how the last fit ended.
func (c *RVMClassifier) Status() Status { return c.res.status }

// LogEvidence returns the Laplace approximation of the log evidence.
func (c *RVMClassifier) LogEvidence() float64 { return c.res.lowerBound() }

// Iterations returns the number of iterations of the last fit.
func (c *RVMClassifier) Iterations() int { return c.res.iterations() }

// RelevanceVectors returns the training rows of the relevance vectors.
func (c *RVMClassifier) RelevanceVectors() []int { return c.res.relevant() }

// ActiveSet returns the training rows of the active kernel functions.
func (c *RVMClassifier) ActiveSet() []int { return c.res.activeIdx() }

// Mean returns μ (the mode) for the active weights.
func (c *RVMClassifier) Mean() []float64 { return c.res.mean() }

// Covariance returns the Laplace covariance of the active weights.
func (c *RVMClassifier) Covariance() *mat.SymDense { return c.res.covariance() }

// Alpha returns αₘ for the active weights.
func (c *RVMClassifier) Alpha() []float64 { return c.res.alphas() }
