package vrvm

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Learning the kernel's parameters by the full-model bound (docs/design.md,
// "Learning the kernel", (K1)–(K8)). The solver is a black box: each fit
// maximises L over Q at fixed kernel parameters θ; between fits u = ln θ
// takes a step along the gradient of L at the fitted Q, which by the
// envelope theorem is the gradient of V(θ) = max_Q L(Q, θ).

// KernelLearning holds the settings of kernel learning (LearnKernel). Zero
// fields mean the defaults.
type KernelLearning struct {
	// MaxRefits limits the number of solver fits; 0 means 8 (12 for
	// ARDGaussian). Learning
	// also stops earlier once every step on ln θ is below 0.02 (see (K7)).
	MaxRefits int
	// MaxRows limits the rows learning fits: with more training rows,
	// the kernel is learned on MaxRows of them spread evenly through the
	// training set, and the model is then fitted on every row at the
	// learned kernel. 0 means 500; a negative value means
	// every row.
	MaxRows int
	// ScaleShape and ScaleRate, if both positive, place a Gamma
	// hyperprior Γ(θ | ScaleShape, ScaleRate) on every width or length
	// scale θ (K8); zero values mean none (a flat prior on ln θ).
	ScaleShape, ScaleRate float64
	// ScaleSpread, if positive, places a Gaussian prior
	// N(ln ℓₖ | ln ℓ̄, ScaleSpread²) on the logarithm of every ARD length
	// scale ℓₖ around their common scale ℓ̄, which is learned with them
	// (K11); zero means none (each ℓₖ on its own). It has no effect on a
	// single width.
	ScaleSpread float64
	// ByBound learns a Regressor's kernel by the full-model bound, as the
	// classifiers do ((K1)–(K8); docs/design.md, "Learning the kernel"),
	// instead of by the dense model's evidence (docs/kernel-learning.md).
	// The classifiers always learn by the bound.
	ByBound bool
}

// defaultLearnRefits is the default of KernelLearning.MaxRefits. Learning
// also stops earlier once every step on ln θ is below 0.02 (see (K7)).
const defaultLearnRefits = 8

// defaultARDRefits is the default of KernelLearning.MaxRefits for
// ARDGaussian, whose d length scales take more steps than one width.
const defaultARDRefits = 12

// orLearned returns k, or for a nil k the name of the default of
// Regressor and Classifier, a learned Gaussian width.
func orLearned(k Kernel) Kernel {
	if k == nil {
		return learnedWidth{}
	}
	return k
}

// defaultLearnRows is the default of KernelLearning.MaxRows.
const defaultLearnRows = 500

// learnColdEvery: learning refits from an empty model only on every
// learnColdEvery-th refit, and from the best fit's active set on every
// one (docs/design.md, after (K7)). Measured on Friedman #1 (N = 300 and 1,000,
// one width and ARD), the three real-world splits, the 25 sinc sets and
// Ripley, cold refits on every other step instead of every step halve the
// cost of learning (Friedman N = 300, one width: 11.6 → 4.7 fits' worth;
// diabetes 24 → 11 s) and leave the final V within 1 nat everywhere but
// the one-width Friedman N = 300 fit (22 nats lower, same test error).
const learnColdEvery = 2

// spread returns m row indices spread evenly through 0 … n−1.
func spread(n, m int) []int {
	r := make([]int, m)
	for i := range r {
		r[i] = i * n / m
	}
	return r
}

// learnRows returns x and t or, with more than max > 0 rows, max of them
// spread evenly through x: the rows the kernel is learned or chosen on.
func learnRows(x mat.Matrix, t []float64, max int) (mat.Matrix, []float64) {
	if n, _ := x.Dims(); max > 0 && n > max {
		rows := spread(n, max)
		return selectRows(mat.DenseCopyOf(x), rows), selectVec(t, rows)
	}
	return x, t
}

// learnable is a kernel whose parameters can be learned: it exposes their
// logarithms u and the derivatives of K in them.
type learnable interface {
	Kernel
	logParams() []float64
	withLogParams(u []float64) learnable
	// logGrad adds w·∂K(x, y)/∂uₖ (K2) to dst[k] for every uₖ, given
	// kv = K(x, y).
	logGrad(dst, x, y []float64, kv, w float64)
}

func (k Gaussian) logParams() []float64 { return []float64{math.Log(k.Width)} }

func (k Gaussian) withLogParams(u []float64) learnable { return Gaussian{Width: math.Exp(u[0])} }

// logGrad: ∂K/∂ln r = 2K‖x − y‖²/r² (K2).
func (k Gaussian) logGrad(dst, x, y []float64, kv, w float64) {
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	dst[0] += w * kv * 2 * d2 / (k.Width * k.Width) // (K2)
}

