package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Solver selects the algorithm that maximises the lower bound L. Both
// converge to fixed points of the same variational updates (23)–(27) or
// (54)–(58); they differ in the work it takes and, since L has several
// local maxima (different sets of relevant functions), possibly in the
// maximum they reach.
type Solver int

const (
	// Fast is the default solver. What it does depends on pruning:
	//
	// With pruning (the default), it is sequential (sequential.go): it
	// starts from one basis function and adds, re-estimates and removes
	// functions one at a time, each ⟨αₘ⟩ set to its exact optimum given
	// the others (the root of a cubic, as in Tipping & Faul 2003 and
	// Shutin et al. 2011, here for the variational bound), so that no
	// such step decreases L. A function is added when its optimal ⟨αₘ⟩
	// is below PruneAlpha and removed when it rises above, the pruning
	// rule of the paper's schedule. It works on the factorisation
	// Φ = U Bᵀ below, so the N × N kernel matrix is never formed and the
	// work per iteration does not grow with N beyond O(N M²). It usually
	// ends with fewer functions than the paper's schedule, at a maximum
	// of the same updates for the active model. An iteration (Iterations,
	// BoundTrace, Monitor) is one sweep over the active functions, one
	// update of Q_τ or ξ and, now and then, the addition of functions.
	// LowerBound and BoundTrace are the bound of the model made of the
	// active functions, as for the paper's schedule; FullModelBound adds
	// for each excluded function the closed-form contribution of the
	// factor Q(wₘ) = N(0, vₘ), independent of the other weights, with vₘ
	// and Q_αₘ at their optimum: L(Q) of the paper's full model for a
	// valid Q, so a true lower bound on its log evidence.
	//
	// Without pruning (NoPrune), it iterates the paper's schedule
	// extrapolated by SQUAREM, which follows the schedule's path, until
	// the bound gains less than a relative 1e-6 per cycle, then takes
	// Levenberg–Marquardt steps on the bound with Q_w eliminated, which
	// converge quadratically, and reaches the paper's fixed point (it
	// matches the reference fixtures). The bound never decreases (beyond
	// rounding) from one accepted point to the next. Convergence uses the
	// criteria of the paper's schedule (Tol, ParamTol) applied to one
	// iteration of that schedule from the final point. An iteration is one
	// extrapolated cycle or one Newton step. Newton steps need a dense
	// Hessian and are taken only while the number of parameters (functions
	// plus 1, or plus N for classification) is at most 1500.
	//
	// Both work with a factorisation Φ = U Bᵀ of the design of rank r,
	// computed by pivoted Cholesky of the kernel matrix for this package's
	// kernels (kernel columns computed on demand, in parallel; r is small
	// for smooth kernels: tens for the Gaussian kernel on one-dimensional
	// data, whatever N) and by QR otherwise (user kernels and designs,
	// r = min(N, M)). Memory is O((N + P) r) for P candidate functions.
	Fast Solver = iota
	// PaperSchedule is the schedule of Bishop & Tipping (2000): every
	// iteration updates Q_w, then all Q_αₘ, then Q_τ (or ξ). Irrelevant
	// ⟨αₘ⟩ converge linearly with rate about 1 − 4b⟨αₘ⟩, so it needs
	// 10⁴–10⁵ iterations to converge tightly. With pruning, its bound is
	// that of the model restricted to the active functions.
	PaperSchedule
)

var solverNames = [...]string{"fast", "paper schedule"}

func (s Solver) String() string {
	if s < 0 || int(s) >= len(solverNames) {
		return "unknown solver"
	}
	return solverNames[s]
}

func (s Solver) check() error {
	if s < 0 || int(s) >= len(solverNames) {
		return &OptionError{Field: "Solver", Value: float64(s), Reason: "unknown solver"}
	}
	return nil
}

