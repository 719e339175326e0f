package vrvm

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// RelevanceThreshold is the weight magnitude above which a basis function
// counts as a relevance vector, as in the paper's tables (|⟨wₘ⟩| > 1e-3).
const RelevanceThreshold = 1e-3

// fitted is the fitted state shared by every estimator: the active basis
// functions and the Gaussian posterior (or Laplace approximation) over
// their weights, with the hyperparameters and the fit's history. Every
// estimator embeds it, so that its accessors are written once.
type fitted struct {
	status Status
	b      basis     // the active basis: bias (if active) + active centres, or a user design
	rows   []int     // training rows of the active kernel functions, or the active design columns
	design []int     // for a user design: the columns of b to use; nil for kernels
	mu     []float64 // posterior mean of the active weights
	sigma  *lazySigma
	alpha  []float64 // ⟨αₘ⟩ (or αₘ for type-II ML) of the active functions
	trace  []float64 // the bound or log evidence after each iteration, initial value first
	iters  int
	full   float64 // the full-model bound
	noise  float64 // noise variance (regression), 0 for classification
	// The likelihood's factor of a VRVM: Q_τ = Γ(c̃, d̃) for regression,
	// the ξₙ for classification.
	ct, dt float64
	xi     []float64
	// task and estimator name the model in its file (persist.go).
	task, estimator string
	// A MultiClassifier's classes and its M × K posterior means, one
	// column per class; mu is nil.
	classes []string
	w       *mat.Dense
	// sigmas are the classes' covariances Σₖ over the active functions
	// (zero where a function is not active in class k) and alphaK the
	// M × K ⟨αₘₖ⟩ (0 there).
	sigmas []*mat.SymDense
	alphaK *mat.Dense
	// multiLik is a MultiClassifier's likelihood: Probit predicts by (P9);
	// Softmax and SoftmaxAdaptive (fitted under the bound (M19)) by (M17).
	multiLik MultiLikelihood
	// learnTrace is the full-model bound after each fit of kernel
	// learning (LearnKernel, or RVMClassifier's default width (R7)); nil
	// without learning.
	learnTrace []float64
	// widthEvidence is, for the default kernel of Regressor and
	// RVMRegressor, the evidence of the dense model (W4) at the width
	// chosen; 0 otherwise.
	widthEvidence float64
	// evidenceNote is, for a Regressor's LearnKernel, the summary line of
	// learning by the dense model's evidence (E2)–(E6); "" otherwise.
	evidenceNote string
	// widthDoublings is the number of times (W5) doubled that width.
	widthDoublings int
	// aug is the state of predictions augmented at the test point
	// (Augment); nil without augmentation.
	aug *augmentation
	// mcAug is the same for a MultiClassifier (A7); nil without.
	mcAug *mcAugmentation
	// unit holds the divisor (U1) of each active function, in the order
	// of mu (or the rows of w): its weight in the solver's units is
	// unit[m]·⟨wₘ⟩, which RelevanceVectors compares with
	// RelevanceThreshold. nil when every divisor is 1.
	unit []float64
	// weightScale, where in (0, 1), is the factor by which (T1) scaled
	// the defaults for small targets: the weights are compared with
	// RelevanceThreshold divided by it (through unit).
	weightScale float64
}

// record stores a solver's solution for the full basis b.
func (f *fitted) record(b basis, s *solution) {
	dv := b.divisors(s.cols) // (U2)
	f.setPosterior(b.unscaled(), s.cols, unscaleVec(s.mu, dv, unscaleMean), unscaleSym(s.sigma, dv), unscaleVec(s.alpha, dv, unscaleAlpha), dv)
	if s.sigma == nil {
		f.sigma = &lazySigma{f: func() *mat.SymDense { return unscaleSym(s.sigmaOf(), dv) }}
	}
	f.trace, f.iters, f.status, f.full = s.trace, s.iters, s.status, s.full
	f.checkRelevance()
}

// checkRelevance turns Converged into InterceptOnly for a model without
// relevance vectors.
func (f *fitted) checkRelevance() {
	if f.status == Converged && len(f.RelevanceVectors()) == 0 {
		f.status = InterceptOnly
	}
}

