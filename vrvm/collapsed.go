package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// The collapsed bound: with Q_w at its optimum for ⟨α⟩ and the
// likelihood's parameters, L as a function F of their logarithms, and its
// maximisation by the paper's schedule extrapolated with SQUAREM and then
// Levenberg–Marquardt steps, used by the Newton solver (newton.go) and by
// the sequential solver without pruning.

// maximiseCollapsed maximises the collapsed bound over every function of
// f from ⟨αₘ⟩ = Alpha0 and the likelihood's initial parameters.
func maximiseCollapsed(ctx context.Context, f *design.Factor, p *problem) (*solution, error) {
	model := newCollapsed(f, p.lik, p.set.prior)
	m := len(f.Cols)
	x0 := make([]float64, m)
	for i := range m {
		x0[i] = math.Log(p.set.alpha0)
	}
	x0 = p.lik.LogParams(x0)
	fr, status, err := runNewton(ctx, model, p.set, x0, nil)
	if status == NotFitted {
		return nil, err
	}
	return &solution{cols: f.Cols, mu: append([]float64(nil), model.w.mu...), sigma: model.w.sigma(), alpha: append([]float64(nil), model.alpha...),
		trace: fr.trace, iters: fr.iters, status: status, full: fr.f + model.excluded()}, err
}

// collapsed is the state of the maximisation: with Q_w at its optimum for
// ⟨α⟩ and the likelihood's parameters, and Q_αₘ in the family
// Γ(ã, ã/⟨αₘ⟩) that (25)/(57) produce, L is a smooth function F of the
// vector x of logarithms: ln⟨αₘ⟩ for the active functions, then the
// likelihood's (ln⟨τ⟩, or ln ξₙ).
type collapsed struct {
	f     *design.Factor
	lik   likelihood
	prior Prior
	ud    []float64 // Uᵀd for the likelihood's fixed data vector d
	w     woodQ
	alpha []float64
	lat   latent
	uy    *mat.Dense // U (BᵀΣB), for the per-row variances
	oinv  *mat.SymDense
	oinvF *mat.Dense
}

func newCollapsed(f *design.Factor, lik likelihood, p Prior) *collapsed {
	d, _ := lik.Data()
	s := &collapsed{f: f, lik: lik, prior: p, ud: f.Project(d)}
	n, _ := f.U.Dims()
	s.lat.Mean = make([]float64, n)
	if lik.RowVariances() {
		s.lat.Vars = make([]float64, n)
	}
	return s
}

func (s *collapsed) active() int { return len(s.f.Cols) }

// omega sets Ω⁻¹, a factor F with FᵀF = Ω⁻¹, and returns ln|Ω| and Ω⁻¹η,
// for Ω = UᵀBU and η = Uᵀy in the column space of U.
func (s *collapsed) omega() (logDet float64, etaP []float64, ok bool) {
	n, r := s.f.U.Dims()
	beta, uni := s.lik.Weights()
	_, scale := s.lik.Data()
	etaP = make([]float64, r)
	if beta == nil {
		if s.oinv == nil || s.oinv.SymmetricDim() != r {
			s.oinv = mat.NewSymDense(r, nil)
			s.oinvF = mat.NewDense(r, r, nil)
		}
		for i := range r {
			s.oinv.SetSym(i, i, 1/uni)
			s.oinvF.Set(i, i, 1/math.Sqrt(uni))
			etaP[i] = scale / uni * s.ud[i]
		}
		return float64(r) * math.Log(uni), etaP, true
	}
	sl := mat.NewDense(n, r, nil)
	for i := range n {
		f := math.Sqrt(beta[i])
		src, dst := s.f.U.RawRowView(i), sl.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	o := mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, sl.RawMatrix(), 0, o.RawSymmetric())
	var oc mat.Cholesky
	if !oc.Factorize(o) {
		return 0, nil, false
	}
	// Ω = UₒᵀUₒ, so Ω⁻¹ = FᵀF with F = Uₒ⁻ᵀ.
	var uo mat.TriDense
	oc.UTo(&uo)
	s.oinvF = mat.NewDense(r, r, nil)
	for i := range r {
		s.oinvF.Set(i, i, 1)
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, uo.RawTriangular(), s.oinvF.RawMatrix())
	s.oinv = mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, s.oinvF.RawMatrix(), 0, s.oinv.RawSymmetric())
	eta := make([]float64, r)
	for i, v := range s.ud {
		eta[i] = scale * v
	}
	mat.NewVecDense(r, etaP).MulVec(s.oinv, mat.NewVecDense(r, eta))
	return oc.LogDet(), etaP, true
}