// alphaRoot returns the maximiser over α > 0 of
// f(α) = (a+½) ln α − bα − ½ ln(α + s) + ½ q2/(α + s), for a, b > 0,
// s ≥ 0 and q2 = q² ≥ 0. f → −∞ at both ends of (0, ∞), so the maximum is
// at a root of the cubic
//
//	−bα³ + (a − 2bs)α² + (2ãs − bs² − s/2 − q²/2)α + ãs² = 0
//
// (α f'(α) multiplied by (α + s)²); alphaRoot finds every root in
// (0, ã/b) and returns the one with the largest f.
func alphaRoot(a, b, s, q2 float64) float64 {
	at := a + 0.5
	hi := at / b
	if s < 0 {
		s = 0
	}
	// g(α) = α f'(α) has the sign of the cubic on α > 0.
	g := func(x float64) float64 {
		u := x + s
		return at - b*x - 0.5*x/u - 0.5*q2*x/(u*u)
	}
	dg := func(x float64) float64 {
		u := x + s
		return -b - 0.5*s/(u*u) - 0.5*q2*(s-x)/(u*u*u)
	}
	f := func(x float64) float64 { return fval(a, b, x, s, q2) }
	// Critical points of the cubic p(α) split (0, ã/b) into intervals on
	// which p, and so g, is monotone: each holds at most one root.
	bb := a - 2*b*s
	c1 := 2*at*s - b*s*s - s/2 - q2/2
	pts := []float64{0}
	if disc := bb*bb + 3*b*c1; disc > 0 {
		sq := math.Sqrt(disc)
		qq := bb + math.Copysign(sq, bb)
		r1, r2 := qq/(3*b), -c1/qq
		if r1 > r2 {
			r1, r2 = r2, r1
		}
		for _, r := range []float64{r1, r2} {
			if r > 0 && r < hi && !math.IsNaN(r) {
				pts = append(pts, r)
			}
		}
	}
	pts = append(pts, hi)
	best, bestF := math.NaN(), math.Inf(-1)
	glo := at // g(0⁺) = ã
	for i := 1; i < len(pts); i++ {
		lo, up := pts[i-1], pts[i]
		gup := g(up)
		if (glo > 0) == (gup > 0) && gup != 0 {
			glo = gup
			continue
		}
		r := bracketRoot(g, dg, lo, up, glo > 0)
		glo = gup
		if v := f(r); v > bestF || math.IsNaN(best) {
			best, bestF = r, v
		}
	}
	if math.IsNaN(best) {
		// Unreachable in exact arithmetic (g(0⁺) > 0 > g(ã/b)); guard
		// against rounding at the ends of the interval.
		return hi
	}
	return best
}

// bracketRoot finds the root of g in [lo, hi], where g changes sign and is
// decreasing if dec, by Newton steps safeguarded with bisection.
func bracketRoot(g, dg func(float64) float64, lo, hi float64, dec bool) float64 {
	x := 0.5 * (lo + hi)
	if lo > 0 {
		x = math.Sqrt(lo * hi) // geometric midpoint: roots span many decades
	}
	for range 200 {
		v := g(x)
		if v == 0 {
			return x
		}
		if (v > 0) == dec {
			lo = x
		} else {
			hi = x
		}
		if hi-lo <= 4e-16*hi {
			return 0.5 * (lo + hi)
		}
		next := x - v/dg(x)
		if !(next > lo && next < hi) {
			if lo > 0 && hi/lo > 4 {
				next = math.Sqrt(lo * hi)
			} else {
				next = 0.5 * (lo + hi)
			}
		}
		if next == x {
			return x
		}
		x = next
	}
	return x
}

// fastSwitchTol is the relative gain of the bound over one extrapolated
// cycle of the paper's schedule below which the solver switches to Newton
// steps. L has several local maxima, and Newton steps taken too early can
// end in a different one than the schedule reaches: on 23 seeded sinc
// problems (N = 20–130) switching at 1e-5 or later always ended at the
// schedule's optimum, switching after one cycle did so on 19. At N = 1000
// switching at 1e-5 ended elsewhere, at 1e-6 at the schedule's optimum.
const fastSwitchTol = 1e-6

// roundF is the relative rounding error of the bound F: its terms are
// sums of O(N + M) terms of the size of F.
const roundF = 1e-13

// fastRun is the state of one fit by the fast solver.
type fastRun struct {
	model fastModel
	c     control
	trace []float64
	iters int
	x     []float64 // current parameters; the model's state is at x
	f     float64   // F(x)
	next  []float64 // T(x)
	hook  func(step string, f float64)
	// Levenberg–Marquardt state of the Newton phase
	lambda float64
	lmSize int
}