// lazySigma is Σ, computed on first use when a solver leaves it to a
// function: forming a large Σ costs M³/3 flops, which an interrupted fit
// should not wait for.
type lazySigma struct {
	once sync.Once
	f    func() *mat.SymDense
	v    *mat.SymDense
}

func (l *lazySigma) get() *mat.SymDense {
	l.once.Do(func() {
		if l.f != nil {
			l.v, l.f = l.f(), nil
		}
	})
	return l.v
}

// setPosterior stores the active basis in compact form: the centres of the
// active kernel functions are copied out of the training inputs, and the
// kernel's parameters out of the caller's kernel (ownKernel).
func (f *fitted) setPosterior(b basis, cols []int, mu []float64, sigma *mat.SymDense, alpha, unit []float64) {
	if f.weightScale > 0 && f.weightScale < 1 { // (T1): small targets
		if unit == nil {
			unit = constant(len(mu), 1)
		} else {
			unit = append([]float64(nil), unit...)
		}
		for i := range unit {
			unit[i] /= f.weightScale
		}
	}
	f.mu, f.sigma, f.alpha, f.unit = mu, &lazySigma{v: sigma}, alpha, unit
	if b.kernel == nil {
		f.b = b
		f.rows = append([]int(nil), cols...)
		f.design = f.rows
		return
	}
	f.design, f.rows = nil, nil
	off := b.offset()
	var centres []float64
	f.b = basis{kernel: ownKernel(b.kernel), dim: b.dim}
	for _, c := range cols {
		if b.bias && c == 0 {
			f.b.bias = true
			continue
		}
		f.rows = append(f.rows, b.row(c-off))
		centres = append(centres, b.centers.RawRowView(c-off)...)
	}
	if len(centres) > 0 {
		f.b.centers = mat.NewDense(len(centres)/b.dim, b.dim, centres)
	}
}

// The fit contract. A model holds a posterior after a fit that reached
// one: converged, at its iteration limit, stopped by its Monitor, or
// cancelled after its first iteration (Canceled: the state of the last
// iteration completed, which predicts as any other). A Fit that returns
// an error without a posterior of its own (bad data, an invalid option,
// a numerical failure) leaves the model as it was before the call, a
// fitted model still fitted. A fit cancelled before it reached a
// posterior (while it checked the data, chose the width or built the
// design) leaves a model with Status Canceled and no posterior, the
// previous one discarded. Without a posterior (never fitted, or so
// cancelled) no accessor panics: the accessors return zero values (nil
// slices and matrices, 0, false; NaN for LowerBound and FullModelBound),
// and prediction and Save return ErrNotFitted.

// hasPosterior reports whether f holds a fitted posterior.
func (f *fitted) hasPosterior() bool { return f.status != NotFitted && len(f.trace) > 0 }

// settle ends a fit that returned err: it reports whether the model must
// go back to its state before the fit (an error and no posterior of the
// fit's own), and marks a fit cancelled before it reached a posterior
// Canceled, with none. ctx is the fit's context.
func (f *fitted) settle(ctx context.Context, err error) (restore bool) {
	if err == nil || f.hasPosterior() {
		return false
	}
	if ctx != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Cause(ctx))) {
		*f = fitted{status: Canceled, task: f.task, estimator: f.estimator}
		return false
	}
	return true
}

// fitUnder runs fit under the fit contract: when settle says so, *state,
// the estimator's fitted state (which holds f), goes back to its value
// before the fit, and restored is true.
func fitUnder[T any](ctx context.Context, state *T, f *fitted, fit func() error) (restored bool, err error) {
	prev := *state
	err = fit()
	if f.settle(ctx, err) {
		*state = prev
		return true, err
	}
	return false, err
}

