package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
	// If nil, DefaultKernel (Gaussian, width 1) is used.
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
	// value is Fast. PaperSchedule iterates the paper's updates.
	Solver Solver

	res       fitResult
	fullBound float64 // FullModelBound of a fast fit
	xi        []float64
}

// Fit fits the classifier to inputs x (one row per sample) and labels t in {0, 1}.
func (c *Classifier) Fit(x mat.Matrix, t []float64) error {
	return c.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context: when ctx is cancelled the fit stops,
// keeps the state it reached with status Canceled, and returns an error
// that wraps context.Cause(ctx) (so errors.Is(err, context.Canceled)
// holds for a plain cancellation).
func (c *Classifier) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	c.res = fitResult{}
	k := c.Kernel
	if k == nil {
		k = DefaultKernel
	}
	if err := checkKernel(k); err != nil {
		return err
	}
	if err := checkInputs(x, t); err != nil {
		return err
	}
	_, d := x.Dims()
	return c.fit(ctx, basis{kernel: k, bias: !c.NoBias, centers: mat.DenseCopyOf(x), dim: d}, x, t)
}

// FitDesign fits the classifier with a user-supplied N × M design matrix
// (see Regressor.FitDesign). Predict with the *Design methods.
func (c *Classifier) FitDesign(phi mat.Matrix, t []float64) error {
	c.res = fitResult{}
	if err := checkInputs(phi, t); err != nil {
		return err
	}
	_, w := phi.Dims()
	return c.fit(context.Background(), basis{dim: w}, phi, t)
}

func (c *Classifier) fit(ctx context.Context, b basis, x mat.Matrix, t []float64) error {
	c.res = fitResult{}
	c.xi = nil
	if err := checkLabels(t); err != nil {
		return err
	}
	p, err := c.Prior.resolve()
	if err != nil {
		return err
	}
	ctl, err := resolveControl(c.MaxIter, c.Tol, c.ParamTol, c.NoPrune, c.PruneAlpha, DefaultClassificationPrune, c.Monitor, c.Alpha0)
	if err != nil {
		return err
	}
	xi0 := c.Xi0
	switch {
	case xi0 == 0:
		xi0 = 1
	case !(xi0 > 0) || math.IsInf(xi0, 0):
		return &OptionError{Field: "Xi0", Value: xi0, Reason: "must be positive and finite (0 means 1)"}
	}
	if err := c.Solver.check(); err != nil {
		return err
	}
	c.fullBound = math.NaN()
	if c.Solver == Fast && ctl.prune {
		return c.fitSeq(ctx, b, x, t, p, ctl, xi0)
	}
	if c.Solver == Fast {
		return c.fitFast(ctx, b, x, t, p, ctl, xi0)
	}
	cols := seq(b.size())
	var phi *mat.Dense
	if b.kernel == nil {
		phi = mat.DenseCopyOf(x)
	} else if phi, err = b.designCtx(ctx, x, cols); err != nil {
		return err
	}
	s := newClsState(phi, t, cols, p, ctl.alpha0, xi0)
	trace, iters, status, err := run(ctx, s, ctl)
	if status == NotFitted {
		return err
	}
	c.res.set(b, s.cols, &s.q, &s.alpha, trace, iters, status)
	c.xi = append([]float64(nil), s.xi...)
	return err
}

// clsState is the state of the classification iteration.
type clsState struct {
	phi   *mat.Dense // N × M design of the active functions
	t     []float64
	cols  []int
	prior Prior
	h     []float64 // Σₙ(tₙ − ½)φₙ, the right-hand side of (55)

	q     gaussQ
	alpha gammaQ
	xi    []float64 // ξₙ
	lam   []float64 // λ(ξₙ)
	e     []float64 // Eₙ = φₙᵀ⟨wwᵀ⟩φₙ under the current Q_w
	act   []float64 // μᵀφₙ
	work  *mat.SymDense
	wphi  *mat.Dense
	qwork *mat.Dense
}