// runFast fits model from the parameters x0.
//
// Phase 1 iterates the paper's schedule T, extrapolated by SQUAREM
// (Varadhan & Roland 2008, scheme S3): from x₀, x₁ = T(x₀), x₂ = T(x₁),
// r = x₁ − x₀, v = x₂ − 2x₁ + x₀ and a = −‖r‖/‖v‖, the next point is
// T(x₀ − 2ar + a²v), accepted only if the bound there is at least F(x₁);
// otherwise a moves halfway towards −1, the plain double step. The
// extrapolation follows the path of the schedule, which matters because
// L has several local maxima. Phase 2 takes damped Newton steps on the
// collapsed bound F (see fast_newton.go), each accepted only if F does not
// decrease. So L never decreases from one accepted point to the next.
//
// trace[0] is the bound after the first Q_w update at x0; trace[k] the
// bound after iteration k (an extrapolated cycle or a Newton step).
//
// hook, if not nil, is called with the bound F of the active model at every
// accepted point (tests check that it never decreases).
func runFast(ctx context.Context, model fastModel, c control, x0 []float64, hook func(step string, f float64)) (fr *fastRun, status Status, err error) {
	fr = &fastRun{model: model, c: c, hook: hook}
	if !fr.eval(x0) {
		return fr, NotFitted, &NotPositiveDefiniteError{Iteration: 0}
	}
	fr.record("start")
	const (
		squarem = iota
		newton
	)
	phase := squarem
	stepMax := 1.0
	for fr.iters < c.maxIter {
		if err := stopped(ctx, fr.iters); err != nil {
			return fr, Canceled, err
		}
		fr.iters++
		if c.prune && fr.prune() {
			if !fr.eval(fr.x) {
				return fr, NotFitted, &NotPositiveDefiniteError{Iteration: fr.iters}
			}
		}
		prevF := fr.f
		var conv bool
		switch phase {
		case newton:
			var progressed bool
			conv, progressed = fr.newtonStep()
			if !progressed {
				// Too large for a dense Hessian, or no ascent step
				// found: continue with the extrapolated schedule.
				phase = squarem
			}
		case squarem:
			conv, stepMax = fr.squaremCycle(stepMax)
			if !conv && fr.f-prevF <= fastSwitchTol*math.Max(1, math.Abs(fr.f)) && len(fr.x) <= newtonMax {
				phase = newton
			}
		}
		if conv && c.prune && fr.prunable() {
			conv = false // prune at the next iteration and go on
		}
		if math.IsNaN(fr.f) {
			return fr, NotFitted, &NotPositiveDefiniteError{Iteration: fr.iters}
		}
		l := fr.record("iteration")
		if c.monitor != nil && c.monitor(Progress{Iteration: fr.iters, Bound: l, Change: math.Abs(fr.f-prevF) / math.Max(1, math.Abs(fr.f)), Active: model.active()}) {
			return fr, Stopped, nil
		}
		if conv {
			return fr, Converged, nil
		}
	}
	return fr, IterationLimit, nil
}

// eval moves the model to x; fr.f = F(x), fr.next = T(x).
func (fr *fastRun) eval(x []float64) bool {
	next, f, ok := fr.model.eval(x)
	if !ok {
		return false
	}
	fr.x, fr.f, fr.next = x, f, next
	return true
}

// record appends the bound F of the active model to the trace.
func (fr *fastRun) record(step string) float64 {
	l := fr.f
	fr.trace = append(fr.trace, l)
	if fr.hook != nil {
		fr.hook(step, fr.f)
	}
	return l
}

// converged applies the criteria of the paper's schedule to one plain
// iteration from the current point: the bound changes by at most tol and
// every parameter by at most paramTol (relative, i.e. in the logarithms).
func (fr *fastRun) converged(df float64) bool {
	if !(math.Abs(df) <= fr.c.tol*math.Max(1, math.Abs(fr.f))) {
		return false
	}
	var pc float64
	for i, v := range fr.next {
		pc = math.Max(pc, math.Abs(v-fr.x[i]))
	}
	return pc <= fr.c.paramTol
}