// Latent returns, for each row of x, the mean μᵀφ(x) and the variance
// φ(x)ᵀΣφ(x) of the latent function y(x) = wᵀφ(x) under Q_w (for a
// classifier, the activation whose sigmoid is the probability of class 1),
// or, for a Regressor or Classifier fitted without NoAugment, the mean
// and variance of the model augmented at the row, (A3)–(A4) (docs/design.md,
// "Variance away from the data"). For a model fitted with FitDesign, the rows of x hold the basis
// functions at the new inputs. It returns ErrNotFitted before a fit, and
// empty slices for a matrix with no rows.
func (f *fitted) Latent(x mat.Matrix) (mean, variance []float64, err error) {
	return f.latent(x, true)
}

// LatentPlain is Latent for the fitted model alone, without the
// augmentation at the row (A6): the paper's (37)–(38) for a model fitted
// with augmented predictions too. It costs O(M(d + M)) per row, where an
// augmented prediction costs O(r(d + r + M)) more for the r pivots of its
// low-rank form, or O(N(d + M)) for the exact form over N training rows
// ((A10)–(A13)); on the training rows it
// is the fit's own error, which an augmented prediction, centring a
// function at the row, partly absorbs.
func (f *fitted) LatentPlain(x mat.Matrix) (mean, variance []float64, err error) {
	return f.latent(x, false)
}

// latent is Latent, augmented at each row if augment and the fit
// augments its predictions.
func (f *fitted) latent(x mat.Matrix, augment bool) (mean, variance []float64, err error) {
	n, err := f.checkRows(x)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return []float64{}, []float64{}, nil
	}
	xd := denseOf(x)
	if err := checkFiniteDense("x", xd); err != nil {
		return nil, nil, err
	}
	mean = make([]float64, n)
	variance = make([]float64, n)
	augment = augment && f.aug != nil
	var hook blockHook
	if augment {
		if err := f.aug.prepare(f); err != nil {
			return nil, nil, err
		}
		hook = f.aug.hook(f, xd, mean, variance)
	}
	if err := f.latentTo(mean, variance, xd, hook); err != nil {
		return nil, nil, err
	}
	if augment {
		if hook == nil {
			cols := f.design
			if cols == nil {
				cols = seq(len(f.mu))
			}
			if err := f.aug.adjust(f, xd, cols, mean, variance); err != nil {
				return nil, nil, err
			}
		}
		if f.aug.floor != nil {
			if err := kernelErr(f.aug.floor.Apply(xd, variance)); err != nil { // (A18)
				return nil, nil, err
			}
		}
		for i := range n {
			if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(variance[i]) || math.IsInf(variance[i], 0) {
				return nil, nil, &NonFiniteError{What: "augmented prediction", Row: i, Col: -1, Value: mean[i] + variance[i]}
			}
		}
	}
	return mean, variance, nil
}

// checkRows returns the number of rows of inputs x to predict at, or
// ErrNotFitted before a fit, ErrNoData for a nil x, and a
// *DimensionError for a number of columns the model was not fitted with.
func (f *fitted) checkRows(x mat.Matrix) (int, error) {
	if !f.hasPosterior() {
		return 0, ErrNotFitted
	}
	if x == nil {
		return 0, ErrNoData
	}
	n, d := x.Dims()
	if d != f.b.dim {
		what := "input columns"
		if f.b.kernel == nil {
			what = "design matrix columns"
		}
		return 0, &DimensionError{What: what, Got: d, Want: f.b.dim}
	}
	return n, nil
}