func (k ARDGaussian) logParams() []float64 {
	u := make([]float64, len(k.Scales))
	for i, s := range k.Scales {
		u[i] = math.Log(s)
	}
	return u
}

func (k ARDGaussian) withLogParams(u []float64) learnable {
	s := make([]float64, len(u))
	for i, v := range u {
		s[i] = math.Exp(v)
	}
	return ARDGaussian{Scales: s}
}

// logGrad: ∂K/∂ln ℓₖ = 2K(xₖ − yₖ)²/ℓₖ² (K2).
func (k ARDGaussian) logGrad(dst, x, y []float64, kv, w float64) {
	c := 2 * w * kv
	for i, xi := range x {
		d := (xi - y[i]) / k.Scales[i]
		dst[i] += c * d * d // (K2)
	}
}

// MedianDistance returns the median Euclidean distance between distinct
// rows of x (over at most 400 rows spread evenly through x), the scale
// from which kernel learning starts a width or length scale left at zero.
// It returns 0 for fewer than two rows or if every such distance is 0.
func MedianDistance(x mat.Matrix) float64 {
	rows := rowsOf(x)
	const most = 400
	if len(rows) > most {
		sub := make([][]float64, most)
		for i := range sub {
			sub[i] = rows[i*len(rows)/most]
		}
		rows = sub
	}
	var d []float64
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			var s float64
			for k, v := range rows[i] {
				e := v - rows[j][k]
				s += e * e
			}
			if s > 0 {
				d = append(d, math.Sqrt(s))
			}
		}
	}
	if len(d) == 0 {
		return 0
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

// startKernel returns the kernel learning starts from: k with a zero width
// (or nil length scales) replaced by the median pairwise distance of x; a
// nil k means a Gaussian. Other kernels cannot be learned. For the
// implicit default kernel (a nil Kernel without LearnKernel) on inputs
// whose rows are all equal it returns nil and no error: every width gives
// the same, constant, kernel functions, so there is nothing to learn.
func startKernel(k Kernel, x mat.Matrix, implicit bool) (learnable, error) {
	if k == nil {
		k = Gaussian{}
	}
	_, d := x.Dims()
	med := func() (float64, error) {
		m := MedianDistance(x)
		if !(m > 0) || math.IsInf(m*m, 0) {
			return m, &OptionError{Field: "LearnKernel", Value: m, Reason: "the inputs have no usable spread to start a width from (all rows equal, or distances overflow); set a starting width"}
		}
		return m, nil
	}
	switch kk := k.(type) {
	case Gaussian:
		if kk.Width == 0 {
			m, err := med()
			if err != nil && implicit && m == 0 {
				return nil, nil
			}
			return Gaussian{Width: m}, err
		}
		return kk, nil
	case ARDGaussian:
		if kk.Scales == nil {
			m, err := med()
			return ARDGaussian{Scales: constant(d, m)}, err
		}
		return ARDGaussian{Scales: append([]float64(nil), kk.Scales...)}, nil
	}
	return nil, &OptionError{Field: "LearnKernel", Reason: fmt.Sprintf("kernel %s cannot be learned: use Gaussian or ARDGaussian", kernelString(k))}
}

// fixedQ is a fitted Q held fixed while the kernel parameters move: the
// full-model bound as a function of θ, up to a constant (K3)–(K4).
type fixedQ struct {
	rows  [][]float64 // training inputs, which are also the centres
	bias  bool        // the basis has a bias function
	pos   []int       // for each centre, its position in mu, or −1 if excluded
	biasP int         // position of the bias in mu, or −1
	mu    []float64
	sigma *mat.SymDense
	beta  []float64 // Bₙ, the likelihood's precisions
	y     []float64 // yₙ, the likelihood's data vector
	prior Prior
	k     *mat.Dense // scratch: the N × N kernel matrix
}

// newFixedQ holds the solution sol of problem p fixed.
func newFixedQ(p *problem, sol *solution) *fixedQ {
	rows := rowsOf(p.basis.centers)
	n := len(rows)
	q := &fixedQ{rows: rows, bias: p.basis.bias, pos: make([]int, n), biasP: -1, mu: sol.mu, prior: p.set.prior}
	for i := range q.pos {
		q.pos[i] = -1
	}
	off := p.basis.offset()
	for i, c := range sol.cols {
		if p.basis.bias && c == 0 {
			q.biasP = i
			continue
		}
		q.pos[c-off] = i
	}
	q.sigma = sol.sigma
	if q.sigma == nil {
		q.sigma = sol.sigmaOf()
	}
	beta, uni := p.lik.weights()
	if beta == nil {
		beta = constant(n, uni)
	}
	q.beta = beta
	d, scale := p.lik.data()
	q.y = make([]float64, n)
	for i, v := range d {
		q.y[i] = scale * v
	}
	return q
}

// eval returns F(θ), the terms of the full-model bound L(Q, θ) that
// depend on the kernel k at the fixed Q, (K3) and (K4):
//
//	F = Σₙ [yₙmₙ − ½Bₙ(mₙ² + vₙ)] + Σ_{j excluded} excludedTerm(sⱼ),
//
// and, if grad is not nil, sets grad to ∂F/∂u (K5)–(K6).
func (q *fixedQ) eval(k learnable, grad []float64) float64 {
	n := len(q.rows)
	q.k = kernelMatrix(k, q.rows, q.k)
	kd := q.k.RawMatrix().Data
	ma := len(q.mu)
	// Φ_A: the active columns at the training inputs.
	phi := mat.NewDense(n, ma, nil)
	for i := range n {
		row := phi.RawRowView(i)
		if q.biasP >= 0 {
			row[q.biasP] = 1
		}
		for j, p := range q.pos {
			if p >= 0 {
				row[p] = kd[i*n+j]
			}
		}
	}
	var t mat.Dense // T = Φ_A Σ
	mul(&t, phi, q.sigma)
	m := make([]float64, n)
	var f float64
	for i := range n {
		pr, tr := phi.RawRowView(i), t.RawRowView(i)
		var mi, vi float64
		for p, v := range pr {
			mi += v * q.mu[p]
			vi += v * tr[p]
		}
		m[i] = mi
		f += q.y[i]*mi - 0.5*q.beta[i]*(mi*mi+vi) // (K3)
	}
	// Excluded functions: sⱼ = Σₙ Bₙ Kₙⱼ², their closed-form terms (K4).
	inv := make([]float64, n) // 1/(αⱼ + sⱼ) of each excluded centre
	for j, p := range q.pos {
		if p >= 0 {
			continue
		}
		var s float64
		for i := range n {
			v := kd[i*n+j]
			s += q.beta[i] * v * v
		}
		f += excludedTerm(q.prior, s) // (K4)
		inv[j] = 1 / (alphaRoot(q.prior.A, q.prior.B, s, 0) + s)
	}
	if q.bias && q.biasP < 0 {
		f += excludedTerm(q.prior, sum(q.beta)) // constant in θ
	}
	if grad == nil {
		return f
	}
	// G = ∂F/∂Φ (K5): active column p: (y − Bm)μₚ − B(ΦΣ)ₚ; excluded
	// column j: −BΦⱼ/(αⱼ + sⱼ).
	g := func(i, j int) float64 {
		if p := q.pos[j]; p >= 0 {
			return (q.y[i]-q.beta[i]*m[i])*q.mu[p] - q.beta[i]*t.At(i, p)
		}
		return -q.beta[i] * kd[i*n+j] * inv[j]
	}
	chainKernel(k, q.rows, kd, g, grad) // (K6)
	return f
}

// kernelMatrix returns the kernel matrix Kᵢⱼ = k(rows[i], rows[j]) in dst,
// which it allocates if nil.
func kernelMatrix(k Kernel, rows [][]float64, dst *mat.Dense) *mat.Dense {
	n := len(rows)
	if dst == nil {
		dst = mat.NewDense(n, n, nil)
	}
	kd := dst.RawMatrix().Data
	for i := range n {
		kd[i*n+i] = k.Eval(rows[i], rows[i])
		for j := i + 1; j < n; j++ {
			v := k.Eval(rows[i], rows[j])
			kd[i*n+j], kd[j*n+i] = v, v
		}
	}
	return dst
}

// chainKernel sets grad to ∂F/∂u = Σᵢⱼ Gᵢⱼ ∂Kᵢⱼ/∂u (K6), given
// g(i, j) = Gᵢⱼ = ∂F/∂Kᵢⱼ (the kernel function centred at row j, at row
// i) and the kernel matrix kd (row-major, N × N); K is symmetric and
// ∂Kᵢᵢ/∂u = 0.
func chainKernel(k learnable, rows [][]float64, kd []float64, g func(i, j int) float64, grad []float64) {
	for i := range grad {
		grad[i] = 0
	}
	n := len(rows)
	for i := range n {
		for j := i + 1; j < n; j++ {
			k.logGrad(grad, rows[i], rows[j], kd[i*n+j], g(i, j)+g(j, i))
		}
	}
}

// scalePrior returns ln p(θ) + ln|dθ/du| for the Gamma hyperprior of
// (K8) on every θₖ = e^(uₖ) plus the hierarchical prior of (K11), up to
// a constant, and adds its gradient to grad (if not nil).
func (o KernelLearning) scalePrior(u, grad []float64) float64 {
	lp := o.spreadPrior(u, grad)
	if !(o.ScaleShape > 0 && o.ScaleRate > 0) {
		return lp
	}
	for i, v := range u {
		e := math.Exp(v)
		lp += o.ScaleShape*v - o.ScaleRate*e // (K8)
		if grad != nil {
			grad[i] += o.ScaleShape - o.ScaleRate*e
		}
	}
	return lp
}

// spreadPrior returns the log of the hierarchical prior of (K11) on the
// log length scales u, N(uₖ | ū, s²) with s = ScaleSpread, at the common
// ū that maximises it, the mean of u, up to a constant, and adds its
// gradient to grad (if not nil). ū is profiled out: ∂/∂ū of the prior is
// zero at the mean, so the gradient is that at ū held.
func (o KernelLearning) spreadPrior(u, grad []float64) float64 {
	if !(o.ScaleSpread > 0) || len(u) < 2 {
		return 0
	}
	var mean float64
	for _, v := range u {
		mean += v
	}
	mean /= float64(len(u))
	s2 := o.ScaleSpread * o.ScaleSpread
	var lp float64
	for i, v := range u {
		e := v - mean
		lp -= e * e / (2 * s2) // (K11)
		if grad != nil {
			grad[i] -= e / s2
		}
	}
	return lp
}

func (o KernelLearning) resolve(k learnable) (KernelLearning, error) {
	def := defaultLearnRefits
	if _, ard := k.(ARDGaussian); ard {
		def = defaultARDRefits
	}
	if err := count("Learning.MaxRefits", &o.MaxRefits, def); err != nil {
		return o, err
	}
	if o.MaxRows == 0 {
		o.MaxRows = defaultLearnRows
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Learning.ScaleShape", o.ScaleShape}, {"Learning.ScaleRate", o.ScaleRate}, {"Learning.ScaleSpread", o.ScaleSpread}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return o, &OptionError{Field: f.name, Value: f.v, Reason: "must be non-negative and finite (0 means no hyperprior)"}
		}
	}
	return o, nil
}

