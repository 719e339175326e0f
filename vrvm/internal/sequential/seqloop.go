package sequential

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// bound returns L of the active model, (39)–(46) or (59)–(64), for the
// current factors (Q_w must be current: call rebuild first).
func (s *seqFit) bound() float64 {
	at := s.prior.A + 0.5 // (25)
	bt := make([]float64, len(s.alpha))
	for i, a := range s.alpha {
		bt[i] = at / a
	}
	return lb.L(s.prior, at, bt, s.q.SecondMoments(), s.q.LogDet, s.lik.Terms())
}

// objective is the bound reported in the trace: the full model's, with
// the excluded functions at the factors held since the last addition
// round, (S4).
func (s *seqFit) objective() float64 {
	beta, uni := s.lik.Weights()
	if beta == nil {
		return s.bound() + s.exConst - 0.5*uni*s.exSum
	}
	return s.bound() + s.exConst - 0.5*vec.Dot(beta, s.exE)
}

// excluded returns the closed-form bound contribution of the functions
// outside the active set (excludedTerm).
func (s *seqFit) excluded() float64 {
	_, dv, _ := s.weighted(0)
	return lb.ExcludedBound(s.prior, dv, s.act) + s.twinsExcluded(dv)
}

// run iterates through engine.Run (seqLoop) until convergence: no
// function to add or remove, ⟨αₘ⟩ and ⟨τ⟩ (or ξ) changed by at most
// ParamTol relative and L by at most Tol·max(1, |L|) over the last
// iteration. On an error the other results are not a fit.
func (s *seqFit) run(ctx context.Context) (trace []float64, iters int, status engine.Status, err error) {
	target := s.ctl.PruneAt
	if err := s.start(); err != nil {
		return nil, 0, 0, err
	}
	if err := s.rebuild(0); err != nil {
		return nil, 0, 0, err
	}
	lp := &seqLoop{s: s, target: target, lastAdded: true, every: s.sched.addEvery, quietBound: math.NaN(), relaxAfter: seqRelaxFirst}
	res, err := engine.Run(ctx, lp, engine.Controls{MaxIter: s.ctl.MaxIter, Initial: true, Monitor: s.ctl.Monitor})
	if err != nil {
		return nil, 0, 0, err
	}
	return res.Trace, res.Iters, res.Status, nil
}

// seqLoop is the sequential solver as an engine.Problem, with the state
// it carries from one iteration to the next. An iteration is a sweep over
// the active functions (with the SQUAREM extrapolation), the likelihood's
// update, an addition round when one is due, the joint steps (S7) or
// (S12) where coordinate ascent crawls, and the checks of annealing and
// convergence.
type seqLoop struct {
	s      *seqFit
	target float64 // the final pruning threshold, ctl.PruneAt
	k      int     // the iteration

	// The iteration's sweep and likelihood update: the largest change of
	// ln⟨αₘ⟩, a removal, the likelihood's relative change; settled and
	// quiet (see Likelihood), and the addition round's outcome.
	maxDl               float64
	removed             bool
	lch                 float64
	settled, quiet      bool
	noneToAdd, addedNow bool

	sinceAdd  int  // iterations since the last addition round
	lastAdded bool // the last addition round added a function
	phaseIter int  // iterations at the current pruning threshold (seqPhaseIter)
	every     int  // iterations between addition rounds; see seqAddEvery

	// quietKey and quietBound are the active set and bound of the last
	// quiet iteration: a return to them ends the additions (cycled).
	quietKey   string
	quietBound float64

	crawl int // settled iterations, not quiet, without additions (S7)
	still int // the last iteration that changed the active set or annealed (S9)

	hist           [][]float64 // the points of the sweeps since the last extrapolation (SQUAREM)
	prevPt, lastPt []float64   // the points of the last two sweeps (S12)
	relaxAfter     int         // settled iterations before the next (S12) step
}

// Statistics does nothing: the sweep keeps Q_w current by rank one.
func (lp *seqLoop) Statistics(int) error { return nil }