// latentTo computes Latent's mean and variance by blocks of rows, in
// parallel for large inputs, with one buffer per worker and no allocation
// per row. Up to quadDim functions (latentColumns) each block's design is
// held by columns, Φₓᵀ, so that the means Φₓμ (1) and the variances
// φᵀΣφ (38) are sums of whole columns scaled by μⱼ and Σⱼₖ (BLAS axpy
// over the block's rows); beyond, Φₓ is held by rows and ΦₓΣ is one matrix
// product per block, with Σ copied out in full (gonum's Dgemm is blocked,
// its Dsymm is not), the variances its row sums of (ΦₓΣ) ⊙ Φₓ. A
// non-nil hook is called on each block after its means and variances,
// with the block's design.
func (f *fitted) latentTo(mean, variance []float64, x *mat.Dense, hook blockHook) error {
	n, _ := x.Dims()
	m := len(f.mu)
	sigma := f.sigma.get().RawSymmetric()
	size := blockRows(m)
	bufs := make([]struct{ phi, ps []float64 }, runtime.GOMAXPROCS(0))
	centre := seq(m - f.designOffset())
	if m <= quadDim {
		return parallelBlocks(context.Background(), n, size, m, func(lo, hi, w int) error {
			r := hi - lo
			bf := &bufs[w]
			if bf.phi == nil {
				bf.phi, bf.ps = make([]float64, size*m), make([]float64, size)
			}
			phiT := bf.phi[:m*r]
			if err := f.designBlock(phiT, x, lo, hi, centre, true); err != nil {
				return err
			}
			if err := latentColumns(mean[lo:hi], variance[lo:hi], bf.ps[:r], phiT, f.mu, sigma, lo); err != nil || hook == nil {
				return err
			}
			return hook(lo, hi, w, phiT, 1, r)
		})
	}
	full := symFull(f.sigma.get()) // Σ in full for the matrix products
	mu := blas64.Vector{N: m, Inc: 1, Data: f.mu}
	return parallelBlocks(context.Background(), n, size, m, func(lo, hi, w int) error {
		r := hi - lo
		bf := &bufs[w]
		if bf.phi == nil {
			bf.phi, bf.ps = make([]float64, size*m), make([]float64, size*m)
		}
		phi := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.phi[:r*m]}
		if err := f.designBlock(phi.Data, x, lo, hi, centre, false); err != nil {
			return err
		}
		mb, vb := mean[lo:hi], variance[lo:hi]
		blas64.Gemv(blas.NoTrans, 1, phi, mu, 0, blas64.Vector{N: r, Inc: 1, Data: mb})
		ps := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.ps[:r*m]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, phi, full, 0, ps)
		for i := range r {
			vb[i] = blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: ps.Data[i*m : (i+1)*m]}, blas64.Vector{N: m, Inc: 1, Data: phi.Data[i*m : (i+1)*m]})
		}
		if err := checkLatent(mb, vb, lo); err != nil || hook == nil {
			return err
		}
		return hook(lo, hi, w, phi.Data, m, 1)
	})
}

// blockHook is called by latentTo on the block of rows [lo, hi) by
// worker w, with the block's design, Φₓ[i, j] at phi[i·rs + j·cs].
type blockHook func(lo, hi, w int, phi []float64, rs, cs int) error

// designOffset is 1 when the active design starts with the bias column
// (a kernel model with a bias), else 0.
func (f *fitted) designOffset() int {
	if f.b.kernel != nil && f.b.bias {
		return 1
	}
	return 0
}

// designBlock fills buf with the active design Φₓ of rows lo … hi−1 of x,
// by rows (r × m, as the matrix products read it) or, with byCols, by
// columns (m × r, as latentColumns reads it): the chosen columns of a user
// design, or the bias and the kernel at the active centres (centre: their
// indices, for errors).
func (f *fitted) designBlock(buf []float64, x *mat.Dense, lo, hi int, centre []int, byCols bool) error {
	r, m := hi-lo, len(f.mu)
	rs, cs := m, 1 // Φₓ[i, j] at i·rs + j·cs
	if byCols {
		rs, cs = 1, r
	}
	if f.b.kernel == nil {
		for i := range r {
			src := x.RawRowView(lo + i)
			for j, c := range f.design {
				buf[i*rs+j*cs] = src[c]
			}
		}
		return nil
	}
	off := f.designOffset()
	if off == 1 {
		for i := range r {
			buf[i*rs] = 1
		}
	}
	if m == off {
		return nil
	}
	_, d := x.Dims()
	dst := mat.NewDense(r, m, buf[:r*m]).Slice(0, r, off, m).(*mat.Dense)
	if byCols {
		dst = mat.NewDense(m-off, r, buf[off*r:m*r])
	}
	return kernelBlock(f.b.kernel, dst, x.Slice(lo, hi, 0, d).(*mat.Dense), f.b.centers, lo, centre, byCols)
}