// learnResult is the best fit kernel learning reached.
type learnResult struct {
	prob   *problem
	sol    *solution
	kernel learnable
	trace  []float64 // full-model bound + ln p(θ) after each refit
}

// learnFit is one solver fit of kernel learning at fixed kernel
// parameters.
type learnFit interface {
	// full returns the full-model bound the fit reached.
	full() float64
	// halted reports whether the Monitor stopped the fit.
	halted() bool
	// abandoned reports whether learning stopped the fit (learnBudget),
	// or the fit was stopped as crowded; full is then the bound its
	// trace had reached.
	abandoned() bool
	// crowded reports whether the fit was stopped because its effective
	// number of parameters passed the target's limit (C1).
	crowded() bool
	// iters returns the fit's number of iterations.
	iters() int
	// gradient sets g to ∂L/∂u at the fit's Q held fixed, with kernel k
	// (K5)–(K6).
	gradient(k learnable, g []float64)
}

// learnTarget is the model whose kernel learnWith learns: the binary
// models (binaryTarget) and MultiClassifier (mcTarget).
type learnTarget interface {
	// check reports whether kernel k can be fitted (its scale is usable).
	check(k learnable) error
	// fit fits the model with kernel k: from an empty model if from is
	// nil, else from the active set and likelihood factor of from, a fit
	// of the same target (only if warmable). If abandon is not nil, the
	// fit is stopped, and marked abandoned, after the first iteration
	// for which it returns true.
	fit(ctx context.Context, k learnable, from learnFit, abandon func(Progress) bool) (learnFit, error)
	// warmable reports whether fit can start from another fit.
	warmable() bool
	// unlimit lifts the limit on the effective number of parameters
	// (C1) from the fits that follow.
	unlimit()
}