// squaremCycle runs one extrapolated cycle. It returns whether its first
// plain step met the convergence criteria (in which case the state is left
// there).
func (fr *fastRun) squaremCycle(stepMax float64) (conv bool, newMax float64) {
	x0, f0, x1 := fr.x, fr.f, fr.next
	if !fr.eval(x1) {
		fr.f = math.NaN()
		return false, stepMax
	}
	f1, x2 := fr.f, fr.next
	if fr.hook != nil {
		fr.hook("plain", f1)
	}
	if fr.converged(f1 - f0) {
		return true, stepMax
	}
	// With pruning, a cycle ends after a plain step that takes some ⟨αₘ⟩
	// past the threshold, so that functions are pruned as the schedule
	// prunes them, and an extrapolation may not take any past it.
	m := fr.model.active()
	lnPrune := math.Log(fr.c.pruneAt)
	if fr.c.prune && (crosses(x1[:m], lnPrune) || crosses(x2[:m], lnPrune)) {
		return false, stepMax
	}
	k := len(x0)
	r := make([]float64, k)
	v := make([]float64, k)
	var nr, nv float64
	for i := range k {
		r[i] = x1[i] - x0[i]
		v[i] = x2[i] - 2*x1[i] + x0[i]
		nr += r[i] * r[i]
		nv += v[i] * v[i]
	}
	a := -1.0
	if nv > 0 {
		a = math.Max(-math.Sqrt(nr/nv), -stepMax)
	}
	for {
		if a > -1 {
			a = -1
		}
		xp := make([]float64, k)
		for i := range k {
			xp[i] = x0[i] - 2*a*r[i] + a*a*v[i]
		}
		if (!fr.c.prune || a == -1 || !crosses(xp[:m], lnPrune)) && fr.eval(xp) && fr.f >= f1 {
			break
		}
		if a == -1 {
			// The plain double step x₂ = T(T(x₀)) never lowers the bound.
			if !fr.eval(x2) {
				fr.f = math.NaN()
			}
			break
		}
		a = (a - 1) / 2
	}
	if a <= -stepMax {
		stepMax *= 4
	}
	return false, stepMax
}

// crosses reports whether some ln⟨αₘ⟩ in u exceeds lnPrune.
func crosses(u []float64, lnPrune float64) bool {
	for _, v := range u {
		if v > lnPrune {
			return true
		}
	}
	return false
}

// newtonStep takes one Levenberg–Marquardt step on the collapsed bound:
// x + δ with (λI − H)δ = g. λ is adapted from the ratio ρ of the actual
// to the predicted gain (Nielsen 1999): after a successful step it shrinks
// by max(⅓, 1 − (2ρ − 1)³), after a failed one it grows by a factor that
// doubles with every failure. Only steps that do not decrease the bound
// are taken (up to the rounding error of F). It returns whether the step
// met the convergence criteria and whether a step was taken.
func (fr *fastRun) newtonStep() (conv, progressed bool) {
	g, h, ok := fr.model.newton()
	if !ok {
		return false, false
	}
	x0, f0 := fr.x, fr.f
	k := len(g)
	if fr.lmSize != k {
		var scale float64
		for i := range k {
			scale = math.Max(scale, math.Abs(h.At(i, i)))
		}
		fr.lambda = 1e-6 * math.Max(scale, 1)
		fr.lmSize = k
	}
	nu := 2.0
	a := mat.NewSymDense(k, nil)
	d := mat.NewVecDense(k, nil)
	hd := mat.NewVecDense(k, nil)
	var ch mat.Cholesky
	for range 100 {
		for i := range k {
			for j := i; j < k; j++ {
				v := -h.At(i, j)
				if i == j {
					v += fr.lambda
				}
				a.SetSym(i, j, v)
			}
		}
		if !ch.Factorize(a) || ch.SolveVecTo(d, mat.NewVecDense(k, g)) != nil {
			fr.lambda = math.Max(fr.lambda*nu, 1e-12)
			nu *= 2
			continue
		}
		var dm float64
		for i := range k {
			dm = math.Max(dm, math.Abs(d.AtVec(i)))
		}
		if dm > 20 {
			// Far outside any region where the quadratic model holds.
			fr.lambda *= nu
			nu *= 2
			continue
		}
		hd.MulVec(h, d)
		pred := mat.Dot(d, mat.NewVecDense(k, g)) + 0.5*mat.Dot(d, hd)
		xn := make([]float64, k)
		for i := range k {
			xn[i] = x0[i] + d.AtVec(i)
		}
		// Near the optimum the gain (of order g²/|H|) falls below the
		// rounding error of F: a step is accepted unless it lowers F
		// by more than that rounding error.
		if fr.eval(xn) && fr.f >= f0-roundF*math.Max(1, math.Abs(f0)) {
			rho := 1.0 // a gain below the rounding of F says nothing
			if pred > roundF*math.Max(1, math.Abs(f0)) {
				rho = (fr.f - f0) / pred
			}
			fr.lambda *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
			return fr.converged(fr.f - f0), true
		}
		fr.lambda = math.Max(fr.lambda*nu, 1e-12)
		nu *= 2
	}
	// No ascent step: the point is stationary to rounding, or the
	// quadratic model is useless here.
	if !fr.eval(x0) {
		fr.f = math.NaN()
	}
	conv = fr.converged(0)
	return conv, conv
}