// latentColumns sets the means mb = Φₓμ (1) and variances vb = φᵀΣφ (38)
// of a block of r rows from its design held by columns (phiT: column j of
// Φₓ at phiT[j·r:(j+1)·r]): mb = Σⱼ μⱼφⱼ, and vb = Σⱼ φⱼ ⊙ (Σⱼⱼφⱼ +
// 2 Σₖ₌ⱼ₊₁ Σⱼₖφₖ) from the upper triangle of Σ, the sums over k by BLAS
// axpy into tmp (r values). lo is the block's first row, for errors.
func latentColumns(mb, vb, tmp, phiT, mu []float64, sigma blas64.Symmetric, lo int) error {
	r := len(mb)
	m := len(mu)
	col := func(j int) blas64.Vector { return blas64.Vector{N: r, Inc: 1, Data: phiT[j*r : (j+1)*r]} }
	clear(mb)
	clear(vb)
	mv := blas64.Vector{N: r, Inc: 1, Data: mb}
	tv := blas64.Vector{N: r, Inc: 1, Data: tmp}
	for j := range m {
		blas64.Axpy(mu[j], col(j), mv)
		row := sigma.Data[j*sigma.Stride : j*sigma.Stride+m]
		pj := phiT[j*r : (j+1)*r]
		clear(tmp)
		for k := j + 1; k < m; k++ {
			blas64.Axpy(2*row[k], col(k), tv)
		}
		s := row[j]
		tmp := tmp[:len(pj)]
		vb := vb[:len(pj)]
		for i, p := range pj {
			vb[i] += p * (s*p + tmp[i])
		}
	}
	return checkLatent(mb, vb, lo)
}

// checkLatent returns a *NonFiniteError for the first non-finite mean or
// variance of a block starting at row lo, and clamps the variances
// (rounding can make φᵀΣφ slightly negative) at 0.
func checkLatent(mb, vb []float64, lo int) error {
	for i, v := range vb {
		if mb[i]-mb[i] != 0 { // NaN or ±Inf
			return &NonFiniteError{What: "predicted mean", Row: lo + i, Col: -1, Value: mb[i]}
		}
		if v-v != 0 {
			return &NonFiniteError{What: "predicted variance", Row: lo + i, Col: -1, Value: v}
		}
		vb[i] = math.Max(0, v)
	}
	return nil
}

// quadDim is the largest number of functions for which latentTo sums
// φᵀΣφ over the triangle of Σ by columns of the design (latentColumns)
// rather than by matrix products.
const quadDim = 64

// Status returns how the last fit ended (NotFitted before a successful fit).
func (f *fitted) Status() Status { return f.status }

// LowerBound returns the final value of the objective the fit maximised,
// the last element of BoundTrace: for the VRVM estimators the bound of the
// full model with the Sequential solver (the excluded functions' factors as
// last set during the fit; FullModelBound sets them to their optimum for
// the final Q, so it is at least LowerBound), the variational
// lower bound L of the active model with PaperSchedule and Newton (the
// two agree when nothing was pruned; see "Lower bound" in the package
// documentation); for the RVM estimators the log evidence (exact for
// regression, Laplace's approximation for classification); for a
// MultiClassifier the bound of the full model (M9)–(M13) plus (M15) for
// the functions outside the active set, which FullModelBound equals.
// It is NaN for a model without a posterior.
func (f *fitted) LowerBound() float64 {
	if !f.hasPosterior() {
		return math.NaN()
	}
	return f.trace[len(f.trace)-1]
}