func newClsState(phi *mat.Dense, t []float64, cols []int, p Prior, alpha0, xi0 float64) *clsState {
	n, m := phi.Dims()
	s := &clsState{phi: phi, t: t, cols: cols, prior: p}
	s.h = make([]float64, m)
	half := make([]float64, n)
	for i, v := range t {
		half[i] = v - 0.5
	}
	mat.NewVecDense(m, s.h).MulVec(phi.T(), mat.NewVecDense(n, half))
	s.alpha.at = p.A + 0.5
	s.alpha.bt = make([]float64, m)
	for i := range s.alpha.bt {
		s.alpha.bt[i] = s.alpha.at / alpha0
	}
	s.xi = make([]float64, n)
	s.lam = make([]float64, n)
	for i := range s.xi {
		s.xi[i] = xi0
		s.lam[i] = Lambda(xi0)
	}
	s.e = make([]float64, n)
	s.act = make([]float64, n)
	return s
}

func (s *clsState) active() int { return len(s.cols) }

// updateW sets Q_w to its optimum given Q_α and ξ:
//
//	Σ = (diag⟨αₘ⟩ + 2 Σₙ λ(ξₙ) φₙφₙᵀ)⁻¹,   μ = Σ Σₙ (tₙ − ½) φₙ.      (54), (55)
//
// and the moments Eₙ = φₙᵀ⟨wwᵀ⟩φₙ = (μᵀφₙ)² + φₙᵀΣφₙ that (58) and (60) need.
func (s *clsState) updateW(iter int) error {
	n, m := s.phi.Dims()
	if s.wphi == nil {
		s.wphi = mat.NewDense(n, m, nil)
	} else if _, c := s.wphi.Dims(); c != m {
		s.wphi = mat.NewDense(n, m, nil)
	}
	for i := range n {
		f := math.Sqrt(2 * s.lam[i])
		src, dst := s.phi.RawRowView(i), s.wphi.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	if s.work == nil || s.work.SymmetricDim() != m {
		s.work = mat.NewSymDense(m, nil)
	}
	blas64.Syrk(blas.Trans, 1, s.wphi.RawMatrix(), 0, s.work.RawSymmetric())
	for i := range m {
		s.work.SetSym(i, i, s.work.At(i, i)+s.alpha.mean(i))
	}
	if err := s.q.factor(s.work, iter); err != nil {
		return err
	}
	if err := s.q.solveMean(s.h); err != nil {
		return err
	}
	blas64.Gemv(blas.NoTrans, 1, s.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.mu}, 0, blas64.Vector{N: n, Inc: 1, Data: s.act})
	s.qwork = s.q.quadForms(s.e, s.phi, s.qwork)
	for i := range n {
		s.e[i] += s.act[i] * s.act[i]
	}
	return nil
}

// updateHyper applies (57) and then (58): ξₙ = √(φₙᵀ⟨wwᵀ⟩φₙ).
func (s *clsState) updateHyper() {
	s.updateAlpha()
	s.updateXi()
}

func (s *clsState) updateAlpha() { s.alpha.update(s.prior, &s.q) } // (57)

func (s *clsState) updateXi() { // (58)
	for i, e := range s.e {
		s.xi[i] = math.Sqrt(e)
		s.lam[i] = Lambda(s.xi[i])
	}
}

// terms returns the bound (59)–(64) as settled in the errata:
//
//	⟨ln F⟩ = Σₙ{ln σ(ξₙ) + (tₙ − ½)μᵀφₙ − ξₙ/2 − λ(ξₙ)(φₙᵀ⟨wwᵀ⟩φₙ − ξₙ²)}   (60)
//
// plus the weight terms (61)–(64) shared with regression.
func (s *clsState) terms() boundTerms {
	var b boundTerms
	for i, xi := range s.xi {
		b.LnF += LogSigmoid(xi) + (s.t[i]-0.5)*s.act[i] - xi/2 - s.lam[i]*(s.e[i]-xi*xi) // (60)
	}
	b.LnPw, b.LnPalpha, b.Hw, b.Halpha = weightTerms(s.prior, &s.alpha, &s.q) // (61)–(64)
	return b
}

