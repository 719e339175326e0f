package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The coordinate ascent of RobustRegressor: the paper's schedule
// (schedule.go) with Student-t noise written as a Gamma scale mixture of
// Gaussians (Tipping & Lawrence 2005; docs/robust.md). Every iteration
// sets, in turn, Q_w (ST5)–(ST6), every Q_αₘ (ST7), Q_τ (ST8), and every
// Q_uₙ (ST9), jointly with ν (ST10) unless ν is fixed, each to its
// optimum given the others, so that the bound (ST11) never falls; near
// convergence the steps (RS2) on every ⟨αₘ⟩ with Q_w at its optimum are
// added, and robustFit runs the iteration from several starts (RS1),
// then, with ν learned, maximises the full-model bound over ν (RS3).

// robustState is the state of the iteration over the active set, on the
// explicit N × M design.
type robustState struct {
	prior Prior
	t     []float64
	full  *mat.Dense // design of every candidate function
	phi   *mat.Dense // N × M design of the active functions
	cols  []int      // active functions, indices into the full basis

	q      gaussQ // Q_w = N(μ, Σ)
	alpha  gammaQ // Q_α = ∏ₘ Γ(αₘ | ã, b̃ₘ)
	ct, dt float64
	// Q_u = ∏ₙ Γ(uₙ | ãᵤ, b̃ₙ): one shape ãᵤ = ν/2 + ½ for every row.
	au     float64
	bu     []float64
	nu     float64
	learnN bool // learn ν (ST10); otherwise it stays at nu

	mean  []float64 // mₙ = μᵀφₙ
	vars  []float64 // vₙ = φₙᵀΣφₙ
	err2  []float64 // eₙ = ⟨(tₙ − wᵀφₙ)²⟩ = (tₙ − mₙ)² + vₙ
	work  *mat.SymDense
	wphi  *mat.Dense
	qwork *mat.Dense
	h     []float64

	// step, if not nil, is called after every factor update with the
	// factor's name (tests: the bound never falls).
	step func(factor string, s *robustState)

	tail bool // (RS2) from here on: the bound's change has fallen to collapseFrom
}

// newRobustState starts the factors at ⟨αₘ⟩ = alpha0, ⟨τ⟩ = tau0,
// ⟨uₙ⟩ = 1 and ν = nu0.
func newRobustState(phi *mat.Dense, t []float64, p Prior, alpha0, tau0, nu0 float64, learn bool) *robustState {
	n, m := phi.Dims()
	s := &robustState{prior: p, t: t, full: phi, phi: phi, cols: seq(m), nu: nu0, learnN: learn}
	s.alpha = gammaOf(p, constant(m, alpha0))
	s.ct = p.C + float64(n)/2 // (ST8)
	s.dt = s.ct / tau0
	s.au = nu0/2 + 0.5 // (ST9)
	s.bu = constant(n, s.au)
	s.mean, s.vars, s.err2 = make([]float64, n), make([]float64, n), make([]float64, n)
	return s
}

func (s *robustState) tau() float64 { return s.ct / s.dt }

// u returns ⟨uₙ⟩ = ãᵤ/b̃ₙ.
func (s *robustState) u(n int) float64 { return s.au / s.bu[n] }

// updateW sets Q_w to its optimum given the other factors (ST5)–(ST6):
// Σ = (⟨τ⟩ΦᵀUΦ + diag⟨α⟩)⁻¹, μ = ⟨τ⟩ΣΦᵀUt with U = diag⟨uₙ⟩, and
// the moments mₙ, vₙ and eₙ at the training inputs.
func (s *robustState) updateW(iter int) error {
	n, m := s.phi.Dims()
	if s.work == nil || s.work.SymmetricDim() != m {
		s.work = mat.NewSymDense(m, nil)
	}
	if r, c := dims(s.wphi); r != n || c != m {
		s.wphi = mat.NewDense(n, m, nil)
	}
	s.h = resize(s.h, m)
	clear(s.h)
	tau := s.tau()
	for i := range n {
		beta := tau * s.u(i) // ⟨τuₙ⟩ = ⟨τ⟩⟨uₙ⟩ under the factorised Q
		f := math.Sqrt(beta)
		src, dst := s.phi.RawRowView(i), s.wphi.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
			s.h[j] += beta * s.t[i] * v // ⟨τ⟩ΦᵀUt (ST6)
		}
	}
	blas64.Syrk(blas.Trans, 1, s.wphi.RawMatrix(), 0, s.work.RawSymmetric()) // ⟨τ⟩ΦᵀUΦ (ST5)
	for i := range m {
		s.work.SetSym(i, i, s.work.At(i, i)+s.alpha.mean(i))
	}
	if err := s.q.factor(s.work, iter); err != nil {
		return err
	}
	if err := s.q.solveMean(s.h); err != nil {
		return err
	}
	blas64.Gemv(blas.NoTrans, 1, s.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}, 0, blas64.Vector{N: n, Inc: 1, Data: s.mean})
	s.qwork = s.q.QuadForms(s.vars, s.phi, s.qwork)
	for i, v := range s.mean {
		r := s.t[i] - v
		s.err2[i] = r*r + math.Max(0, s.vars[i])
	}
	s.hook("w")
	return nil
}

