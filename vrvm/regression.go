package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// Regressor is the variational relevance vector machine for regression
// (Bishop & Tipping 2000, section 4): the model tₙ = wᵀφ(xₙ) + ε with noise
// precision τ, weight precisions αₘ and Gamma hyperpriors, fitted by the
// factorised posterior Q_w(w) Q_α(α) Q_τ(τ).
//
// The exported fields configure the fit; their zero values mean the
// defaults. Fit never modifies them. The fitted state is read through the
// methods.
type Regressor struct {
	// Kernel generates one basis function per training input.
	// If nil, DefaultKernel (Gaussian, width 1) is used.
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
	// NoPrune keeps all N+1 basis functions to the end (the pure algorithm
	// and the setting of the reference fixtures).
	NoPrune bool
	// PruneAlpha is the pruning threshold: a basis function whose ⟨αₘ⟩
	// exceeds it leaves the active set. 0 means DefaultRegressionPrune.
	// With the default priors ⟨αₘ⟩ ≤ (a + ½)/b = 5e5, so thresholds at or
	// above that never prune.
	PruneAlpha float64
	// MaxIter limits the number of iterations; 0 means DefaultMaxIter.
	MaxIter int
	// Tol is the convergence tolerance on the relative change of the lower
	// bound per iteration; 0 means DefaultTol.
	Tol float64
	// ParamTol is the convergence tolerance on the largest relative change
	// per iteration of ⟨αₘ⟩ (active functions) and ⟨τ⟩; 0 means
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
	tau       struct{ ct, dt float64 }
}

// Fit fits the model to inputs x (one row per sample) and targets t.
func (r *Regressor) Fit(x mat.Matrix, t []float64) error {
	return r.FitContext(context.Background(), x, t)
}

// FitContext is Fit with a context: when ctx is cancelled the fit stops,
// keeps the state it reached with status Canceled, and returns an error
// that wraps context.Cause(ctx) (so errors.Is(err, context.Canceled)
// holds for a plain cancellation).
func (r *Regressor) FitContext(ctx context.Context, x mat.Matrix, t []float64) error {
	r.res = fitResult{}
	k := r.Kernel
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
	b := basis{kernel: k, bias: !r.NoBias, centers: mat.DenseCopyOf(x), dim: d}
	return r.fit(ctx, b, x, t)
}

// FitDesign fits the general linear model (1) with a user-supplied N × M
// design matrix phi: column m holds basis function φₘ at the N training
// inputs. No bias column is added. Predict with PredictDesign.
func (r *Regressor) FitDesign(phi mat.Matrix, t []float64) error {
	return r.FitDesignContext(context.Background(), phi, t)
}

// FitDesignContext is FitDesign with a context, as FitContext.
func (r *Regressor) FitDesignContext(ctx context.Context, phi mat.Matrix, t []float64) error {
	r.res = fitResult{}
	if err := checkInputs(phi, t); err != nil {
		return err
	}
	_, w := phi.Dims()
	return r.fit(ctx, basis{dim: w}, phi, t)
}

func (r *Regressor) fit(ctx context.Context, b basis, x mat.Matrix, t []float64) error {
	r.res = fitResult{}
	p, err := r.Prior.resolve()
	if err != nil {
		return err
	}
	c, err := resolveControl(r.MaxIter, r.Tol, r.ParamTol, r.NoPrune, r.PruneAlpha, DefaultRegressionPrune, r.Monitor, r.Alpha0)
	if err != nil {
		return err
	}
	tau0 := r.Tau0
	switch {
	case tau0 == 0:
		v := variance(t)
		if v == 0 {
			return ErrConstantTargets
		}
		tau0 = 1 / v
	case !(tau0 > 0) || math.IsInf(tau0, 0):
		return &OptionError{Field: "Tau0", Value: tau0, Reason: "must be positive and finite (0 means 1/var(t))"}
	}
	if err := r.Solver.check(); err != nil {
		return err
	}
	r.fullBound = math.NaN()
	if r.Solver == Fast && c.prune {
		return r.fitSeq(ctx, b, x, t, p, c, tau0)
	}
	if r.Solver == Fast {
		return r.fitFast(ctx, b, x, t, p, c, tau0)
	}
	cols := seq(b.size())
	var phi *mat.Dense
	if b.kernel == nil {
		phi = mat.DenseCopyOf(x)
	} else if phi, err = b.designCtx(ctx, x, cols); err != nil {
		return err
	}
	s, err := newRegStateCtx(ctx, phi, t, cols, p, c.alpha0, tau0)
	if err != nil {
		return err
	}
	trace, iters, status, err := run(ctx, s, c)
	if status == NotFitted {
		return err
	}
	r.res.set(b, s.cols, &s.q, &s.alpha, trace, iters, status)
	r.tau.ct, r.tau.dt = s.ct, s.dt
	return err
}