func (s *clsState) bound() float64 { return s.terms().sum() }

// params lists the monitored parameters: ⟨αₘ⟩ of the active set, then ξ.
func (s *clsState) params(dst []float64) []float64 {
	dst = dst[:0]
	for i := range s.alpha.bt {
		dst = append(dst, s.alpha.mean(i))
	}
	return append(dst, s.xi...)
}

func (s *clsState) prune(threshold float64) bool {
	alphas := make([]float64, len(s.cols))
	for i := range alphas {
		alphas[i] = s.alpha.mean(i)
	}
	keep, pruned := pruneSet(alphas, threshold)
	if !pruned {
		return false
	}
	s.phi = selectCols(s.phi, keep)
	s.h = selectVec(s.h, keep)
	s.alpha.bt = selectVec(s.alpha.bt, keep)
	s.cols = selectInts(s.cols, keep)
	return true
}

// Activation returns the mean μᵀφ(x) and variance s² = φ(x)ᵀΣφ(x) of the
// activation wᵀφ(x) under Q_w, for each row of x.
func (c *Classifier) Activation(x mat.Matrix) (mean, variance []float64, err error) {
	return c.res.latent(x)
}

// ProbPlugin returns P(t = 1 | x, ⟨w⟩) = σ(μᵀφ(x)) (65) for each row of x.
func (c *Classifier) ProbPlugin(x mat.Matrix) ([]float64, error) {
	m, _, err := c.res.latent(x)
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
func (c *Classifier) ProbModerated(x mat.Matrix) ([]float64, error) {
	m, v, err := c.res.latent(x)
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
func (c *Classifier) Predict(x mat.Matrix) ([]float64, error) {
	m, _, err := c.res.latent(x)
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

// Xi returns the variational parameters ξₙ, one per training point.
func (c *Classifier) Xi() []float64 { c.res.mustFit(); return append([]float64(nil), c.xi...) }

// Status returns how the last fit ended.
func (c *Classifier) Status() Status { return c.res.status }

// LowerBound returns the final value of the variational lower bound L (59).
func (c *Classifier) LowerBound() float64 { return c.res.lowerBound() }

// BoundTrace returns the lower bound after each iteration; element 0 is the
// bound at the initial hyperparameters (after the first Q_w update).
func (c *Classifier) BoundTrace() []float64 { return c.res.boundTrace() }

// Iterations returns the number of iterations of the last fit.
func (c *Classifier) Iterations() int { return c.res.iterations() }

// RelevanceVectors returns the training rows whose kernel functions are
// active with |⟨wₘ⟩| > RelevanceThreshold (bias excluded).
func (c *Classifier) RelevanceVectors() []int { return c.res.relevant() }

// ActiveSet returns the training rows of the active kernel functions.
func (c *Classifier) ActiveSet() []int { return c.res.activeIdx() }

// HasBias reports whether the bias function is in the active set.
func (c *Classifier) HasBias() bool { return c.res.hasBias() }

// Inputs returns the training inputs of the active kernel functions.
func (c *Classifier) Inputs() *mat.Dense { return c.res.inputs() }

// Mean returns μ, the posterior mean of the active weights (bias first).
func (c *Classifier) Mean() []float64 { return c.res.mean() }

// Covariance returns Σ, the posterior covariance of the active weights.
func (c *Classifier) Covariance() *mat.SymDense { return c.res.covariance() }

// Alpha returns ⟨αₘ⟩ for the active weights, ordered as Mean.
func (c *Classifier) Alpha() []float64 { return c.res.alphas() }
