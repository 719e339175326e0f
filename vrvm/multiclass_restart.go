package vrvm

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// A second start for small multi-class problems (doc.go, "Multi-class
// classification", (M23)), as (S6) of the binary models: the sequential
// solver's greedy additions from the bias can end in a lower local
// maximum of the full-model bound than the paper's schedule, which starts
// every class from every function. On wine (learned width) the default
// fit keeps one function per class, three prototypes, with 4 test errors
// of 54 and bound −4671.26; the schedule's fit keeps three other
// prototypes, 1 error, −4670.34. When mcRestartIter iterations of the
// schedule cost at most seqRestartFlops per class (up to about 245 rows),
// the fit of the default softmax model is therefore repeated from the
// schedule's state after mcRestartIter iterations (every class from every
// function, ⟨αₘₖ⟩ = Alpha0; pruned at PruneAlpha), converged by the
// sequential solver, and the fit with the higher full-model bound is
// kept. It runs once, after the kernel is learned (the width is chosen by
// the first start's bound).

// mcRestart switches the second start on (tests compare it with the first
// fit alone).
var mcRestart = true

// mcRestartIter is the number of the schedule's iterations before the
// sequential solver takes over: 5, 10, 20 and 30 end at the same fit on
// wine and within 1.2 nats on iris (5 the highest), at 0.5 s against 1.7 s
// CPU for 30 on wine.
const mcRestartIter = 5

// secondStart returns the second start (M23) of the converged solution
// sol on basis b if it is cheap and ends with a higher full-model bound,
// else sol. It applies to the softmax model under Böhning's bound.
func (c *MultiClassifier) secondStart(ctx context.Context, b *basis, x mat.Matrix, y []int, nk int, s settings, sol *mcSolution) (*mcSolution, error) {
	if c.Likelihood != Softmax || !mcRestart || !s.prune || s.solver == PaperSchedule || sol.status != Converged {
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
	ss.solver, ss.maxIter, ss.monitor = PaperSchedule, mcRestartIter, nil
	p := newMCProblem(phi, y, nk, ss, lik)
	if _, err := p.solve(ctx); err != nil {
		return sol
	}
	// A second start that has not converged in several times the first
	// fit's iterations is abandoned, as (S6).
	p.set.solver, p.set.maxIter = Sequential, min(s.maxIter, 4*sol.iters+200)
	alt, err := p.solve(ctx)
	if err != nil || alt.status != Converged {
		return sol
	}
	prev, full := sol.trace[len(sol.trace)-1], alt.trace[len(alt.trace)-1]
	if !(full > prev) {
		return sol
	}
	active := 0
	for _, c := range p.cls {
		active += len(c.act)
	}
	if s.monitor != nil {
		s.monitor(Progress{Iteration: sol.iters + 1, Bound: full, Change: relChange(prev, full), Active: active})
	}
	alt.trace = append(append([]float64(nil), sol.trace...), full)
	alt.iters = sol.iters + 1
	return alt
}