// Decide sweeps the active set, at the current (annealed) threshold.
func (lp *seqLoop) Decide(k int) (engine.Move, bool, error) {
	lp.k = k
	lp.s.annealing = lp.s.pruneAt > lp.target*1.000001
	return engine.Move{Kind: engine.Sweep}, false, nil
}

// Act is the sweep (sweepStep): each ⟨αₘ⟩ to its optimum (S1), with
// removals.
func (lp *seqLoop) Act(k int, _ engine.Move) (err error) {
	lp.maxDl, lp.removed, err = lp.s.sweepStep(lp, k)
	return err
}

// Likelihood updates Q_τ (26)–(27) or ξ (58) (likelihoodStep). The
// iteration is settled if nothing was removed and ln⟨αₘ⟩ and the factor
// changed by at most seqSettled, quiet if by at most ParamTol.
func (lp *seqLoop) Likelihood(k int) (err error) {
	lp.lch, err = lp.s.likelihoodStep(k, lp.maxDl, lp.removed)
	lp.settled = !lp.removed && lp.maxDl <= seqSettled && lp.lch <= seqSettled
	lp.quiet = !lp.removed && lp.maxDl <= lp.s.ctl.ParamTol && lp.lch <= lp.s.ctl.ParamTol
	return err
}

// Candidates runs the addition round when one is due (additionStep) and
// the joint steps (S7), (S12) where coordinate ascent crawls (crawlStep).
func (lp *seqLoop) Candidates(k int) (err error) {
	lp.noneToAdd, lp.addedNow, err = lp.s.additionStep(lp, k, lp.settled, lp.quiet, lp.removed)
	if err != nil {
		return err
	}
	return lp.s.crawlStep(lp, k, lp.settled && !lp.quiet && !lp.addedNow)
}

// Objective is the full model's bound (S4); after an iteration, one that
// is not finite is a failure of Q_w's factorisation.
func (lp *seqLoop) Objective() (float64, error) {
	l := lp.s.objective()
	if lp.k > 0 && (math.IsNaN(l) || math.IsInf(l, 0)) {
		return l, &posterior.NotPDError{Iteration: lp.k}
	}
	return l, nil
}

// Change is the bound's relative change.
func (lp *seqLoop) Change(c float64) float64 { return c }

// Active is the number of active functions.
func (lp *seqLoop) Active() int { return len(lp.s.act) }

// Limit stops a crowded fit (W5).
func (lp *seqLoop) Limit() bool { return crowded(lp.s.ctl.GammaLimit, len(lp.s.act), lp.s.effective) }

// Settle lowers the annealed threshold when its phase has run
// seqPhaseIter iterations or converged; ends a large set's crawl (S15);
// and reports convergence when ⟨α⟩ and Q_τ have stopped moving (ParamTol)
// or the bound has stalled at its rounding errors (S9) or falls (the last
// step lowered it; stalled: nowhere above where the window began), with
// nothing to add. A large regression set's fall is (S15)'s to end, after
// its full addition round.
func (lp *seqLoop) Settle(k int, trace []float64) (engine.Verdict, error) {
	s := lp.s
	l := trace[len(trace)-1]
	change := engine.RelChange(trace[len(trace)-2], l)
	lp.phaseIter++
	annealing := s.pruneAt > lp.target*1.000001
	if annealing && (lp.phaseIter >= seqPhaseIter || lp.quiet && lp.noneToAdd && change <= s.ctl.Tol) {
		s.pruneAt = math.Max(lp.target, s.pruneAt/seqAnnealStep)
		s.holdBias = false
		lp.phaseIter = 0
		return engine.Continue, nil
	}
	if lp.removed || lp.addedNow || annealing {
		lp.still = k
	}
	if !s.ctl.NoCrawlStop && !lp.removed && !lp.addedNow && s.crawled(trace, k-lp.still) {
		return s.crawlStop(lp, k)
	}
	st := engine.Stalled(trace, k-lp.still, seqStallWindow, s.ctl.Tol)
	falls := st && l < trace[len(trace)-2] && !s.largeSet()
	if (lp.quiet || st) && lp.noneToAdd && (change <= s.ctl.Tol || falls) {
		return engine.Converged, nil
	}
	return engine.Continue, nil
}