// collapseFrom is the relative change of the bound over an iteration
// below which the iteration adds the steps (RS2) (updateAlphaCollapsed):
// from the start they prune functions the data need before Q_τ and Q_u
// have settled, and the paper's start cannot add them back (sinc with
// outliers, seeds 2, 4, 5: one relevance vector left).
const collapseFrom = 1e-6

// updateAlphaCollapsed moves each ⟨αₘ⟩ in turn to the maximiser of
// the bound with Q_w at its optimum (RS2): given Q_τ and Q_u the expected
// log-likelihood is Gaussian in w with precisions B = ⟨τ⟩U and data
// y = ⟨τ⟩Ut, so the bound depends on ⟨αₘ⟩ = α through (S1) of bound.go,
// f(α) = ã ln α − bα − ½ ln(α + sₘ) + ½ qₘ²/(α + sₘ), with
// sₘ = αSₘ/(α − Sₘ), qₘ = αQₘ/(α − Sₘ) from Sₘ = φₘᵀBφₘ − φₘᵀBΦΣΦᵀBφₘ
// and Qₘ = φₘᵀy − φₘᵀBΦμ (Tipping & Faul 2003), maximised by alphaRoot.
// Σ and μ follow each change by a rank-one update, and Q_w is then
// refactorised (ST5)–(ST6). It must follow updateW, whose Q_w is optimal
// for the current Q_α. The coordinate steps of (ST7) alone carry a
// function that the data do not need towards the pruning threshold by a
// few parts in 10⁵ an iteration (10,000 iterations on sinc with
// outliers); (S1) takes it there in one step.
func (s *robustState) updateAlphaCollapsed(iter int) error {
	n, m := s.phi.Dims()
	if n == 0 || m == 0 {
		return nil
	}
	k := mat.NewSymDense(m, nil)
	blas64.Syrk(blas.Trans, 1, s.wphi.RawMatrix(), 0, k.RawSymmetric()) // ΦᵀBΦ
	sig := symFull(s.q.sigma())
	mu := append([]float64(nil), s.q.Mu...)
	col := make([]float64, m)
	kRow := make([]float64, m)
	changed := false
	for j := range m {
		for i := range m {
			kRow[i] = k.At(j, i)
		}
		kv := blas64.Vector{N: m, Inc: 1, Data: kRow}
		sj := blas64.Vector{N: m, Inc: 1, Data: sig.Data[j*m : (j+1)*m]} // Σeⱼ
		blas64.Gemv(blas.NoTrans, 1, sig, kv, 0, blas64.Vector{N: m, Inc: 1, Data: col})
		bigS := kRow[j] - blas64.Dot(kv, blas64.Vector{N: m, Inc: 1, Data: col})
		bigQ := s.h[j] - blas64.Dot(kv, blas64.Vector{N: m, Inc: 1, Data: mu})
		a := s.alpha.mean(j)
		if !(a-bigS > 0) || !(bigS >= 0) {
			continue // rounding: leave ⟨αⱼ⟩ to (ST7)
		}
		sm, qm := a*bigS/(a-bigS), a*bigQ/(a-bigS)
		an := alphaRoot(s.prior.A, s.prior.B, sm, qm*qm)
		if an == a || !(an > 0) || math.IsInf(an, 0) {
			continue
		}
		// Σ' = Σ − Σeⱼeⱼᵀ Σ Δ/(1 + ΔΣⱼⱼ), μ' = μ − Σeⱼ Δμⱼ/(1 + ΔΣⱼⱼ).
		d := an - a
		c := d / (1 + d*sig.Data[j*m+j])
		copy(col, sj.Data)
		cv := blas64.Vector{N: m, Inc: 1, Data: col}
		blas64.Ger(-c, cv, cv, sig)
		blas64.Axpy(-c*mu[j], cv, blas64.Vector{N: m, Inc: 1, Data: mu})
		s.alpha.bt[j] = s.alpha.at / an
		changed = true
	}
	if !changed {
		return nil
	}
	if err := s.updateW(iter); err != nil {
		return err
	}
	s.hook("alpha-collapsed")
	return nil
}

