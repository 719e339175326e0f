package vrvm

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// A second start for small multi-class problems (docs/design.md, "Multi-class
// classification", (M23)), as (S6) of the binary models: the sequential
// solver's greedy additions from the bias can end in a lower local
// maximum of the full-model bound than the paper's schedule, which starts
// every class from every function (on wine the two keep different
// prototypes: docs/benchmarks.md, "Measurements behind choices in the
// code"). When mcRestartIter iterations of the
// schedule cost at most seqRestartFlops per class (up to about 245 rows),
// the fit of the default softmax model is therefore repeated from the
// schedule's state after mcRestartIter iterations (every class from every
// function, ⟨αₘₖ⟩ = Alpha0; pruned at PruneAlpha), converged by the
// sequential solver, and the fit with the higher full-model bound is
// kept. It runs once, after the kernel is learned (the width is chosen by
// the first start's bound).

// mcRestartIter is the number of the schedule's iterations before the
// sequential solver takes over: more iterations of the schedule cost more
// and did not end at higher bounds on the shared multi-class splits
// (docs/benchmarks.md, "Measurements behind choices in the code").
const mcRestartIter = 5

// secondStart returns the second start (M23) of the converged solution
// sol on basis b if it is cheap and ends with a higher full-model bound,
// else sol. It applies to the softmax model under Böhning's bound.
func (c *MultiClassifier) secondStart(ctx context.Context, b *basis, x mat.Matrix, y []int, nk int, s settings, sol *mcSolution) (*mcSolution, error) {
	if c.Likelihood != Softmax || s.noMCRestart || !s.prune || s.method == (PaperSchedule{}) || sol.status != Converged {
		return sol, nil
	}
	n, _ := x.Dims()
	np := n
	if b.bias {
		np++
	}
	if float64(mcRestartIter)/seqRestartIter*restartCost(n, np, false) > seqRestartFlops {
		return sol, nil
	}
	phi, err := b.fullCtx(ctx, x)
	if err != nil {
		if ctx.Err() != nil {
			return sol, stopped(ctx, sol.iters)
		}
		return sol, nil
	}
	return mcSecondStart(ctx, phi, y, nk, s, c.Likelihood, sol), stopped(ctx, sol.iters)
}

// mcSecondStart fits the problem again from seqRestartIter iterations of
// the paper's schedule, converged by the sequential solver, and returns
// that fit if its full-model bound is higher than sol's, with sol's trace
// extended by that bound (reported to the Monitor as one more
// iteration); otherwise sol.
func mcSecondStart(ctx context.Context, phi *mat.Dense, y []int, nk int, s settings, lik MultiLikelihood, sol *mcSolution) *mcSolution {
	ss := s
	ss.method, ss.maxIter, ss.monitor = PaperSchedule{}, mcRestartIter, nil
	p := newMCProblem(phi, y, nk, ss, lik)
	if _, err := p.solve(ctx); err != nil {
		return sol
	}
	// A second start that has not converged in several times the first
	// fit's iterations is abandoned, as (S6).
	p.set.method, p.set.maxIter = Sequential{}, min(s.maxIter, 4*sol.iters+200)
	alt, err := p.solve(ctx)
	if err != nil || alt.status != Converged {
		return sol
	}
	if kept := keepHigher(p, s, sol, alt, sol.iters+1); kept != nil {
		return kept
	}
	return sol
}

// keepHigher returns alt, the solution of p, if its full-model bound is
// higher than sol's, with sol's trace extended by that bound (reported
// to s's Monitor as one more iteration) and iters as its iterations;
// otherwise nil.
func keepHigher(p *mcProblem, s settings, sol, alt *mcSolution, iters int) *mcSolution {
	prev, full := sol.trace[len(sol.trace)-1], alt.trace[len(alt.trace)-1]
	if !(full > prev) {
		return nil
	}
	active := 0
	for _, c := range p.cls {
		active += len(c.act)
	}
	if s.monitor != nil {
		s.monitor(Progress{Iteration: sol.iters + 1, Bound: full, Change: relChange(prev, full), Active: active})
	}
	alt.trace = append(append([]float64(nil), sol.trace...), full)
	alt.iters = iters
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
// the bias held at ⟨α₀⟩ = seqBiasHold·d₀ in every class, the threshold
// annealed from seqAnnealStartCls·PruneAlpha, the bias released at its
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
// TestHeldRestart and TestHeldRestartEmptyClass have seeded cases; the
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
	if p.set.noMCHeldRestart || p.heldStart || !p.set.bias || !p.set.prune || p.set.method == (PaperSchedule{}) {
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
func heldRestart(ctx context.Context, phi *mat.Dense, y []int, nk int, s settings, lik MultiLikelihood,
	hook func(step string, bound func() float64), sol *mcSolution) (*mcProblem, *mcSolution) {
	ss := s
	ss.monitor = nil
	p := newMCProblem(phi, y, nk, ss, lik)
	p.heldStart = true
	if hook != nil {
		hook("restart", func() float64 { return sol.trace[len(sol.trace)-1] })
	}
	p.hook = hook
	alt, err := p.solve(ctx)
	if err != nil || alt.status == Canceled {
		return nil, nil
	}
	kept := keepHigher(p, s, sol, alt, sol.iters+alt.iters)
	if kept == nil {
		return nil, nil
	}
	p.set.monitor = s.monitor
	return p, kept
}