// Keep does nothing: the bound rises with every step.
func (lp *seqLoop) Keep(int) {}

// Restore is not called (Controls.Stall is 0).
func (lp *seqLoop) Restore() (float64, error) { return lp.s.objective(), nil }

// start sets up the first active set: every function with a non-zero
// column without pruning; otherwise a previous fit's active set, or the
// function of the largest gain (S2) (after the bias, for the bias start
// (S8)), at the first phase's annealed threshold (seqAnnealStart).
func (s *seqFit) start() error {
	switch {
	case s.ctl.NoPrune:
		// Every function with a non-zero column, from the start.
		_, dv, _ := s.weighted(0)
		for j, d := range dv {
			if d > 0 {
				s.act = append(s.act, j)
				s.alpha = append(s.alpha, s.ctl.Alpha0)
			}
		}
		if len(s.act) == 0 {
			return ErrZeroBasis
		}
		s.setActive(s.act, s.alpha)
	case s.warm != nil:
		// From a previous fit's active set: no annealing.
	default:
		s.pruneAt *= s.sched.annealStart
	}
	if s.ctl.NoPrune {
		return nil
	}
	_, dv, _ := s.weighted(0)
	if s.warm != nil {
		s.setActive(append([]int(nil), s.warm.Cols...), append([]float64(nil), s.warm.Alpha...))
	} else {
		if s.biasStart && dv[0] > 0 {
			// The bias start (S8): the bias, held at a nearly flat
			// prior through the first phase, and the function of the
			// largest gain given it.
			s.add(0, seqBiasHold*dv[0])
			s.holdBias = true
			if err := s.rebuild(0); err != nil {
				return err
			}
		}
		j, a, _, ok, err := s.bestAddition(dv, true, true, 0)
		if err != nil {
			return err
		}
		if !ok && len(s.act) == 0 {
			return ErrZeroBasis
		}
		if ok {
			s.add(j, a)
		}
	}
	s.holdExcluded(dv)
	return nil
}

// sweepStep is the sweep of iteration k over the active functions
// (sweep), with the SQUAREM extrapolation of ln⟨α⟩ over the last two
// sweeps every third iteration with an unchanged active set, kept if the
// bound does not decrease: coordinate ascent converges slowly along
// directions that couple functions (a weight passing from one function to
// a similar one).
func (s *seqFit) sweepStep(lp *seqLoop, k int) (maxDl float64, removed bool, err error) {
	maxDl, removed, err = s.sweep(k)
	if err != nil {
		return maxDl, removed, err
	}
	if removed && !s.largeSet() {
		lp.every = min(2*lp.every, seqAddEvery)
	}
	pt := s.extrapolationPoint()
	lp.prevPt, lp.lastPt = lp.lastPt, pt
	if removed || len(lp.hist) > 0 && len(lp.hist[0]) != len(pt) {
		lp.hist = lp.hist[:0]
	}
	lp.hist = append(lp.hist, pt)
	if len(lp.hist) == 3 {
		if err := s.extrapolate(k, lp.hist); err != nil {
			return maxDl, removed, err
		}
		lp.hist = lp.hist[:0]
	}
	return maxDl, removed, nil
}

// likelihoodStep updates the likelihood's factor, Q_τ (26)–(27) or ξ
// (58), and Q_w for it, unless deferred (seqTauEvery), and returns the
// factor's relative change, +Inf when deferred: such an iteration is
// neither settled nor quiet.
func (s *seqFit) likelihoodStep(k int, maxDl float64, removed bool) (lch float64, err error) {
	lch = math.Inf(1)
	if s.deferLikelihood(k, maxDl, removed) {
		// Σ and μ are those of the sweep's rank-one updates; ln|Σ| and
		// diag Σ follow them.
		s.q.LogDet += s.ldSweep
		s.ldSweep = 0
		s.syncDiag()
		return lch, s.refresh(k)
	}
	if err := s.refresh(k); err != nil {
		return lch, err
	}
	lch = s.lik.Update()
	if err := s.rebuild(k); err != nil {
		return lch, err
	}
	if s.hook != nil {
		s.hook("likelihood")
	}
	return lch, nil
}