// eval sets the state to x with Q_w at its optimum and returns the bound
// F(x) there and the parameters T(x) one iteration of the paper's schedule
// moves to from it.
func (s *collapsed) eval(x []float64) ([]float64, float64, bool) {
	n, r := s.f.U.Dims()
	m := s.active()
	at := s.prior.A + 0.5
	hi := math.Log(at / s.prior.B)
	s.alpha = resize(s.alpha, m)
	for i := range m {
		x[i] = clampLog(x[i], hi)
		s.alpha[i] = math.Exp(x[i])
	}
	s.lik.SetLogParams(x[m:])
	logDetOmega, etaP, ok := s.omega()
	if !ok || !s.w.solve(s.f.B, s.alpha, s.oinv, s.oinvF, logDetOmega, etaP) {
		return nil, math.NaN(), false
	}
	// μᵀφₙ = uₙᵀz, φₙᵀΣφₙ = uₙᵀ(BᵀΣB)uₙ and Σₙ φₙᵀΣφₙ = tr(BᵀΣB).
	blas64.Gemv(blas.NoTrans, 1, s.f.U.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.w.z}, 0, blas64.Vector{N: n, Inc: 1, Data: s.lat.Mean})
	if s.lat.Vars != nil {
		if r0, c0 := dims(s.uy); r0 != n || c0 != r {
			s.uy = mat.NewDense(n, r, nil)
		}
		blas64.Symm(blas.Right, 1, s.w.y.RawSymmetric(), s.f.U.RawMatrix(), 0, s.uy.RawMatrix())
		for i := range n {
			q := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: s.uy.RawRowView(i)}, blas64.Vector{N: r, Inc: 1, Data: s.f.U.RawRowView(i)})
			s.lat.Vars[i] = math.Max(0, q)
		}
		s.lat.SumVar = sum(s.lat.Vars)
	} else {
		var tr float64
		yr := s.w.y.RawSymmetric()
		for i := range r {
			tr += yr.Data[i*yr.Stride+i]
		}
		s.lat.SumVar = math.Max(0, tr)
	}
	s.lik.Observe(&s.lat)
	w2 := s.w.secondMoments()
	g := gammaOf(s.prior, s.alpha)
	f := bound(s.prior, g.at, g.bt, w2, s.w.ld, s.lik.Terms())
	next := make([]float64, m)
	for i := range m {
		next[i] = math.Log(at / (s.prior.B + w2[i]/2)) // (25)
	}
	s.lik.Update() // (26)–(27) or (58)
	next = s.lik.LogParams(next)
	s.lik.SetLogParams(x[m:])
	return next, f, true
}

// keep restricts the active set to the listed positions.
func (s *collapsed) keep(keep []int) {
	_, r := s.f.B.Dims()
	keepFactor(s.f, keep)
	compactFactor(s.f)
	if _, r2 := s.f.B.Dims(); r2 != r {
		d, _ := s.lik.Data()
		s.ud = s.f.Project(d)
	}
	s.alpha = selectVec(s.alpha, keep)
}

// excluded returns the bound contribution of the functions outside the
// active set (excludedTerm), with sⱼ = φⱼᵀBφⱼ in the factorisation of
// every candidate.
func (s *collapsed) excluded() float64 {
	return excludedBound(s.prior, s.f.Diagonal(s.lik), s.f.Cols)
}

// newton returns the gradient and the Hessian of F at the current state,
// or false if the problem is too large for a dense Hessian (more than
// maxParams parameters) or the likelihood gives no derivatives.
func (s *collapsed) newton(maxParams int) ([]float64, *mat.SymDense, bool) {
	k := s.active() + len(s.lik.LogParams(nil))
	if k > maxParams {
		return nil, nil, false
	}
	g := make([]float64, k)
	h := mat.NewSymDense(k, nil)
	sig := s.w.sigma()
	at := &lh.Collapsed{Alpha: s.alpha, Mu: s.w.mu, U: s.f.U, B: s.f.B, V: s.w.v, Y: s.w.y, UY: s.uy}
	if !s.lik.Hessian(at, sig, g, h) {
		return nil, nil, false
	}
	weightHessian(s.prior, &s.w, sig, g, h)
	return g, h, true
}

