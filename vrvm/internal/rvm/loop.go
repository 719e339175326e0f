package rvm

import (
	"context"
	"math"
	"sort"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// bestMove returns the move with the largest gain (R4), the largest
// change |Δ ln αₘ| a re-estimate would make, and whether any function is
// to be added or deleted. Deletion of the last active
// function, and addition or re-estimation to an αₘ above prune, are not
// considered (an αₘ above prune counts as ∞: the function is deleted).
func bestMove(s, q []float64, pos []int, alpha []float64, prune float64) (best engine.Move, change float64, structural bool) {
	nActive := len(alpha)
	for c := range s {
		sc, qc := s[c], q[c]
		if math.IsNaN(sc) {
			continue
		}
		theta := qc*qc - sc
		newAlpha := math.Inf(1)
		if theta > 0 {
			newAlpha = sc * sc / theta // (R3)
		}
		if newAlpha > prune {
			newAlpha = math.Inf(1)
		}
		var mv engine.Move
		switch j := pos[c]; {
		case j < 0 && !math.IsInf(newAlpha, 1):
			r := qc * qc / sc
			mv = engine.Move{Kind: engine.Add, Index: c, Alpha: newAlpha, Gain: 0.5 * (r - 1 - math.Log(r))}
			structural = true
		case j >= 0 && !math.IsInf(newAlpha, 1):
			// The gain in terms of Sₘ = αsₘ/(α + sₘ), Qₘ = αqₘ/(α + sₘ).
			a := alpha[j]
			bigS, bigQ := a*sc/(a+sc), a*qc/(a+sc)
			d := 1/newAlpha - 1/a
			change = math.Max(change, math.Abs(math.Log(newAlpha/a)))
			mv = engine.Move{Kind: engine.Reestimate, Index: c, Alpha: newAlpha, Gain: 0.5 * (d*bigQ*bigQ/(d*bigS+1) - math.Log1p(bigS*d))}
		case j >= 0 && nActive > 1:
			structural = true
			a := alpha[j]
			mv = engine.Move{Kind: engine.Delete, Index: c, Gain: -0.5 * (qc*qc/(sc+a) - math.Log1p(sc/a))}
		default:
			continue
		}
		if mv.Gain > best.Gain || best.Kind == engine.None {
			best = mv
		}
	}
	return best, change, structural
}

// stallIters and stallTol define the end of a classifier's fit by (R8):
// stallIters iterations whose Laplace evidence does not pass the best by
// stallTol·(1 + |best|) (engine.Controls.Stall).
const (
	stallIters = 200 // (R8)
	stallTol   = 1e-9
)

// snapshot is a classifier's state at the start of an iteration: the
// active set, its αₘ and Laplace's mode (R8).
type snapshot struct {
	iter   int
	active []int
	alpha  []float64
	w      []float64
}

func (st *state) snapshot(iter int) *snapshot {
	return &snapshot{iter: iter, active: append([]int(nil), st.active...),
		alpha: append([]float64(nil), st.alpha...), w: append([]float64(nil), st.logit.w...)}
}

// restore returns to the state of s and computes its posterior.
func (st *state) restore(s *snapshot) error {
	st.active = append(st.active[:0], s.active...)
	st.alpha = append(st.alpha[:0], s.alpha...)
	st.logit.w = append(st.logit.w[:0], s.w...)
	return st.posterior(s.iter)
}

// apply makes the move m on the active set.
func (st *state) apply(mv engine.Move, pos []int) {
	switch mv.Kind {
	case engine.Add:
		st.active = append(st.active, mv.Index)
		st.alpha = append(st.alpha, mv.Alpha)
		if st.logit != nil {
			st.logit.w = append(st.logit.w, 0)
		}
	case engine.Reestimate:
		st.alpha[pos[mv.Index]] = mv.Alpha
	case engine.Delete:
		j := pos[mv.Index]
		st.active = append(st.active[:j], st.active[j+1:]...)
		st.alpha = append(st.alpha[:j], st.alpha[j+1:]...)
		if st.logit != nil {
			st.logit.w = append(st.logit.w[:j], st.logit.w[j+1:]...)
		}
	}
}

// updateBeta re-estimates β = (N − Σγₘ)/‖t − Φμ‖², γₘ = 1 − αₘΣₘₘ
// (Tipping 2001, eq. 47), and returns |Δ ln β| (0 if the estimate is not
// positive and finite, when β is kept).
func (st *state) updateBeta() float64 { return st.updateBetaWith(st.alpha) }

// updateBetaWith is updateBeta with the γₘ of the posterior's αₘ, alpha
// (when st.alpha has been re-estimated since).
func (st *state) updateBetaWith(alpha []float64) float64 {
	if st.logit != nil {
		return 0 // no noise parameter
	}
	var gamma float64
	for j, a := range alpha {
		gamma += 1 - a*st.q.Diag[j]
	}
	var d float64
	st.beta, d = reestimateBeta(st.n, gamma, st.rss, st.beta, st.betaMax)
	return d
}

// atBetaCap reports whether β is held at betaMax with the evidence rising
// in β there, ∂L/∂ln β = ½(N − Σγₘ − β rss) > 0 (newtonStep): the polish
// then leaves ln β out of its step.
func (st *state) atBetaCap() bool {
	if st.beta < st.betaMax {
		return false
	}
	var gamma float64
	for j, a := range st.alpha {
		gamma += 1 - a*st.q.Diag[j]
	}
	return float64(st.n)-gamma-st.beta*st.rss > 0
}

// run iterates the sequential algorithm from the state's active set
// through engine.Run (loop) and leaves in q the posterior of the final
// active set, ordered by candidate (bias first, kernel functions in
// training order).
func (st *state) run(ctx context.Context, set Settings) (Result, error) {
	lp := &loop{st: st, set: set, betaChange: math.Inf(1)}
	c := engine.Controls{MaxIter: set.MaxIter, RecordFirst: true, Monitor: set.Monitor}
	if st.logit != nil {
		// (R8) Laplace's evidence at the new mode need not rise with a
		// move: stop where it has not passed its best for stallIters
		// iterations, with the best state.
		c.Stall, c.StallTol = stallIters, stallTol
	}
	res, err := engine.Run(ctx, lp, c)
	status := res.Status
	if err != nil {
		if ctx.Err() == nil {
			return Result{}, err
		}
		status = engine.Canceled
	}
	// The posterior of the final α and β, bias first and the kernel
	// functions in training order, in one piece (the context may be
	// cancelled already).
	order := subset.Seq(len(st.active))
	sort.Slice(order, func(i, j int) bool { return st.active[order[i]] < st.active[order[j]] })
	st.active, st.alpha = subset.Ints(st.active, order), subset.Vec(st.alpha, order)
	if st.logit != nil {
		st.logit.w = subset.Vec(st.logit.w, order)
	}
	st.q.Ctx = nil
	if err := st.posterior(res.Iters); err != nil {
		return Result{}, err
	}
	cols := make([]int, len(st.active))
	for i, c := range st.active {
		cols[i] = st.d.Cols[c]
	}
	return Result{Cols: cols, Alpha: st.alpha, Trace: res.Trace, Iters: res.Iters, Status: status}, nil
}

// loop is the sequential type-II algorithm as an engine.Problem: each
// iteration computes the posterior (Tipping 2001, eq. 45) and the
// evidence, every candidate's factors (R2), (R5), takes the move of the
// largest gain (R4), or the polish of the active set's αₘ and β where
// that move is a re-estimate, and re-estimates β (eq. 47).
type loop struct {
	st  *state
	set Settings

	pos        []int   // the candidates' positions in the active set (factors)
	change     float64 // the largest |Δ ln αₘ| a re-estimate would make
	betaChange float64 // the last |Δ ln β|
	polished   int     // the polish steps of this iteration's move
	best       *snapshot
}

// Statistics computes the posterior of the current α and β (eq. 45) or
// Laplace's approximation at the mode.
func (lp *loop) Statistics(k int) error { return lp.st.posterior(k) }

// Objective is the log evidence at the start of the iteration: at
// convergence, that of the final α and β.
func (lp *loop) Objective() (float64, error) { return lp.st.logEvidence(), nil }

// Decide computes sₘ, qₘ (R2) for every candidate by (R5) and takes the
// move of the largest gain (R4); the fit has converged when no function
// is to be added or deleted and no ln αₘ nor ln β would change by more
// than Tol.
func (lp *loop) Decide(int) (engine.Move, bool, error) {
	s, q, pos := lp.st.factors()
	mv, change, structural := bestMove(s, q, pos, lp.st.alpha, lp.set.PruneAt)
	lp.pos, lp.change = pos, change
	return mv, !structural && change <= lp.set.Tol && lp.betaChange <= lp.set.Tol, nil
}

// Act makes the move. When it is a re-estimate, the active set's α and β
// are converged jointly (polish) rather than one αₘ per iteration; if
// that cannot make a step, the move is made.
func (lp *loop) Act(k int, mv engine.Move) error {
	lp.polished = 0
	if mv.Kind == engine.Reestimate {
		var err error
		lp.polished, lp.betaChange, err = lp.st.polish(k, lp.set.Tol, lp.set.PruneAt)
		if err != nil {
			return err
		}
	}
	if lp.polished == 0 {
		lp.st.apply(mv, lp.pos)
	}
	return nil
}

// Likelihood re-estimates β (Tipping 2001, eq. 47) at the posterior after
// a single move (the polish has re-estimated it with the αₘ).
func (lp *loop) Likelihood(k int) error {
	if lp.polished > 0 {
		return nil
	}
	if err := lp.st.posterior(k); err != nil {
		return err
	}
	lp.betaChange = lp.st.updateBeta()
	return nil
}

// Candidates does nothing: every candidate's move is in Decide's choice.
func (lp *loop) Candidates(int) error { return nil }

// Change is the largest change of ln αₘ or ln β the iteration made.
func (lp *loop) Change(float64) float64 { return math.Max(lp.change, lp.betaChange) }

// Active is the number of active functions.
func (lp *loop) Active() int { return len(lp.st.active) }

// Limit stops a crowded fit ((W5), (R6)): the caller fits again at twice
// the width.
func (lp *loop) Limit() bool {
	lim := lp.set.GammaLimit
	return lim > 0 && float64(len(lp.st.active)) > lim && lp.st.effective() > lim
}

// Settle goes on: the algorithm ends in Decide, or at (R8).
func (lp *loop) Settle(int, []float64) (engine.Verdict, error) { return engine.Continue, nil }

// Polish does nothing: the polish of the active set is a move (Act).
func (lp *loop) Polish(int) (bool, error) { return false, nil }

// Keep saves the classifier's state of iteration k (R8).
func (lp *loop) Keep(k int) { lp.best = lp.st.snapshot(k) }

// Restore returns a classifier to its best state (R8).
func (lp *loop) Restore() (float64, error) {
	if err := lp.st.restore(lp.best); err != nil {
		return 0, err
	}
	return lp.st.logEvidence(), nil
}