// FullModelBound returns the variational lower bound of the paper's full
// model, with all N+1 basis functions, at the fitted posterior: the active
// model's L plus, for each function outside the active set, the bound terms of the
// factor Q(wₘ) = N(0, vₘ), independent of the other weights, and of Q_αₘ,
// both at their optimum (closed form, with sₘ = φₘᵀBφₘ for the
// likelihood's precisions B):
//
//	maxₐ [ã ln α − bα − ½ ln(α + sₘ)] + ln Γ(ã) − ln Γ(a) − ã ln ã + ã + a ln b.
//
// This is L(Q) for a valid Q, so a true lower bound on the log evidence of
// the full model, comparable between fits that prune differently (and
// what package selection compares); it is at least LowerBound for the
// Sequential solver and equals it whenever nothing was pruned. For the RVM estimators, whose pruned functions have αₘ = ∞ and
// contribute nothing to the evidence, it equals LowerBound. It is saved
// with the model; a model loaded from a file of format version 1, which
// did not record it, reports NaN, as does a model without a posterior.
func (f *fitted) FullModelBound() float64 {
	if !f.hasPosterior() {
		return math.NaN()
	}
	return f.full
}

// BoundTrace returns the objective (see LowerBound) after each iteration;
// element 0 is its value at the initial hyperparameters.
func (f *fitted) BoundTrace() []float64 {
	if !f.hasPosterior() {
		return nil
	}
	return append([]float64(nil), f.trace...)
}

// Iterations returns the number of iterations of the last fit that
// reached a posterior, or 0.
func (f *fitted) Iterations() int { return f.iters }

// RelevanceVectors returns the training rows whose kernel functions are
// relevance vectors: active with |⟨wₘ⟩| > RelevanceThreshold, in training
// order. The bias is not included. For a FitDesign model the indices are
// design-matrix columns.
func (f *fitted) RelevanceVectors() []int {
	var idx []int
	first := 0 // position of the first kernel (or design) weight in mu
	if f.HasBias() {
		first = 1
	}
	for i, r := range f.rows {
		if f.unitWeight(first+i, f.mu[first+i]) > RelevanceThreshold {
			idx = append(idx, r)
		}
	}
	return idx
}

// unitWeight returns |v|, the mean weight of active function i, in the
// units of the function the solver saw, divided by its scale (U1).
func (f *fitted) unitWeight(i int, v float64) float64 {
	if f.unit != nil {
		v *= f.unit[i]
	}
	return math.Abs(v)
}

// ActiveSet returns the training rows (design columns for FitDesign) of the
// basis functions still active at the end of the fit, bias excluded.
func (f *fitted) ActiveSet() []int {
	return append([]int(nil), f.rows...)
}

// HasBias reports whether the bias function is in the active set.
func (f *fitted) HasBias() bool { return f.design == nil && f.b.bias }

// Inputs returns the training inputs of the active kernel functions, one
// row each, in the order of ActiveSet (nil for a FitDesign model).
func (f *fitted) Inputs() *mat.Dense {
	if f.b.centers == nil {
		return nil
	}
	return mat.DenseCopyOf(f.b.centers)
}

// InputDim returns the number of input columns the model predicts from
// (design columns for a FitDesign model); 0 without a posterior.
func (f *fitted) InputDim() int { return f.b.dim }

// Mean returns μ, the posterior mean of the active weights: the bias weight
// first if the bias is active, then one per ActiveSet entry.
func (f *fitted) Mean() []float64 { return append([]float64(nil), f.mu...) }

// Covariance returns Σ, the posterior covariance of the active weights,
// ordered as Mean (MultiClassifier has one per class).
func (f *fitted) Covariance() *mat.SymDense {
	if f.sigma == nil || f.sigma.get() == nil {
		return nil
	}
	s := f.sigma.get()
	return mat.NewSymDense(s.SymmetricDim(), append([]float64(nil), s.RawSymmetric().Data...))
}

// Alpha returns ⟨αₘ⟩ (αₘ for the RVM estimators) for the active weights,
// ordered as Mean.
func (f *fitted) Alpha() []float64 { return append([]float64(nil), f.alpha...) }

// NoiseSD returns the noise standard deviation estimate of a regression
// model, 1/√⟨τ⟩ (VRVM) or 1/√β (RVM); 0 for a classifier, whose logistic
// likelihood has no noise parameter.
func (f *fitted) NoiseSD() float64 { return math.Sqrt(f.noise) }
