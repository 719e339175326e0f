package multiclass

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// A second start for small multi-class problems (docs/design.md, "Multi-class
// classification", (M23)), as (S6) of the binary models: the sequential
// solver's greedy additions from the bias can end in a lower local
// maximum of the full-model bound than the paper's schedule, which starts
// every class from every function (on wine the two keep different
// prototypes: docs/benchmarks.md, "Measurements behind choices in the
// code"). The caller decides when it is cheap enough (the facade: up to
// about 245 rows); SecondStart fits the default softmax model again from
// the schedule's state after RestartIter iterations (every class from
// every function, ⟨αₘₖ⟩ = Alpha0; pruned at PruneAt), converged by the
// sequential solver, and keeps the fit with the higher full-model bound.

// RestartIter is the number of the schedule's iterations before the
// sequential solver takes over: more iterations of the schedule cost more
// and did not end at higher bounds on the shared multi-class splits
// (docs/benchmarks.md, "Measurements behind choices in the code").
const RestartIter = 5

// SecondStart fits the problem of sol (the converged Result of Fit on
// the design phi with the classes y and the settings s) again from
// RestartIter iterations of the paper's schedule, converged by the
// sequential solver, and returns that fit if its full-model bound is
// higher than sol's, with sol's trace extended by that bound (reported to
// the Monitor as one more iteration); otherwise sol. It ends early,
// returning sol, once ctx is done.
func SecondStart(ctx context.Context, phi *mat.Dense, y []int, nk int, s Settings, lik Likelihood, sol *Result) *Result {
	ss := s
	ss.Paper, ss.MaxIter, ss.Monitor, ss.Hook = true, RestartIter, nil, nil
	p := newMCProblem(phi, y, nk, ss, lik)
	if r, err := p.solve(ctx); err != nil || r.Interrupted {
		return sol
	}
	// A second start that has not converged in several times the first
	// fit's iterations is abandoned, as (S6).
	p.set.Paper, p.set.MaxIter = false, min(s.MaxIter, 4*sol.Iters+200)
	alt, err := p.solve(ctx)
	if err != nil || alt.Interrupted || alt.Status != engine.Done {
		return sol
	}
	if kept := keepHigher(p, s, sol, alt, sol.Iters+1); kept != nil {
		return kept
	}
	return sol
}

// keepHigher returns alt, the solution of p, if its full-model bound is
// higher than sol's, with sol's trace extended by that bound (reported
// to s's Monitor as one more iteration) and iters as its iterations;
// otherwise nil.
func keepHigher(p *mcProblem, s Settings, sol, alt *Result, iters int) *Result {
	prev, full := sol.Trace[len(sol.Trace)-1], alt.Trace[len(alt.Trace)-1]
	if !(full > prev) {
		return nil
	}
	active := 0
	for _, c := range p.cls {
		active += len(c.act)
	}
	if s.Monitor != nil {
		s.Monitor(engine.Progress{Iteration: sol.Iters + 1, Bound: full, Change: engine.RelChange(prev, full), Active: active})
	}
	alt.Trace = append(append([]float64(nil), sol.Trace...), full)
	alt.Iters = iters
	return alt
}

// A start from the held bias (M24). Where every kernel function is
// nearly the same constant plus a small variation (wide kernels, and in
// many dimensions, where distances concentrate; the linear kernel on
// centred inputs), the sequential solver's additions from the bias judge
// each function by its projection off the active ones, and with the
// bias's ⟨α₀⟩ at Alpha0 or at its own optimum (with balanced classes the
// bias's weights are near zero and its ⟨α₀⟩ large) the constant stays in
// every candidate's sₘ. No function alone then raises the bound and the
// fit ends at the bias alone, a constant model, as the binary models'
// fits did before the bias start (S8). When the sequential fit ends with
// no function but the bias, the problem is fitted again as (S8) does:
// the bias held at ⟨α₀⟩ = biasHold·d₀ in every class, the threshold
// annealed from annealStartCls·PruneAt, the bias released at its
// first lowering, and the fit with the higher full-model bound is kept.
//
// It was made for many inputs of which few carry the classes, where the
// first start can keep the bias alone (training error at chance) and the
// held restart finds the classes' functions; run from the start of every
// fit instead, it moved the learned fits of the shared splits by a few
// nats either way, so it is a fallback for the constant model.
//
// The same restart follows a fit that leaves some class, not every one,
// with the bias alone: that class's probability is flat in x, two such
// classes are tied everywhere, and one of them is never predicted.
// The facade's TestHeldRestart and TestHeldRestartEmptyClass have seeded cases; the
// measurements are in docs/benchmarks.md ("Measurements behind choices in
// the code"). The shared splits and the other generated sets end with a
// function in every class and are unchanged. A fit that keeps one or two
// functions where many would
// raise the bound is not detected.

// biasOnly reports whether the sequential solver's fit, from a start
// that was not (M24)'s, kept nothing but the bias in some block: a class
// with no kernel function, whose probability is flat in x (two such
// classes are tied everywhere, and one of them is never predicted).
func (p *mcProblem) biasOnly() bool {
	if p.set.NoHeldRestart || p.heldStart || !p.set.Bias || p.set.NoPrune || p.set.Paper {
		return false
	}
	for _, c := range p.cls {
		if len(c.act) == 1 && c.act[0] == 0 {
			return true
		}
	}
	return false
}

// heldRestart fits the problem again from the held bias (M24) and returns
// that problem and its solution if its full-model bound is higher than
// sol's, with sol's trace extended by that bound (reported to the Monitor
// as one more iteration, as (M23)); otherwise nil.
func heldRestart(ctx context.Context, phi *mat.Dense, y []int, nk int, s Settings, lik Likelihood, sol *Result) (*mcProblem, *Result) {
	ss := s
	ss.Monitor = nil
	p := newMCProblem(phi, y, nk, ss, lik)
	p.heldStart = true
	if s.Hook != nil {
		s.Hook("restart", func() float64 { return sol.Trace[len(sol.Trace)-1] })
	}
	alt, err := p.solve(ctx)
	if err != nil || alt.Interrupted || alt.Status == engine.Canceled {
		return nil, nil
	}
	kept := keepHigher(p, s, sol, alt, sol.Iters+alt.Iters)
	if kept == nil {
		return nil, nil
	}
	p.set.Monitor = s.Monitor
	return p, kept
}