// binaryTarget is the learnTarget of Regressor and Classifier.
type binaryTarget struct {
	s      settings
	b      basis
	x      mat.Matrix
	newLik func() likelihood
	// limit, if positive, is the largest effective number of parameters
	// γ of a fit (C1): regression's widthCrowded times the rows.
	limit float64
	// labels, if not nil, are a classifier's labels, whose fits are
	// limited by (C3): the effective number of parameters on the rows of
	// either class at most widthCrowded times that class's rows.
	labels []float64
	// Under (C3): whether a fit was crowded, and the first fit that was
	// not, the start of learning, with its kernel (C4).
	sawCrowded bool
	start      learnFit
	startK     learnable
}

// binaryFit is a fit of binaryTarget.
type binaryFit struct {
	p    *problem
	sol  *solution
	ab   *abandonment
	over bool // stopped by the limit on γ (C1), or crowded in a class (C3)
}

func (f *binaryFit) full() float64 {
	if f.ab.done {
		return f.ab.bound
	}
	return f.sol.full
}
func (f *binaryFit) halted() bool    { return f.sol.status == Stopped && !f.ab.done && !f.over }
func (f *binaryFit) abandoned() bool { return f.ab.done || f.over }
func (f *binaryFit) crowded() bool   { return f.over }
func (f *binaryFit) iters() int      { return f.sol.iters }
func (f *binaryFit) gradient(k learnable, g []float64) {
	newFixedQ(f.p, f.sol).eval(k, g) // (K5)–(K6)
}