// Newton steps on the collapsed bound.
//
// With Q_w at its optimum for the current hyperparameters and Q_αₘ in the
// family Γ(ã, ã/⟨αₘ⟩) that (25)/(57) produce, L is a smooth function F of
// x = (ln⟨αₘ⟩, ln⟨τ⟩) (regression) or x = (ln⟨αₘ⟩, ln ξₙ)
// (classification): up to a constant
//
//	F = Σₘ (ã ln αₘ − bαₘ) + c̃ ln τ − dτ + ½ ln|Σ| + ½ hᵀΣh − ½τ‖t‖²   (regression)
//	F = Σₘ (ã ln αₘ − bαₘ) + Σₙ (ln σ(ξₙ) − ξₙ/2 + λ(ξₙ)ξₙ²) + ½ ln|Σ| + ½ hᵀΣh
//
// Its stationary points are exactly the fixed points of the paper's
// schedule: ∂F/∂ln αₘ = ã − αₘ(b + ⟨wₘ²⟩/2) vanishes when (25) holds,
// ∂F/∂ln τ = c̃ − τ(d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2) when (26)–(27) hold, and
// ∂F/∂ln ξₙ = ξₙ λ'(ξₙ)(ξₙ² − φₙᵀ⟨wwᵀ⟩φₙ) when (58) holds. The second
// derivatives follow from dΣ = −Σ dΣ⁻¹ Σ:
//
//	∂²F/∂uₘ∂uⱼ = δₘⱼ(gₘ − ã) + αₘαⱼ(½Σₘⱼ² + μₘμⱼΣₘⱼ)
//	∂²F/∂uₘ∂v  = −½ταₘ(2μₘ(ΣΦᵀr)ₘ − (ΣΦᵀΦΣ)ₘₘ),          r = t − Φμ
//	∂²F/∂v²    = g_v − c̃ + ½τ²(2rᵀΦΣΦᵀr + tr((ΦᵀΦΣ)²))
//	∂²F/∂uₘ∂ζₖ = αₘ ξₖλ'ₖ (2μₘTₖₘmₖ + Tₖₘ²),                  T = ΦΣ, m = Φμ
//	∂²F/∂ζₐ∂ζ꜀ = ξₐξ꜀λ'ₐλ'꜀(4mₐSₐ꜀m꜀ + 2Sₐ꜀²)
//	            + δₐ꜀(ξₐ²(λ''ₐ(ξₐ² − Eₐ) + 2ξₐλ'ₐ) + g_ζₐ),     S = ΦΣΦᵀ
//
// with u = ln α, v = ln τ, ζ = ln ξ.

// newtonMax is the default of Newton.MaxParams: the largest number of
// parameters for which the solver takes Newton steps (a dense Hessian of
// that size); larger problems continue with the extrapolated schedule
// alone.
const newtonMax = 1500

// weightHessian fills the ln α block of the Hessian and the gradient; the
// likelihood fills the rest (Likelihood.Hessian).
func weightHessian(p Prior, w *woodQ, sig *mat.SymDense, g []float64, h *mat.SymDense) {
	m := len(w.mu)
	at := p.A + 0.5
	for i := range m {
		w2 := w.mu[i]*w.mu[i] + w.diag[i]
		g[i] = at - w.alpha[i]*(p.B+w2/2)
	}
	raw := sig.RawSymmetric()
	for i := range m {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		ai, mi := w.alpha[i], w.mu[i]
		for j := i; j < m; j++ {
			sij := row[j]
			v := ai * w.alpha[j] * (0.5*sij*sij + mi*w.mu[j]*sij)
			if i == j {
				v += g[i] - at
			}
			h.SetSym(i, j, v)
		}
	}
}

// newtonSwitchTol is the default of Newton.SwitchTol: the relative gain
// of the bound over one extrapolated cycle of the paper's schedule below
// which the solver switches to Newton steps. L has several local maxima,
// and Newton steps taken too early can end in a different one than the
// schedule reaches; the switch is late enough that seeded problems end at
// the schedule's optimum (docs/benchmarks.md, "Measurements behind choices
// in the code").
const newtonSwitchTol = 1e-6

// roundF is the relative rounding error of the bound F: its terms are
// sums of O(N + M) terms of the size of F.
const roundF = 1e-13

// newtonRun is the state of one fit by the Newton solver.
type newtonRun struct {
	model *collapsed
	c     settings
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

// runNewton fits model from the parameters x0.
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
func runNewton(ctx context.Context, model *collapsed, c settings, x0 []float64, hook func(step string, f float64)) (fr *newtonRun, status Status, err error) {
	fr = &newtonRun{model: model, c: c, hook: hook}
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
	np := c.newtonParams()
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
			if !conv && fr.f-prevF <= np.SwitchTol*math.Max(1, math.Abs(fr.f)) && len(fr.x) <= np.MaxParams {
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
func (fr *newtonRun) eval(x []float64) bool {
	next, f, ok := fr.model.eval(x)
	if !ok {
		return false
	}
	fr.x, fr.f, fr.next = x, f, next
	return true
}

// record appends the bound F of the active model to the trace.
func (fr *newtonRun) record(step string) float64 {
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
func (fr *newtonRun) converged(df float64) bool {
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
func (fr *newtonRun) squaremCycle(stepMax float64) (conv bool, newMax float64) {
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
func (fr *newtonRun) newtonStep() (conv, progressed bool) {
	g, h, ok := fr.model.newton(fr.c.newtonParams().MaxParams)
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
func (fr *newtonRun) prunable() bool {
	for _, v := range fr.x[:fr.model.active()] {
		if math.Exp(v) > fr.c.pruneAt {
			return true
		}
	}
	return false
}

// prune drops the functions whose ⟨αₘ⟩ exceeds the threshold, as the
// paper's schedule does; the state must be re-evaluated afterwards.
func (fr *newtonRun) prune() bool {
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