// regState is the state of the regression iteration over the active set.
type regState struct {
	phi   *mat.Dense    // N × M design of the active functions
	gram  *mat.SymDense // ΦᵀΦ
	phiT  []float64     // Φᵀt
	t     []float64
	cols  []int // active columns, indices into the full basis
	prior Prior

	q      gaussQ    // Q_w (20)
	alpha  gammaQ    // Q_α (22)
	ct, dt float64   // Q_τ = Γ(c̃, d̃) (21)
	alphaW []float64 // diag of the prior precision used by the last w-update
	tauW   float64   // ⟨τ⟩ used by the last w-update
	ew     float64   // Σₙ⟨(tₙ − wᵀφₙ)²⟩ under the current Q_w
	resid  []float64
	work   *mat.SymDense
}

func newRegState(phi *mat.Dense, t []float64, cols []int, p Prior, alpha0, tau0 float64) *regState {
	s, _ := newRegStateCtx(context.Background(), phi, t, cols, p, alpha0, tau0)
	return s
}

// newRegStateCtx is newRegState that stops when ctx is done (ΦᵀΦ takes
// seconds at N in the thousands).
func newRegStateCtx(ctx context.Context, phi *mat.Dense, t []float64, cols []int, p Prior, alpha0, tau0 float64) (*regState, error) {
	n, m := phi.Dims()
	s := &regState{phi: phi, t: t, cols: cols, prior: p, resid: make([]float64, n)}
	var err error
	if s.gram, err = gramCtx(ctx, phi); err != nil {
		return nil, err
	}
	s.phiT = make([]float64, m)
	mat.NewVecDense(m, s.phiT).MulVec(phi.T(), mat.NewVecDense(n, t))
	// Initialisation: ⟨αₘ⟩ = alpha0 with ãₘ = a + ½; ⟨τ⟩ = tau0 with
	// c̃ = c + N/2 (26, settled).
	s.alpha.at = p.A + 0.5
	s.alpha.bt = make([]float64, m)
	for i := range s.alpha.bt {
		s.alpha.bt[i] = s.alpha.at / alpha0
	}
	s.ct = p.C + float64(n)/2
	s.dt = s.ct / tau0
	return s, nil
}

// gramBlock is the number of rows of ΦᵀΦ that gramCtx computes between
// two looks at the context.
const gramBlock = 32