func (t *binaryTarget) check(k learnable) error {
	bb := t.b
	bb.kernel = k
	return bb.checkScale()
}

func (t *binaryTarget) warmable() bool { return t.s.prune && t.s.solver == Sequential }

func (t *binaryTarget) unlimit() { t.limit, t.labels = 0, nil }

func (t *binaryTarget) fit(ctx context.Context, k learnable, from learnFit, abandon func(Progress) bool) (learnFit, error) {
	bb := t.b
	bb.kernel = k
	p := &problem{basis: bb, x: t.x, lik: t.newLik(), set: t.s}
	p.set.kernel = k
	p.set.gammaLimit = t.limit
	ab := p.set.abandonWhen(abandon)
	if from != nil {
		// Refit from the best fit's active set and likelihood factor.
		bf := from.(*binaryFit)
		p.warm = &warmStart{cols: bf.sol.cols, alpha: bf.sol.alpha}
		copyFactor(p.lik, bf.p.lik)
	}
	sol, err := t.s.solver.method().fit(ctx, p)
	if sol == nil {
		return nil, err
	}
	over := t.limit > 0 && sol.status == Stopped && !ab.done && effectiveParameters(sol) > t.limit
	if t.labels != nil && err == nil && !ab.done && sol.status != Stopped {
		over = classCrowded(p, sol, t.labels) // (C3)
		t.sawCrowded = t.sawCrowded || over
	}
	f := &binaryFit{p: p, sol: sol, ab: ab, over: over}
	if t.labels != nil && t.start == nil && err == nil && !over && !ab.done && sol.status != Stopped {
		t.start, t.startK = f, k
	}
	return f, err
}

// memorising fits the model, without (C3), at the kernel k with every
// scale divided by e^maxLogMove, the narrowest learning reaches, where
// the kernel matrix is the identity to rounding for any inputs without
// repeated rows: every kernel function is a spike at its own row, and a
// fit memorises the labels it can (C4).
func (t *binaryTarget) memorising(ctx context.Context, k learnable) (learnFit, learnable, error) {
	u := k.logParams()
	for i := range u {
		u[i] -= maxLogMove
	}
	labels := t.labels
	t.labels = nil
	defer func() { t.labels = labels }()
	ki := k.withLogParams(u)
	f, err := t.fit(ctx, ki, nil, nil)
	return f, ki, err
}

// classLeverage returns the effective number of parameters of the fit
// sol of p on the rows of each class of the labels t (0 or 1): the sums
// over those rows of the leverages hₙ = Bₙφₙᵀ Σ φₙ over the active
// functions, whose sum over every row is γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) = tr(ΣΦᵀBΦ)
// (C3). It returns zeros if Σ or the design cannot be had.
func classLeverage(p *problem, sol *solution, t []float64) [2]float64 {
	var g [2]float64
	if sol.sigma == nil && sol.sigmaOf != nil {
		sol.sigma = sol.sigmaOf()
	}
	if sol.sigma == nil || len(sol.cols) == 0 {
		return g
	}
	phi, err := p.basis.design(p.x, sol.cols)
	if err != nil {
		return g
	}
	beta, uni := p.lik.weights()
	var ps mat.Dense // ΦΣ
	mul(&ps, phi, sol.sigma)
	for i, c := range t {
		b := uni
		if beta != nil {
			b = beta[i]
		}
		h := b * floats.Dot(phi.RawRowView(i), ps.RawRowView(i))
		if c == 1 {
			g[1] += h
		} else {
			g[0] += h
		}
	}
	return g
}

// classCrowded reports whether the fit sol of a classifier's problem p,
// with labels t, is crowded in a class (C3): its effective number of
// parameters on the rows of class c passes widthCrowded times the Nc
// rows of that class, more than one parameter for every two labels, so
// that the fit spends functions on memorising those labels, each a spike
// at its own row, rather than on how the class varies with the inputs.
func classCrowded(p *problem, sol *solution, t []float64) bool {
	var n [2]float64
	for _, c := range t {
		if c == 1 {
			n[1]++
		} else {
			n[0]++
		}
	}
	g := classLeverage(p, sol, t)
	return g[0] > widthCrowded*n[0] || g[1] > widthCrowded*n[1]
}