// updateAlpha applies (ST7), which is the paper's (25): b̃ₘ = b + ⟨wₘ²⟩/2.
func (s *robustState) updateAlpha() {
	s.alpha.update(s.prior, &s.q)
	s.hook("alpha")
}

// updateTau applies (ST8): c̃ = c + N/2, d̃ = d + ½ Σₙ⟨uₙ⟩eₙ.
func (s *robustState) updateTau() {
	var sum float64
	for i, e := range s.err2 {
		sum += s.u(i) * e
	}
	s.ct = s.prior.C + float64(len(s.t))/2
	s.dt = s.prior.D + sum/2
	s.hook("tau")
}

// updateU applies (ST9): ãᵤ = ν/2 + ½, b̃ₙ = ν/2 + ⟨τ⟩eₙ/2.
func (s *robustState) updateU() {
	tau := s.tau()
	s.au = s.nu/2 + 0.5
	for i, e := range s.err2 {
		s.bu[i] = s.nu/2 + tau*e/2
	}
	s.hook("u")
}

// updateScales updates Q_u (ST9), jointly with ν (ST10) if ν is learned.
func (s *robustState) updateScales() {
	if s.learnN {
		s.updateNu()
	} else {
		s.updateU()
	}
}

// updateNu sets ν and Q_u jointly to the maximiser of the bound (ST10):
// ν maximises (ST15) over [minNu, maxNu], the bound with Q_u at its
// optimum for each ν, and Q_u is then that optimum (ST9). A step of ν
// alone, given Q_u, creeps: on near-Gaussian noise it took thousands of
// iterations to carry ν from 4 to 10³.
func (s *robustState) updateNu() {
	s.nu = bestNu(s.nu, s.tau(), s.err2)
	tau := s.tau()
	s.au = s.nu/2 + 0.5
	for i, e := range s.err2 {
		s.bu[i] = s.nu/2 + tau*e/2
	}
	s.hook("nu")
}

// hook reports a factor update to s.step.
func (s *robustState) hook(factor string) {
	if s.step != nil {
		s.step(factor, s)
	}
}

// params lists the monitored parameters: ⟨αₘ⟩ of the active set and
// ⟨τ⟩. ν is not among them: where the noise is near Gaussian the bound
// is flat in ν, which then drifts by small steps toward maxNu long after
// every other factor has settled, changing nothing else (the bound's
// Tol watches it).
func (s *robustState) params(dst []float64) []float64 {
	return append(append(dst[:0], s.alpha.means()...), s.tau())
}

// prune removes the basis functions whose ⟨αₘ⟩ exceeds threshold, as
// the paper's schedule does.
func (s *robustState) prune(threshold float64) bool {
	keep, pruned := pruneSet(s.alpha.means(), threshold)
	if !pruned {
		return false
	}
	s.phi = selectCols(s.phi, keep)
	s.alpha.bt = selectVec(s.alpha.bt, keep)
	s.cols = selectInts(s.cols, keep)
	return true
}

// run iterates in the paper's order (paperLoop).
func (s *robustState) run(ctx context.Context, c settings) (trace []float64, iters int, status Status, err error) {
	return paperLoop(ctx, c, s)
}

// hyper is the update of iteration k after Q_w: once the bound's
// relative change over an iteration has fallen to collapseFrom, the
// collapsed step of (RS2) on ⟨α⟩ first; then Q_α, Q_τ and the scales
// Q_u (and ν).
func (s *robustState) hyper(k int, last float64) error {
	if k == 1 {
		s.tail = false
	}
	s.tail = s.tail || last <= collapseFrom
	if s.tail {
		if err := s.updateAlphaCollapsed(k); err != nil {
			return err
		}
	}
	s.updateAlpha()
	s.updateTau()
	s.updateScales()
	return nil
}