// additionStep runs an addition round (addRound) when the active set has
// settled after an addition, when it has converged (quiet), and at least
// every lp.every iterations. noneToAdd reports a round that found
// nothing, or a return to the fixed point reached before the last
// additions, which were all removed again (functions that duplicate
// active ones): further additions would repeat the cycle.
func (s *seqFit) additionStep(lp *seqLoop, k int, settled, quiet, removed bool) (noneToAdd, addedNow bool, err error) {
	cycled := false
	if quiet {
		key := ActiveKey(s.act)
		l := s.bound()
		cycled = key == lp.quietKey && math.Abs(l-lp.quietBound) <= s.ctl.Tol*math.Max(1, math.Abs(l))
		lp.quietKey, lp.quietBound = key, l
	}
	lp.sinceAdd++
	if cycled {
		return true, false, nil
	}
	if !(settled && lp.lastAdded) && !quiet && lp.sinceAdd < lp.every {
		return false, false, nil
	}
	lp.sinceAdd = 0
	added, err := s.addRound(k, quiet)
	if err != nil {
		return false, false, err
	}
	lp.lastAdded, noneToAdd, addedNow = added > 0, added == 0, added > 0
	if added > 0 && s.sched.halveEvery && !removed && len(s.act) >= seqShortlistActive {
		lp.every = max(1, lp.every/2)
	}
	if added > 0 {
		lp.hist = lp.hist[:0]
	}
	return noneToAdd, addedNow, nil
}

// crawlStep takes the joint steps where coordinate ascent crawls (an
// iteration that is settled but not quiet and added nothing counts), of
// the schedule's kind (seqSchedule.joint): Levenberg–Marquardt steps in
// ln⟨α⟩ (S7, uniformSchedule), or overrelaxed steps in (ln⟨α⟩, ln ξ)
// (S12, weightedSchedule), waiting twice as long after each step refused.
func (s *seqFit) crawlStep(lp *seqLoop, k int, crawling bool) error {
	if crawling {
		lp.crawl++
	} else {
		lp.crawl = 0
	}
	if lp.crawl >= seqNewtonAfter && s.sched.joint == jointNewton {
		lp.crawl = 0
		kept, err := s.newtonTail(k)
		if err != nil {
			return err
		}
		if kept {
			lp.hist = lp.hist[:0]
		}
	} else if lp.crawl >= lp.relaxAfter && s.sched.joint == jointRelax {
		lp.crawl = 0
		kept, err := s.overrelax(k, stepBetween(lp.prevPt, lp.lastPt))
		if err != nil {
			return err
		}
		lp.relaxAfter = min(2*lp.relaxAfter, seqRelaxWait)
		if kept {
			lp.hist = lp.hist[:0]
			lp.relaxAfter = seqRelaxFirst
		}
	}
	return nil
}

// crawlStop ends a large set's crawl that (S7) cannot take (S15): the
// fit has converged if a full addition round finds nothing to add.
func (s *seqFit) crawlStop(lp *seqLoop, k int) (engine.Verdict, error) {
	added, err := s.addRound(k, true)
	if err != nil {
		return engine.Continue, err
	}
	if added == 0 {
		return engine.Final, nil
	}
	lp.still, lp.quietKey, lp.lastAdded, lp.sinceAdd = k, "", true, 0
	lp.hist = lp.hist[:0]
	return engine.Continue, nil
}