// gramCtx returns ΦᵀΦ, computed gramBlock rows of its upper triangle at a
// time, and stops with the error of stopped when ctx is done.
func gramCtx(ctx context.Context, phi *mat.Dense) (*mat.SymDense, error) {
	n, m := phi.Dims()
	g := mat.NewSymDense(m, nil)
	if n == 0 || m == 0 {
		return g, nil
	}
	raw, pr := g.RawSymmetric(), phi.RawMatrix()
	for i0 := 0; i0 < m; i0 += gramBlock {
		if err := stopped(ctx, 0); err != nil {
			return nil, err
		}
		i1 := min(i0+gramBlock, m)
		// Rows i0..i1 of the upper triangle: Φ[:, i0:i1]ᵀ Φ[:, i0:].
		a := blas64.General{Rows: n, Cols: i1 - i0, Stride: pr.Stride, Data: pr.Data[i0:]}
		b := blas64.General{Rows: n, Cols: m - i0, Stride: pr.Stride, Data: pr.Data[i0:]}
		c := blas64.General{Rows: i1 - i0, Cols: m - i0, Stride: raw.Stride, Data: raw.Data[i0*raw.Stride+i0:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, c)
	}
	return g, nil
}

func (s *regState) tauMean() float64    { return s.ct / s.dt }
func (s *regState) tauLogMean() float64 { return mathext.Digamma(s.ct) - math.Log(s.dt) }
func (s *regState) active() int         { return len(s.cols) }

// updateW sets Q_w to its optimum given Q_α and Q_τ:
//
//	Σ = (diag⟨αₘ⟩ + ⟨τ⟩ ΦᵀΦ)⁻¹,   μ = ⟨τ⟩ Σ Φᵀt.                   (23), (24)
func (s *regState) updateW(iter int) error {
	m := len(s.cols)
	tau := s.tauMean()
	if s.work == nil || s.work.SymmetricDim() != m {
		s.work = mat.NewSymDense(m, nil)
	}
	s.work.ScaleSym(tau, s.gram)
	s.alphaW = resize(s.alphaW, m)
	for i := range m {
		s.alphaW[i] = s.alpha.mean(i)
		s.work.SetSym(i, i, s.work.At(i, i)+s.alphaW[i])
	}
	if err := s.q.factor(s.work, iter); err != nil {
		return err
	}
	for i := range m {
		s.alphaW[i] += s.q.jitter
	}
	s.tauW = tau
	h := make([]float64, m)
	for i, v := range s.phiT {
		h[i] = tau * v
	}
	if err := s.q.solveMean(h); err != nil {
		return err
	}
	// Σₙ⟨(tₙ − wᵀφₙ)²⟩ = ‖t − Φμ‖² + tr(ΦΣΦᵀ) (27, settled). Since
	// Σ(diag α + τΦᵀΦ) = I, tr(ΦᵀΦΣ) = (M − Σₘ αₘΣₘₘ)/τ: no extra O(M³).
	copy(s.resid, s.t)
	n, _ := s.phi.Dims()
	blas64.Gemv(blasNoTrans, -1, s.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.mu}, 1, blas64.Vector{N: n, Inc: 1, Data: s.resid})
	rss := blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: s.resid}, blas64.Vector{N: n, Inc: 1, Data: s.resid})
	var g float64
	for i := range m {
		g += s.alphaW[i] * s.q.diag[i]
	}
	tr := math.Max(0, (float64(m)-g)/tau)
	s.ew = rss + tr
	return nil
}

// updateHyper applies (25), then (26)–(27) as settled:
//
//	b̃ₘ = b + ⟨wₘ²⟩/2,   c̃ = c + N/2,   d̃ = d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2.
func (s *regState) updateHyper() {
	s.updateAlpha()
	s.updateTau()
}

func (s *regState) updateAlpha() { s.alpha.update(s.prior, &s.q) } // (25)

func (s *regState) updateTau() { // (26), (27)
	s.ct = s.prior.C + float64(len(s.t))/2
	s.dt = s.prior.D + s.ew/2
}

// boundTerms are the seven terms of L (39)–(46), settled as in the errata.
type boundTerms struct {
	LnPt, LnPw, LnPalpha, LnPtau float64 // ⟨ln p(t|w,τ)⟩, ⟨ln p(w|α)⟩, ⟨ln p(α)⟩, ⟨ln p(τ)⟩
	Hw, Halpha, Htau             float64 // entropies of Q_w, Q_α, Q_τ
	LnF                          float64 // classification: ⟨ln F⟩ (60)
}

func (b boundTerms) sum() float64 {
	return b.LnPt + b.LnPw + b.LnPalpha + b.LnPtau + b.Hw + b.Halpha + b.Htau + b.LnF
}

func (s *regState) terms() boundTerms {
	var b boundTerms
	n := float64(len(s.t))
	tau, lnTau := s.tauMean(), s.tauLogMean()
	b.LnPt = n/2*lnTau - n/2*ln2Pi - tau/2*s.ew // (40)
	b.LnPw, b.LnPalpha, b.Hw, b.Halpha = weightTerms(s.prior, &s.alpha, &s.q)
	b.LnPtau = expectedLogGamma(s.prior.C, s.prior.D, tau, lnTau) // (43)
	b.Htau = gammaEntropy(s.ct, s.dt)                             // (46*)
	return b
}

func (s *regState) bound() float64 { return s.terms().sum() }

// params lists the monitored parameters: ⟨αₘ⟩ of the active set, then ⟨τ⟩.
func (s *regState) params(dst []float64) []float64 {
	dst = dst[:0]
	for i := range s.alpha.bt {
		dst = append(dst, s.alpha.mean(i))
	}
	return append(dst, s.tauMean())
}