// learnKernel is learnWith for Regressor and Classifier: newLik makes a
// fresh likelihood for each fit.
func learnKernel(ctx context.Context, s settings, b basis, x mat.Matrix, k0 learnable, o KernelLearning, newLik func() likelihood) (*learnResult, error) {
	tg := &binaryTarget{s: s, b: b, x: x, newLik: newLik}
	if l, ok := newLik().(*gaussLik); ok && !s.noCrowdLimit && s.prune && s.solver == Sequential {
		tg.limit = widthCrowded * float64(len(l.t)) // (C1)
	}
	if l, ok := newLik().(*logitLik); ok && !s.noCrowdLimit && s.prune && s.solver == Sequential {
		tg.labels = l.t // (C3)
	}
	best, k, trace, err := learnWith(ctx, tg, x, k0, o)
	if best == nil {
		return nil, err
	}
	if tg.sawCrowded && tg.start != nil && err == nil {
		// (C4) Learning met a fit crowded in a class (C3): does the
		// bound prefer any fit it kept to memorising the labels, the
		// limit of narrow widths where every kernel function is a spike
		// at its own row? If not, it cannot tell the widths apart, and
		// learning keeps its start. A memorising fit that failed or was
		// stopped leaves the best fit; a cancelled context is reported.
		fi, ki, errI := tg.memorising(ctx, tg.startK)
		if fi != nil && errI == nil && !fi.halted() {
			vi := fi.full() + o.scalePrior(ki.logParams(), nil)
			trace = append(trace, vi)
			if !(best.full()+o.scalePrior(k.logParams(), nil) > vi) {
				best, k = tg.start, tg.startK
			}
		}
		if errI != nil && ctx != nil && ctx.Err() != nil {
			err = errI
		}
	}
	bf := best.(*binaryFit)
	return &learnResult{prob: bf.p, sol: bf.sol, kernel: k, trace: trace}, err
}

// Steps on u = ln θ (K7): each uₖ moves by its own step in the direction
// of the sign of ∂V/∂uₖ (Rprop; Riedmiller & Braun 1993), which needs no
// line search on V, whose values the solver reaches only up to its local
// maxima: a step grows by rpropUp while the sign persists and shrinks by
// rpropDown when it flips.
// A fit whose V falls below the best so far is undone, as in iRprop+:
// u returns to the best fit's, every step shrinks by rpropDown, and the
// next step leaves from there along the best fit's gradient.
const (
	rpropStart = 0.5  // first step on each ln θ: a factor e^½ ≈ 1.65
	rpropUp    = 2    // growth while the gradient keeps its sign
	rpropDown  = 0.5  // shrinkage when it flips, or when V falls
	rpropMax   = 4    // largest step: a factor e⁴ ≈ 55
	rpropMin   = 0.02 // learning stops when every step is below this
	maxLogMove = 12   // no ln θ moves further than this from its start
	offScale   = 10   // an ARD ℓₖ beyond this many sd of input k is tried at the upper bound
	offSlack   = 1    // switching inputs off is kept unless V falls by this many nats
)

// abandonment records whether learning stopped a fit (learnBudget), and
// the bound its trace had reached then.
type abandonment struct {
	done  bool
	bound float64
}

// abandonWhen makes s's Monitor also stop the fit after the first
// iteration for which abandon (if not nil) returns true, and returns the
// record of that. The user's Monitor is called first, and its stop is
// not an abandonment.
func (s *settings) abandonWhen(abandon func(Progress) bool) *abandonment {
	ab := &abandonment{}
	if abandon == nil {
		return ab
	}
	user := s.monitor
	s.monitor = func(p Progress) bool {
		if user != nil && user(p) {
			return true
		}
		if abandon(p) {
			ab.done, ab.bound = true, p.Bound
			return true
		}
		return false
	}
	return ab
}

// learnBudget returns the test that abandons a refit of kernel learning
// (docs/design.md, after (K7)): after secondBudget(iters) iterations, iters the
// most any finished fit took, a fit whose trace is not above floor (the
// bound it must beat to be kept) is stopped. The trace is a lower bound on
// the fit's full-model bound and never decreases (S4), but crawls near a
// far optimum; such a refit is scored by the bound it has reached, below
// the best, and its step is rejected.
func learnBudget(iters int, floor float64) func(Progress) bool {
	budget := secondBudget(iters)
	return func(p Progress) bool { return p.Iteration >= budget && !(p.Bound > floor) }
}

// columnSDs returns the (population) standard deviation of every column
// of x.
func columnSDs(x mat.Matrix) []float64 {
	_, d := x.Dims()
	sd := make([]float64, d)
	for j := range d {
		_, sd[j] = stat.PopMeanStdDev(mat.Col(nil, j, x), nil)
	}
	return sd
}

