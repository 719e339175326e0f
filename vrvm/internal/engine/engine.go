// Package engine is the loop of the sequential sparse Bayesian solvers:
// the binary and multi-class variational RVMs (Bishop & Tipping 2000)
// and the type-II maximum likelihood RVM (Tipping & Faul 2003). As in
// SparseBayes, one loop runs every likelihood: each iteration updates
// the statistics, decides a move (re-estimate, add or delete one basis
// function among the candidates, or sweep over the active set), makes
// it, updates the likelihood's variational parameters (Q(τ), ξ, β, the
// Laplace mode), records the objective (the variational bound L or the
// log evidence), and tests for the end of the fit.
//
// The arithmetic of a model is a Problem's; the loop control is Run's:
// the iteration count, cancellation, the trace, the monitor, the keeping
// of the best state where the objective need not rise, and the order of
// the polish after convergence. The package imports nothing of the
// library it serves.
package engine

import (
	"context"
	"math"
)

// Move is the decision of one iteration.
type Move struct {
	// Kind is what the move does.
	Kind Kind
	// Index is the candidate the move acts on (Add, Reestimate, Delete).
	Index int
	// Alpha is the candidate's new prior precision αₘ (Add, Reestimate).
	Alpha float64
	// Gain is the increase of the objective the move is expected to make.
	Gain float64
	// Full, for a Sweep, asks for every candidate's statistics and the
	// additions they allow, not only the active functions' updates.
	Full bool
}

// Kind is the kind of a Move.
type Kind int

const (
	// None changes no αₘ: the iteration updates the likelihood only.
	None Kind = iota
	// Add brings candidate Index into the active set at Alpha.
	Add
	// Reestimate sets the active function Index's αₘ to Alpha.
	Reestimate
	// Delete removes the active function Index.
	Delete
	// Sweep updates every active function in turn (with removals and,
	// if Full, additions).
	Sweep
)

// Verdict is a Problem's judgement of the end of an iteration.
type Verdict int

const (
	// Continue goes on to the next iteration.
	Continue Verdict = iota
	// Converged ends the fit, after the polish (Problem.Polish) if it has
	// not run yet.
	Converged
	// Final ends the fit as converged without the polish.
	Final
)

// Problem is one model fitted by Run. Its methods are called in this
// order in iteration k, and only by Run:
//
//	Statistics(k); [Objective, if Controls.RecordFirst]; Decide(k);
//	Act(k, move); Likelihood(k); Candidates(k); [Objective];
//	Limit(); Settle(k, trace); [Polish(k)]
type Problem interface {
	// Statistics brings the posterior and the statistics the decision
	// needs up to date for iteration k.
	Statistics(k int) error
	// Decide chooses the move of iteration k. converged reports that no
	// move is worth making and the parameters have stopped moving.
	Decide(k int) (m Move, converged bool, err error)
	// Act makes the move m.
	Act(k int, m Move) error
	// Likelihood updates the likelihood's variational parameters (Q(τ),
	// ξ, β, the Laplace mode) and the posterior for them.
	Likelihood(k int) error
	// Candidates makes the moves among the candidates outside the active
	// set that the iteration has made due (addition rounds), and the
	// joint steps that follow the sweep.
	Candidates(k int) error
	// Objective returns the objective recorded in the trace: the bound
	// or the log evidence. An error reports an objective that is not
	// finite.
	Objective() (float64, error)
	// Change returns the relative change the monitor reports, given the
	// objective's over the iteration.
	Change(objective float64) float64
	// Active returns the number of active basis functions.
	Active() int
	// Limit reports that the fit is to stop (Stopped) for a reason of the
	// problem's own, such as too many effective parameters.
	Limit() bool
	// Settle judges the iteration from the trace so far (the objective
	// after every iteration; before it too if Controls.Initial).
	Settle(k int, trace []float64) (Verdict, error)
	// Polish runs once, at the first convergence: more reports that it
	// changed the model, and the iterations go on.
	Polish(k int) (more bool, err error)
	// Keep saves the state of iteration k as the best so far
	// (Controls.Stall).
	Keep(k int)
	// Restore returns to the state kept and returns its objective.
	Restore() (float64, error)
}

// Controls are the settings of Run. The zero value runs no iteration.
type Controls struct {
	// MaxIter is the largest number of iterations.
	MaxIter int
	// Initial records the objective before the first iteration as the
	// trace's first value.
	Initial bool
	// RecordFirst records the objective of iteration k after its
	// Statistics, before the move (the objective of the state the
	// iteration starts from), instead of after the iteration.
	RecordFirst bool
	// Stall, if positive (with RecordFirst), keeps the state of the best
	// objective and ends the fit there once Stall iterations have not
	// passed it by StallTol·(1 + |best|): for an objective that need not
	// rise with every move, such as Laplace's approximation of the
	// evidence ((R8) in the library's design notes).
	Stall    int
	StallTol float64
	// Monitor, if not nil, is called after every iteration; returning
	// true ends the fit with status Stopped.
	Monitor func(Progress) bool
}

// Progress is what the monitor sees after an iteration.
type Progress struct {
	Iteration int     // 1-based
	Bound     float64 // the last objective of the trace
	Change    float64 // Problem.Change
	Active    int     // Problem.Active
}