// Polish is the polish (S5) of a converged fit with pruning, which
// engine.Run calls once: functions worth more than seqPolishGain to the
// full bound, up to seqPolishGrowth times the active set. If its addition
// round adds anything, the iterations go on.
func (lp *seqLoop) Polish(k int) (more bool, err error) {
	s := lp.s
	if s.ctl.NoPrune {
		return false, nil
	}
	s.keepGain = seqPolishGain
	s.maxActive = seqPolishGrowth * len(s.act)
	clear(s.deleted)
	added, err := s.addRound(k, true)
	if err != nil || added == 0 {
		return false, err
	}
	lp.quietKey, lp.lastAdded, lp.sinceAdd = "", true, 0
	lp.hist = lp.hist[:0]
	return true, nil
}

// seqStallWindow is the number of iterations over which engine.Stalled
// judges the bound (S9): the bound is at its rounding errors when, over
// them, it rose by at most Tol relative and decreased at least once
// (docs/design.md, "Pruning and convergence").
const seqStallWindow = 100

// The crawl of a large set (S15). In a large set (largeSet: regression,
// at least seqShortlistMin candidates and seqShortlistActive active
// functions) whose joint steps (S7) are not affordable (more than
// seqNewtonActive active functions, or N·r above seqNewtonWork), nothing
// but ParamTol ends coordinate ascent's crawl along functions that share
// a weight, and such fits reached it after thousands of iterations that
// left the bound unchanged to the hundredth of a nat, or the iteration
// limit first. Where the active set has not changed for seqCrawlWindow
// iterations and the bound rose by at most seqCrawlGain·N nats over them,
// an addition round computing every candidate's gain follows; if it adds
// nothing the fit has converged. On large 8-input regressions it cut the
// iterations by half or more at the same bound to 10⁻⁴, or turned an
// iteration limit into a converged fit at a small cost in the bound;
// Friedman #1, sinc, the paper's tables and classification are unchanged
// (the record in docs/benchmarks.md, "Measurements behind choices in the
// code", (S15)).
const seqCrawlGain = 1e-6

// seqCrawlWindow is the number of iterations over which (S15) judges the
// bound.
const seqCrawlWindow = 300

// crawled reports whether the fit is in the crawl of (S15): a large set,
// pruned, that (S7) cannot take, the active set unchanged for span
// iterations, at least seqCrawlWindow, over the last seqCrawlWindow of
// which the bound rose by at most seqCrawlGain·N.
func (s *seqFit) crawled(trace []float64, span int) bool {
	if span < seqCrawlWindow || len(trace) <= seqCrawlWindow || !s.largeSet() || s.ctl.NoPrune || s.annealing || s.newtonTakes() {
		return false
	}
	w := trace[len(trace)-seqCrawlWindow-1:]
	return w[len(w)-1]-w[0] <= seqCrawlGain*float64(s.n)
}

func logs(a []float64) []float64 {
	l := make([]float64, len(a))
	for i, v := range a {
		l[i] = math.Log(v)
	}
	return l
}

// extrapolate applies SQUAREM (Varadhan & Roland 2008) to the sequence
// x0, x1, x2 of ln⟨α⟩ over two sweeps: with r = x1 − x0,
// v = x2 − 2x1 + x0 and γ = −‖r‖/‖v‖, x = x0 − 2γr + γ²v. The new point
// is kept, with Q_w at its optimum, only if it raises the bound.
func (s *seqFit) extrapolate(iter int, h [][]float64) error {
	if len(h[0]) > len(s.alpha) { // ln ξ too (extrapolationPoint)
		return s.extrapolateCls(iter, h)
	}
	x := squarem(h)
	if x == nil {
		return nil
	}
	// before is L with ln|Σ|, diag Σ and the likelihood's moments of the
	// last rebuild, not those after the sweep. Judging the step against the
	// bound after the sweep instead (ln|Σ| and diag Σ of its rank-one
	// updates, the moments passed by refresh, O(M²)) ends lower on more of
	// the paper's problems (docs/benchmarks.md, "Measurements behind
	// choices in the code").
	before := s.bound()
	old := append([]float64(nil), s.alpha...)
	hi := math.Log(s.prior.A+0.5) - math.Log(s.prior.B)
	if !s.ctl.NoPrune {
		hi = math.Min(hi, math.Log(s.pruneAt)) // (S5)
	}
	for i, v := range x {
		s.alpha[i] = math.Exp(lh.ClampLog(v, hi))
	}
	var kept *keptQ
	if s.uniform() {
		kept = s.keepQ()
	}
	if err := s.rebuild(iter); err == nil && s.bound() >= before {
		if s.hook != nil {
			s.hook("extrapolate")
		}
		return nil
	}
	copy(s.alpha, old)
	if kept != nil {
		s.restoreQ(kept)
		return nil
	}
	return s.rebuild(iter)
}