// learnWith alternates fits of target with steps on u = ln θ (K7) along
// the gradient of V(θ) = max_Q L(Q, θ) + ln p(θ), which at the converged
// Q of each fit is ∂L/∂u at that fixed Q (K5)–(K6), starting from k0 (x
// are the training inputs). It returns the fit with the largest V, its
// kernel, and V after each fit.
func learnWith(ctx context.Context, target learnTarget, x mat.Matrix, k0 learnable, o KernelLearning) (learnFit, learnable, []float64, error) {
	var best learnFit
	var bestK learnable
	var bestV float64
	var trace []float64
	u0 := k0.logParams()
	u := append([]float64(nil), u0...)
	var uBest, gBest []float64
	k := k0
	step := constant(len(u), rpropStart)
	var prevG []float64
	var sd []float64      // the inputs' standard deviations
	var triedAt []float64 // ℓₖ at which input k was last tried switched off
	offTrial := false     // this refit tries inputs switched off, nothing else
	longest := 0          // the most iterations a finished fit took
	widened := 0          // doublings of the start for a crowded first fit (C1)
	for refit := 0; refit < o.MaxRefits; refit++ {
		if err := target.check(k); err != nil {
			if best != nil {
				break
			}
			return nil, nil, nil, err
		}
		warm := best != nil && target.warmable()
		var abandon func(Progress) bool
		if best != nil {
			floor := bestV - o.scalePrior(u, nil)
			if offTrial {
				floor -= offSlack
			}
			abandon = learnBudget(longest, floor)
		}
		var fit learnFit
		var err error
		if !warm || refit%learnColdEvery == 0 {
			fit, err = target.fit(ctx, k, nil, abandon)
			if fit == nil {
				if best != nil {
					return best, bestK, trace, err
				}
				return nil, nil, nil, err
			}
		}
		if warm && (fit == nil || err == nil && !fit.halted()) {
			// Refit from the best fit, and (on a cold refit) keep the
			// better of the two: a fit from an empty model can end in
			// another local maximum, whose V jumps with θ; the warm
			// fit's moves with θ. A crowded fit (C1), (C3) is not
			// kept, so it loses to one that is not, whatever its V.
			fw, errw := target.fit(ctx, k, best, abandon)
			if fit == nil && fw == nil {
				return best, bestK, trace, errw
			}
			if fw != nil && (fit == nil || errw != nil || fw.halted() || fit.crowded() && !fw.crowded() ||
				fw.full() > fit.full() && (!fw.crowded() || fit.crowded())) {
				fit, err = fw, errw
			}
		}
		if fit.crowded() && best == nil && err == nil {
			// (C1) The first fit is crowded: start from twice the
			// scales, up to widthMaxUp times, then without the limit.
			if widened < widthMaxUp {
				widened++
				for i := range u {
					u0[i] += math.Ln2
					u[i] = u0[i]
				}
			} else {
				target.unlimit()
			}
			k = k.withLogParams(u)
			refit--
			continue
		}
		v := fit.full() + o.scalePrior(u, nil)
		trace = append(trace, v)
		if err != nil || fit.halted() {
			// Stopped or cancelled: keep what this fit reached.
			return fit, k, trace, err
		}
		if !fit.abandoned() {
			longest = max(longest, fit.iters())
		}
		// A fit is kept if it raises V, or, switching inputs off (the
		// simpler model), if it lowers V by less than offSlack.
		better := !fit.crowded() && (best == nil || v > bestV || offTrial && v > bestV-offSlack)
		if refit == o.MaxRefits-1 && !better {
			break
		}
		var g []float64
		if better {
			best, bestK, bestV = fit, k, v
			if refit == o.MaxRefits-1 {
				break
			}
			g = make([]float64, len(u))
			fit.gradient(k, g) // (K5)–(K6)
			o.scalePrior(u, g)
			for i, gi := range g {
				if prevG != nil {
					switch {
					case gi*prevG[i] > 0:
						step[i] = math.Min(step[i]*rpropUp, rpropMax)
					case gi*prevG[i] < 0:
						step[i] *= rpropDown // the maximum was passed
					}
				}
			}
			uBest, gBest, prevG = append([]float64(nil), u...), g, g
		} else if offTrial {
			// Switching the inputs off lowered V: keep them on and go on
			// from the best fit with the steps unchanged.
			g = gBest
		} else {
			// V fell: undo the step and leave the best fit again with
			// shorter steps (iRprop+) along the parameters whose
			// gradient changed sign at the rejected θ (the step passed
			// their maximum), or along every one if none did.
			// An abandoned fit's Q is not at a maximum of L: its
			// gradient is not used.
			flipped := false
			if !fit.abandoned() {
				gr := make([]float64, len(u))
				fit.gradient(k, gr) // (K5)–(K6)
				o.scalePrior(u, gr)
				for i, gi := range gr {
					if gi*gBest[i] < 0 {
						step[i] *= rpropDown
						flipped = true
					}
				}
			}
			if !flipped {
				for i := range step {
					step[i] *= rpropDown
				}
			}
			g = gBest
		}
		moved := false
		offTrial = false
		if _, ard := k.(ARDGaussian); ard {
			// An ARD length scale beyond offScale standard deviations of
			// its input hardly changes K, and its gradient still asks for
			// more: try the input switched off, ℓₖ at the upper bound, in
			// a refit of its own from the best fit (judged by V like any
			// step), and again only once ℓₖ has doubled since.
			if sd == nil {
				sd, triedAt = columnSDs(x), make([]float64, len(u))
			}
			copy(u, uBest)
			for i, gi := range gBest {
				l := math.Exp(uBest[i])
				if gi > 0 && sd[i] > 0 && l > offScale*sd[i] && l > 2*triedAt[i] && uBest[i] < u0[i]+maxLogMove {
					triedAt[i], u[i], offTrial = l, u0[i]+maxLogMove, true
				}
			}
			moved = offTrial
		}
		if !offTrial {
			for i, gi := range g {
				nu := uBest[i]
				off := triedAt != nil && uBest[i] >= u0[i]+maxLogMove // switched off: stays off
				if step[i] >= rpropMin && gi != 0 && !off {
					nu = math.Max(u0[i]-maxLogMove, math.Min(u0[i]+maxLogMove, nu+math.Copysign(step[i], gi)))
				}
				if nu != uBest[i] {
					moved = true
				}
				u[i] = nu
			}
		}
		if !moved {
			break
		}
		k = k.withLogParams(u)
		if err := stopped(ctx, refit); err != nil {
			return best, bestK, trace, err
		}
	}
	return best, bestK, trace, nil
}