// Status tells how Run ended.
type Status int

const (
	// IterationLimit: MaxIter iterations ran.
	IterationLimit Status = iota
	// Done: the problem converged.
	Done
	// Stopped: the monitor or Problem.Limit ended the fit.
	Stopped
	// Canceled: the context was done.
	Canceled
)

// Result is the outcome of Run.
type Result struct {
	Trace  []float64 // the objectives recorded
	Iters  int       // the iterations completed (the failing one, on an error of a step after Statistics)
	Status Status
}

// Run fits p. It returns on the first error of a step, with the result so
// far (Iters is k − 1 if Statistics of iteration k failed, k otherwise).
// A done ctx ends the fit at the start of an iteration, with Canceled.
func Run(ctx context.Context, p Problem, c Controls) (Result, error) {
	r := Result{Status: IterationLimit}
	if c.Initial {
		l, err := p.Objective()
		if err != nil {
			return r, err
		}
		r.Trace = append(r.Trace, l)
	}
	b := best{iter: -1}
	polished := false
	for k := 1; k <= c.MaxIter; k++ {
		if ctx.Err() != nil {
			r.Status = Canceled
			return r, nil
		}
		if err := p.Statistics(k); err != nil {
			r.Iters = k - 1
			return r, err
		}
		r.Iters = k
		v, err := iterate(p, c, &r, &b, k)
		if err != nil {
			return r, err
		}
		if v == Continue {
			continue
		}
		if v == Converged && !polished {
			polished = true
			more, err := p.Polish(k)
			if err != nil {
				return r, err
			}
			if more {
				continue
			}
		}
		if v == stop {
			r.Status = Stopped
		} else {
			r.Status = Done
		}
		return r, nil
	}
	return r, nil
}

// stop is iterate's verdict of a monitor or a limit that ends the fit.
const stop Verdict = -1

// best is the state Controls.Stall keeps.
type best struct {
	iter int
	obj  float64
}

// iterate runs iteration k after its Statistics.
func iterate(p Problem, c Controls, r *Result, b *best, k int) (Verdict, error) {
	if c.RecordFirst {
		l, err := p.Objective()
		if err != nil {
			return Continue, err
		}
		r.Trace = append(r.Trace, l)
		if c.Stall > 0 {
			if b.iter < 0 || l > b.obj+c.StallTol*(1+math.Abs(b.obj)) {
				p.Keep(k)
				b.iter, b.obj = k, l
			} else if k-b.iter >= c.Stall {
				l, err := p.Restore()
				r.Trace[len(r.Trace)-1] = l
				return Final, err
			}
		}
	}
	m, converged, err := p.Decide(k)
	if err != nil || converged {
		return Converged, err
	}
	if err := p.Act(k, m); err != nil {
		return Continue, err
	}
	if err := p.Likelihood(k); err != nil {
		return Continue, err
	}
	if err := p.Candidates(k); err != nil {
		return Continue, err
	}
	change := 0.0
	if !c.RecordFirst {
		l, err := p.Objective()
		if err != nil {
			return Continue, err
		}
		if len(r.Trace) > 0 {
			change = RelChange(r.Trace[len(r.Trace)-1], l)
		}
		r.Trace = append(r.Trace, l)
	}
	if c.Monitor != nil && c.Monitor(Progress{Iteration: k, Bound: r.Trace[len(r.Trace)-1], Change: p.Change(change), Active: p.Active()}) {
		return stop, nil
	}
	if p.Limit() {
		return stop, nil
	}
	return p.Settle(k, r.Trace)
}

// RelChange is the change from prev to l relative to max(1, |l|).
func RelChange(prev, l float64) float64 { return math.Abs(l-prev) / math.Max(1, math.Abs(l)) }

// Stalled reports whether the objective has stalled at the level of its
// rounding errors ((S9) in the library's design notes): over the last
// window iterations of the trace, all within the span of an unchanged
// active set (span iterations long), it rose by at most tol relative and
// decreased at least once. Coordinate ascent never lowers the bound; that
// it goes up and down by 10⁻¹¹ relative means that the remaining changes
// are along directions the bound cannot tell apart in floating point. A
// slow monotone rise is not a stall; a slow monotone fall is.
func Stalled(trace []float64, span, window int, tol float64) bool {
	if span < window || len(trace) <= window {
		return false
	}
	w := trace[len(trace)-window-1:]
	top, down := w[0], false
	for i := 1; i < len(w); i++ {
		top = math.Max(top, w[i])
		down = down || w[i] < w[i-1]
	}
	return down && top-w[0] <= tol*math.Max(1, math.Abs(w[0]))
}

// Prune returns the positions to keep among the precisions alphas: those
// at most threshold. It never empties the set: if every function exceeds
// the threshold, the one with the smallest precision stays.
func Prune(alphas []float64, threshold float64) (keep []int, pruned bool) {
	best := 0
	for i, a := range alphas {
		if a <= threshold {
			keep = append(keep, i)
		}
		if a < alphas[best] {
			best = i
		}
	}
	if len(keep) == 0 {
		keep = []int{best}
	}
	return keep, len(keep) < len(alphas)
}