// keptQ is Q_w and the moments passed to the likelihood before a step that
// may be undone (see keepQ).
type keptQ struct {
	sig            *mat.SymDense
	mu, diag       []float64
	logDet, ldSwp  float64
	jitter         float64
	sqResid, sumVr float64
	sigUpdates     int
}

// keepQ returns the current Q_w, with uniform precisions, for restoreQ
// after a rebuild: Σ itself is not copied, since rebuild writes its Σ on
// the other of the two buffers of sigmaTo, which restoreQ swaps back. A
// rejected extrapolation (see extrapolate) then costs one factorisation,
// not two.
func (s *seqFit) keepQ() *keptQ {
	return &keptQ{sig: s.sig, mu: append([]float64(nil), s.q.Mu...), diag: append([]float64(nil), s.q.Diag...),
		logDet: s.q.LogDet, ldSwp: s.ldSweep, jitter: s.q.Jitter, sqResid: s.lat.SqResid, sumVr: s.lat.SumVar, sigUpdates: s.sigUpdates}
}

// restoreQ sets Q_w back to k (keepQ), O(M), instead of the O(M³) of
// rebuild, and passes its moments to the likelihood again.
func (s *seqFit) restoreQ(k *keptQ) {
	s.sig = k.sig
	if d, b := k.sig.RawSymmetric().Data, s.sigBuf[1]; len(d) > 0 && len(b) > 0 && &d[0] == &b[0] {
		// Σ is back on the storage the rebuild's sigmaTo set aside: the
		// next sigmaTo must write on the other.
		s.sigBuf[0], s.sigBuf[1] = s.sigBuf[1], s.sigBuf[0]
	}
	s.q.Mu = append(s.q.Mu[:0], k.mu...)
	s.q.Diag = append(s.q.Diag[:0], k.diag...)
	s.q.LogDet, s.ldSweep, s.q.Jitter = k.logDet, k.ldSwp, k.jitter
	s.sigUpdates = k.sigUpdates
	s.lat.Mean = nil
	s.lat.SqResid, s.lat.SumVar = k.sqResid, k.sumVr
	s.lik.Observe(&s.lat)
}

// squarem returns the SQUAREM point x0 − 2γr + γ²v from the sequence
// h = x0, x1, x2 (r = x1 − x0, v = x2 − 2x1 + x0, γ = −‖r‖/‖v‖), or nil
// when the step is undefined or γ > −1, no faster than the plain sweeps.
func squarem(h [][]float64) []float64 {
	x0, x1, x2 := h[0], h[1], h[2]
	var rr, vv float64
	for i := range x0 {
		r, v := x1[i]-x0[i], x2[i]-2*x1[i]+x0[i]
		rr += r * r
		vv += v * v
	}
	if !(vv > 0) || !(rr > 0) || math.IsInf(rr, 0) || math.IsInf(vv, 0) {
		return nil
	}
	g := -math.Sqrt(rr / vv)
	if g > -1 {
		return nil
	}
	x := make([]float64, len(x0))
	for i := range x0 {
		r, v := x1[i]-x0[i], x2[i]-2*x1[i]+x0[i]
		x[i] = x0[i] - 2*g*r + g*g*v
	}
	return x
}

// crowded reports whether a fit with active functions of which
// effective() are effective parameters exceeds the limit lim of (W5),
// (R6) (0: none): the caller fits again at twice the width.
func crowded(lim float64, active int, effective func() float64) bool {
	return lim > 0 && float64(active) > lim && effective() > lim
}