// copyFactor sets the likelihood factor of dst (Q_τ, or ξ) to that of
// src, a likelihood of the same task and data.
func copyFactor(dst, src likelihood) {
	switch d := dst.(type) {
	case *gaussLik:
		s := src.(*gaussLik)
		d.ct, d.dt = s.ct, s.dt
	case *logitLik:
		s := src.(*logitLik)
		for i, v := range s.xi {
			d.setXi(i, v)
		}
	}
}

// startLearning validates the data and resolves the starting kernel when
// learning is on; it returns nil when it is off. implicit marks the
// default kernel (see startKernel): on inputs whose rows are all equal it
// becomes Gaussian{Width: 1}, not learned.
func startLearning(on, implicit, design bool, o *options, x mat.Matrix, t []float64) (learnable, error) {
	if !on {
		return nil, nil
	}
	if design {
		return nil, &OptionError{Field: "LearnKernel", Reason: "FitDesign has no kernel to learn"}
	}
	if err := checkInputs(x, t); err != nil {
		return nil, err
	}
	k0, err := startKernel(o.kernel, x, implicit)
	if err != nil {
		return nil, err
	}
	if k0 == nil {
		o.kernel = Gaussian{Width: 1}
		return nil, nil
	}
	o.kernel = k0
	return k0, nil
}

// FittedKernel returns the kernel of the fitted model: the configured
// kernel, or with LearnKernel the learned one (for example
// ARDGaussian{Scales: …} with the learned length scales); nil for a
// FitDesign model. It is a copy: changing its Scales does not change the
// model.
func (f *fitted) FittedKernel() Kernel {
	if !f.hasPosterior() {
		return nil
	}
	return ownKernel(f.b.kernel)
}

// LearnTrace returns, for a fit with LearnKernel, the full-model bound
// (plus the log hyperprior of the scales, if any) after each solver fit
// of kernel learning, in order (for a refit that learning abandoned, the
// bound its trace had reached); the model kept is the one with the
// largest value, except that an ARD fit with inputs switched off is
// preferred to one within a nat above it, that a crowded fit ((C1), (C3))
// is not kept, and that a classifier's learning that met a crowded fit
// ends with the bound at the narrowest width, where the kernel functions
// are spikes at their own rows, and keeps its first fit unless a fit it
// kept is above that (C4) (docs/design.md, "Learning the kernel"). For
// RVMClassifier with a nil Kernel it holds the bounds of Classifier's
// learning of the width (R7). For Regressor, which learns by the dense
// model's evidence, it holds that evidence at the default width and at
// the learned kernel, in the targets' units (docs/kernel-learning.md
// (E6)). It is nil for a fit without learning.
func (f *fitted) LearnTrace() []float64 { return append([]float64(nil), f.learnTrace...) }

// learnLine is the summary line of kernel learning, or "".
func (f *fitted) learnLine() string {
	if f.widthEvidence != 0 {
		l := fmt.Sprintf("width chosen by the evidence of the dense model, %.4g (W4)", f.widthEvidence)
		if f.widthDoublings > 0 {
			l += fmt.Sprintf(", doubled %d times (W5)", f.widthDoublings)
		}
		return l
	}
	if f.evidenceNote != "" {
		return f.evidenceNote + doublingsNote(f.widthDoublings)
	}
	if f.learnTrace == nil {
		return ""
	}
	if f.estimator == "rvm" {
		return fmt.Sprintf("width learned by Classifier's full-model bound in %d fits (R7)", len(f.learnTrace))
	}
	return fmt.Sprintf("kernel learned by the full-model bound in %d fits", len(f.learnTrace))
}