// active returns the number of active functions.
func (s *robustState) active() int { return len(s.cols) }

// solution records the state with the full-model bound: the bound of the
// active model plus the closed-form terms (excludedTerm) of the pruned
// functions, whose sₘ = Σₙ⟨τ⟩⟨uₙ⟩φₙₘ² are those of the likelihood's
// precisions ⟨τuₙ⟩.
func (s *robustState) solution(trace []float64, iters int, status Status) *solution {
	n, m := s.full.Dims()
	sm := make([]float64, m)
	tau := s.tau()
	for i := range n {
		b := tau * s.u(i)
		for j, v := range s.full.RawRowView(i) {
			sm[j] += b * v * v
		}
	}
	l := trace[len(trace)-1]
	return &solution{cols: s.cols, mu: append([]float64(nil), s.q.Mu...), sigma: s.q.sigma(), alpha: s.alpha.means(),
		trace: trace, iters: iters, status: status, full: l + excludedBound(s.prior, sm, s.cols)}
}

// augmentation returns the state of predictions augmented at the test
// point (augment.go, (A1)–(A5)) for the fit sol on inputs x with basis b:
// the likelihood's precisions Bₙ = ⟨τ⟩⟨uₙ⟩ and data yₙ = Bₙtₙ of the
// final Q_τ and Q_u, under which Q_w is Gaussian (ST5)–(ST6).
func (s *robustState) augmentation(x mat.Matrix, b basis, sol *solution) *augmentation {
	n := len(s.t)
	a := &augmentation{x: mat.DenseCopyOf(x), beta: make([]float64, n), data: make([]float64, n), alphaStar: alphaStar(b, sol)}
	tau := s.tau()
	for i := range n {
		a.beta[i] = tau * s.u(i)
		a.data[i] = a.beta[i] * s.t[i]
	}
	return a
}

// robustProblem is what robustFit needs: the basis b and its design phi
// at the inputs x, the targets, the resolved settings and the starting
// values of ⟨τ⟩ and ν.
type robustProblem struct {
	basis   basis
	x       mat.Matrix
	phi     *mat.Dense
	t       []float64
	set     settings
	tau0    float64
	nu0     float64
	learnNu bool
	step    func(factor string, s *robustState)
}

// robustFit runs the iteration from up to three starts and keeps the one
// with the largest full-model bound (RS1), then, with ν learned, the fit
// at the ν that maximises it (profileNu, (RS3)):
//
//   - every function at ⟨αₘ⟩ = Alpha0, ⟨uₙ⟩ = 1 and ν at its start (the
//     paper's start);
//   - with pruning, the active set, ⟨αₘ⟩ and ⟨τ⟩ of the Gaussian-noise
//     VRVM's Sequential fit (Regressor's default solver), with ⟨uₙ⟩ = 1
//     and, if ν is learned, ν = maxNu, the Gaussian noise of that fit;
//   - if ν is learned, the same start with ν held at maxNu.
//
// On clean data the last two keep the better optimum of the Sequential
// solver, which the paper's start misses; the last also the Gaussian
// model itself, when the iteration from the second start settles at a
// moderate ν whose full-model bound is lower (docs/robust.md). Every
// candidate is a lower bound on the evidence of the same model, ν
// included, so the largest is the fit. It returns the state and solution
// kept, or a nil solution and the error of a fit that failed; a fit
// cancelled during a later start keeps the best so far with status
// Canceled.
func robustFit(ctx context.Context, p robustProblem) (*robustState, *solution, error) {
	st, sol, err := robustStarts(ctx, p)
	if err != nil || sol == nil || !p.learnNu || !p.set.prune || (sol.status != Converged && sol.status != IterationLimit) {
		return st, sol, err // without pruning the full-model bound is the active one, which (ST10) maximises
	}
	return profileNu(ctx, p, st, sol)
}