// prune removes the basis functions whose ⟨αₘ⟩ exceeds threshold.
func (s *regState) prune(threshold float64) bool {
	alphas := make([]float64, len(s.cols))
	for i := range alphas {
		alphas[i] = s.alpha.mean(i)
	}
	keep, pruned := pruneSet(alphas, threshold)
	if !pruned {
		return false
	}
	s.phi = selectCols(s.phi, keep)
	s.gram = selectSym(s.gram, keep)
	s.phiT = selectVec(s.phiT, keep)
	s.alpha.bt = selectVec(s.alpha.bt, keep)
	s.cols = selectInts(s.cols, keep)
	return true
}

// Tau returns ⟨τ⟩ = c̃/d̃, the posterior mean noise precision.
// Like every accessor of fitted state, it panics if the model is not fitted.
func (r *Regressor) Tau() float64 {
	r.res.mustFit()
	return r.tau.ct / r.tau.dt
}

// NoiseSD returns the noise standard deviation estimate 1/√⟨τ⟩.
func (r *Regressor) NoiseSD() float64 { return 1 / math.Sqrt(r.Tau()) }

// TauPosterior returns the shape c̃ and rate d̃ of Q_τ (26)–(27).
func (r *Regressor) TauPosterior() (shape, rate float64) {
	r.res.mustFit()
	return r.tau.ct, r.tau.dt
}

// Predict returns the predictive mean μᵀφ(x) and variance
// 1/⟨τ⟩ + φ(x)ᵀΣφ(x) (37)–(38) for each row of x.
func (r *Regressor) Predict(x mat.Matrix) (mean, variance []float64, err error) {
	mean, variance, err = r.res.latent(x)
	if err != nil {
		return nil, nil, err
	}
	noise := r.tau.dt / r.tau.ct
	for i := range variance {
		variance[i] += noise
	}
	return mean, variance, nil
}

// PredictLatent returns the mean and variance of the noise-free function
// y(x) = wᵀφ(x): the variance is φ(x)ᵀΣφ(x), without the 1/⟨τ⟩ term.
func (r *Regressor) PredictLatent(x mat.Matrix) (mean, variance []float64, err error) {
	return r.res.latent(x)
}

// PredictDesign is Predict for a model fitted with FitDesign: each row of
// phi holds all M basis functions at one new input.
func (r *Regressor) PredictDesign(phi mat.Matrix) (mean, variance []float64, err error) {
	return r.Predict(phi)
}

// Status returns how the last fit ended.
func (r *Regressor) Status() Status { return r.res.status }

// LowerBound returns the final value of the variational lower bound L.
func (r *Regressor) LowerBound() float64 { return r.res.lowerBound() }

// BoundTrace returns the lower bound after each iteration; element 0 is the
// bound at the initial hyperparameters (after the first Q_w update).
func (r *Regressor) BoundTrace() []float64 { return r.res.boundTrace() }

// Iterations returns the number of iterations of the last fit.
func (r *Regressor) Iterations() int { return r.res.iterations() }

// RelevanceVectors returns the training rows whose kernel functions are
// relevance vectors: active with |⟨wₘ⟩| > RelevanceThreshold, in training
// order. The bias is not included. For a FitDesign model the indices are
// design-matrix columns.
func (r *Regressor) RelevanceVectors() []int { return r.res.relevant() }

// ActiveSet returns the training rows (design columns for FitDesign) of the
// basis functions still active at the end of the fit, bias excluded.
func (r *Regressor) ActiveSet() []int { return r.res.activeIdx() }

// HasBias reports whether the bias function is in the active set.
func (r *Regressor) HasBias() bool { return r.res.hasBias() }

// Inputs returns the training inputs of the active kernel functions, one
// row each, in the order of ActiveSet (nil for a FitDesign model).
func (r *Regressor) Inputs() *mat.Dense { return r.res.inputs() }

// Mean returns μ, the posterior mean of the active weights: the bias weight
// first if the bias is active, then one per ActiveSet entry.
func (r *Regressor) Mean() []float64 { return r.res.mean() }

// Covariance returns Σ, the posterior covariance of the active weights,
// ordered as Mean.
func (r *Regressor) Covariance() *mat.SymDense { return r.res.covariance() }

// Alpha returns ⟨αₘ⟩ for the active weights, ordered as Mean.
func (r *Regressor) Alpha() []float64 { return r.res.alphas() }