// prunable reports whether some function's ⟨αₘ⟩ exceeds the threshold.
func (fr *fastRun) prunable() bool {
	for _, v := range fr.x[:fr.model.active()] {
		if math.Exp(v) > fr.c.pruneAt {
			return true
		}
	}
	return false
}

// prune drops the functions whose ⟨αₘ⟩ exceeds the threshold, as the
// paper's schedule does; the state must be re-evaluated afterwards.
func (fr *fastRun) prune() bool {
	m := fr.model.active()
	alphas := make([]float64, m)
	for i := range m {
		alphas[i] = math.Exp(fr.x[i])
	}
	keep, pruned := pruneSet(alphas, fr.c.pruneAt)
	if !pruned {
		return false
	}
	fr.model.keep(keep)
	x := append(selectVec(fr.x[:m], keep), fr.x[m:]...)
	fr.x = x
	return true
}

// fitFast fits r with the fast solver.
func (r *Regressor) fitFast(ctx context.Context, b basis, x mat.Matrix, t []float64, p Prior, c control, tau0 float64) error {
	f, err := newDesignFactor(ctx, b, x)
	if err != nil {
		return err
	}
	model := newFastReg(f, t, p)
	m := len(f.cols)
	x0 := make([]float64, m+1)
	for i := range m {
		x0[i] = math.Log(c.alpha0)
	}
	x0[m] = math.Log(tau0)
	fr, status, err := runFast(ctx, model, c, x0, nil)
	if status == NotFitted {
		return err
	}
	r.res.setPosterior(b, f.cols, append([]float64(nil), model.w.mu...), model.w.sigma(), append([]float64(nil), model.alpha...))
	r.res.trace, r.res.iters, r.res.status = fr.trace, fr.iters, status
	r.tau.ct, r.tau.dt = model.ct, model.ct/model.beta
	r.fullBound = fr.f + model.excluded()
	return err
}

// fitFast fits c with the fast solver.
func (c *Classifier) fitFast(ctx context.Context, b basis, x mat.Matrix, t []float64, p Prior, ctl control, xi0 float64) error {
	f, err := newDesignFactor(ctx, b, x)
	if err != nil {
		return err
	}
	model := newFastCls(f, t, p)
	m, n := len(f.cols), len(t)
	x0 := make([]float64, m+n)
	for i := range m {
		x0[i] = math.Log(ctl.alpha0)
	}
	for i := range n {
		x0[m+i] = math.Log(xi0)
	}
	fr, status, err := runFast(ctx, model, ctl, x0, nil)
	if status == NotFitted {
		return err
	}
	c.res.setPosterior(b, f.cols, append([]float64(nil), model.w.mu...), model.w.sigma(), append([]float64(nil), model.alpha...))
	c.res.trace, c.res.iters, c.res.status = fr.trace, fr.iters, status
	c.xi = append([]float64(nil), model.xi...)
	c.fullBound = fr.f + model.excluded()
	return err
}

// FullModelBound returns the variational lower bound of the paper's full
// model, with all N+1 basis functions, at the fitted posterior: LowerBound
// plus, for each function pruned by the fit, the bound terms of the factor
// Q(wₘ) = N(0, vₘ), independent of the other weights, and of Q_αₘ, both
// at their optimum (closed form, with sₘ = φₘᵀ(likelihood precision)φₘ):
//
//	maxₐ [ã ln α − bα − ½ ln(α + sₘ)] + ln Γ(ã) − ln Γ(a) − ã ln ã + ã + a ln b.
//
// This is L(Q) for a valid Q, so a true lower bound on the log evidence of
// the full model; it equals LowerBound when nothing was pruned. The
// factorised Q makes it loose, by about −13 nats per pruned function for
// the default prior. It is NaN for a fit by another solver than Fast.
func (r *Regressor) FullModelBound() float64 {
	r.res.mustFit()
	return r.fullBound
}

// FullModelBound is Regressor.FullModelBound for the classifier; the
// likelihood precision of the pruned functions' factors is 2λ(ξₙ).
func (c *Classifier) FullModelBound() float64 {
	c.res.mustFit()
	return c.fullBound
}