// robustStarts runs the starts of (RS1) and keeps the best, or the state
// reached by a stopped or cancelled fit (robustFit).
func robustStarts(ctx context.Context, p robustProblem) (*robustState, *solution, error) {
	run := func(st *robustState) (*solution, error) {
		st.step = p.step
		trace, iters, status, err := st.run(ctx, p.set)
		if status == NotFitted {
			return nil, err
		}
		return st.solution(trace, iters, status), err
	}
	best := newRobustState(p.phi, p.t, p.set.prior, p.set.alpha0, p.tau0, p.nu0, p.learnNu)
	sol, err := run(best)
	if sol == nil || err != nil || !p.set.prune || sol.status == Stopped {
		return best, sol, err
	}
	canceled := func(err error) (*robustState, *solution, error) {
		sol.status = Canceled
		return best, sol, err
	}
	g := newGaussLik(p.t, p.set.prior, p.tau0)
	gs := p.set
	gs.monitor = nil
	warm, err := seqSolver{}.fit(ctx, &problem{basis: p.basis, x: p.x, lik: g, set: gs})
	if err := stopped(ctx, sol.iters); err != nil {
		return canceled(err)
	}
	if warm == nil || err != nil {
		return best, sol, nil // the paper's start stands
	}
	starts := []struct {
		nu    float64
		learn bool
	}{{p.nu0, false}}
	if p.learnNu {
		starts = []struct {
			nu    float64
			learn bool
		}{{maxNu, true}, {maxNu, false}}
	}
	for _, c := range starts {
		st := newRobustState(p.phi, p.t, p.set.prior, p.set.alpha0, g.Tau(), c.nu, c.learn)
		st.phi, st.cols = selectCols(p.phi, warm.cols), append([]int(nil), warm.cols...)
		st.alpha = gammaOf(p.set.prior, warm.alpha)
		s, err := run(st)
		if s != nil && s.full > sol.full && s.status != Canceled {
			best, sol = st, s
		}
		if s != nil && s.status == Stopped {
			sol.status = Stopped // the Monitor asked to stop
			return best, sol, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return canceled(err)
			}
			return best, sol, nil
		}
	}
	return best, sol, nil
}

// profileNu maximises the full-model bound over ν (RS3), from the fit
// kept by the starts (best, sol). The update (ST10) makes ν stationary
// for the bound of the active model, whereas fits are compared by the
// full-model bound, whose terms for the pruned functions depend on ν
// through sₘ = Σₙ⟨τ⟩⟨uₙ⟩φₙₘ² (excludedTerm), so the stationary ν of the
// active model need not maximise the full-model bound (docs/robust.md has
// a measured case). Each ν is
// scored by the full-model bound of the fit at that ν held fixed, warm
// started from the best fit so far (its active set, Q_α, Q_τ and the
// errors eₙ, with Q_u at its optimum (ST9) for the new ν), on the grid
// ln ν̂ + j·ln(2)/2, j = ±1 … ±4, within [minNu, maxNu], then by
// golden-section search on ln ν between the neighbours of the best point
// to 0.02. Every such fit is a lower bound on the evidence of the same
// model, and the largest is kept (the fit of the starts among them).
func profileNu(ctx context.Context, p robustProblem, best *robustState, sol *solution) (*robustState, *solution, error) {
	set := p.set
	set.monitor = nil
	eval := func(l float64) float64 {
		if ctx.Err() != nil {
			return math.Inf(-1)
		}
		st := newRobustState(p.phi, p.t, p.set.prior, p.set.alpha0, best.tau(), math.Exp(l), false)
		st.phi, st.cols = best.phi, append([]int(nil), best.cols...)
		st.alpha = gammaQ{at: best.alpha.at, bt: append([]float64(nil), best.alpha.bt...)}
		st.ct, st.dt = best.ct, best.dt
		copy(st.err2, best.err2)
		st.updateU() // (ST9) at the new ν
		st.step = p.step
		trace, iters, status, err := st.run(ctx, set)
		if err != nil || (status != Converged && status != IterationLimit) {
			return math.Inf(-1)
		}
		s := st.solution(trace, iters, status)
		if s.full > sol.full {
			best, sol = st, s
		}
		return s.full
	}
	const step = math.Ln2 / 2
	lo, hi := math.Log(minNu), math.Log(maxNu)
	c := math.Log(best.nu)
	for j := -4; j <= 4; j++ {
		if l := c + step*float64(j); j != 0 && l >= lo && l <= hi {
			eval(l)
		}
	}
	c = math.Log(best.nu)
	a, b := max(lo, c-step), min(hi, c+step)
	goldenMax(eval, a, b, 0.02, func() bool { return ctx.Err() != nil })
	if err := stopped(ctx, sol.iters); err != nil {
		sol.status = Canceled // the best fit so far stands
		return best, sol, err
	}
	return best, sol, nil
}
