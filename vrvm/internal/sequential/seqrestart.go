package sequential

import (
	"context"
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// A second start for small problems (S6). Greedy additions from one
// function, even with the annealed threshold, can end in another local
// maximum of the bound than the paper's schedule, which starts from every
// function at ⟨αₘ⟩ = Alpha0: with as many functions but a different set
// (7 of the 10 Ripley subsets of Table 3), or with one function more or
// fewer (sinc). When the schedule's iterations are cheap (see
// RestartFlops), the solver therefore fits the problem a second time,
// from the state of the paper's schedule after RestartIter iterations
// from its own start (Q_w (23)–(24) or (54)–(55), Q_α (25), the
// likelihood's factor (26)–(27) or (58); every function with ⟨αₘ⟩ below
// the threshold), converged by the sequential updates, and keeps the fit
// with the higher full-model bound.
//
// On the paper's 47 problems the second start removes most of the cases
// where the default solver ends more than 0.1 nats below the converged
// schedule; larger problems have better maxima that neither start finds.
// The measurements, and the alternatives tried and not kept, are in
// docs/benchmarks.md ("Measurements behind choices in the code").
const (
	RestartIter = 30
	// RestartFlops bounds the schedule's work, RestartIter
	// iterations of O(P³/3) with uniform precisions (ΦᵀΦ kept) and of
	// O(N P² + P³/3) otherwise, for P candidate functions: regression
	// up to about 200 functions, classification up to about 130 rows.
	// The second start costs that and a sequential fit from up to P
	// functions (BenchmarkSecondStart).
	RestartFlops = 1e8
	// seqRestartFlopsReg is the limit with uniform precisions
	// (regression, uniformSchedule's restartFlops), about 460 functions.
	seqRestartFlopsReg = 1e9
)

// RestartCost returns the floating-point work of RestartIter
// iterations of the schedule on n rows and p functions.
func RestartCost(n, p int, uniform bool) float64 {
	fp := float64(p)
	c := fp * fp * fp / 3
	if !uniform {
		c += float64(n) * fp * fp
	}
	return RestartIter * c
}

// restartLik returns a copy of p's likelihood, at its factor before the
// first fit, for the second start (S6), or nil if p does not get one.
func restartLik(p *problem, f *design.Factor) lh.Likelihood {
	pc, _ := f.BFull.Dims()
	b, _ := p.lik.Weights()
	if d, _ := p.lik.Data(); p.set.NoRestart || p.set.Solvers.Schedule == nil || RestartCost(len(d), pc, b == nil) > newSeqSchedule(p.lik).restartFlops {
		return nil
	}
	return p.lik.Start()
}

// restartFit fits p again, with the likelihood lik (restartLik), from
// the paper's schedule after RestartIter iterations (S6) and returns
// that fit if its full-model bound is higher than sol's, with the trace
// extended by that bound (reported to the Monitor as one more iteration,
// so that the trace does not decrease) and its likelihood factor copied
// to p.lik; otherwise sol.
func restartFit(ctx context.Context, p *problem, f *design.Factor, lik lh.Likelihood, sol *Result) *Result {
	if sol.Status != engine.Done {
		return sol
	}
	sch := &Warm{}
	sch.Cols, sch.Alpha = p.set.Solvers.Schedule(ctx, lik, RestartIter)
	if sch.Cols == nil {
		return sol
	}
	// The schedule splits a weight among identical functions (twins,
	// duplicated rows); the sequential fit keeps one of each, the first.
	s := newSeqFit(f, lik, p.set)
	ws := &Warm{}
	for i, j := range sch.Cols {
		if sch.Alpha[i] < p.set.PruneAt && !s.twin[j] {
			ws.Cols = append(ws.Cols, j)
			ws.Alpha = append(ws.Alpha, sch.Alpha[i])
		}
	}
	if len(ws.Cols) == 0 {
		return sol
	}
	s.warm = ws
	s.lazyRemove = true
	return secondFit(ctx, p, s, lik, sol, 0)
}

// SecondBudget is the number of iterations after which a second start
// whose bound (the trace's, a lower bound on its full-model bound (S4))
// is not above the first fit's is abandoned, for a first fit of iters
// iterations.
func SecondBudget(iters int) int { return 4*iters + 200 }

// secondFit runs s, a second start of p's fit with the likelihood lik
// ((S6), (S8)), and returns it if it converges to a full-model bound
// above sol's by more than margin, with sol's trace extended by that
// bound (reported to the Monitor as one more iteration, so that the
// trace does not decrease) and its likelihood factor copied to p.lik;
// otherwise sol. A second start whose bound is not above sol's after
// several times the first fit's iterations (SecondBudget) is abandoned
// (on one sinc set it cycled to the iteration limit); one that is
// already above it goes on to the iteration limit, since it would be
// kept if it converged (a first fit that ends at the mean, from which a
// second start needs hundreds of iterations, (S8)).
//
// A second start of a regression fit whose γ is at most Crowded times
// the rows is stopped, and not kept, once its own γ passes that
// (C1): with many inputs, where each narrow kernel column is a smooth
// part plus a spike at its own row, a start from every function can
// climb to a fit that spends one function on each row's noise.
func secondFit(ctx context.Context, p *problem, s *seqFit, lik lh.Likelihood, sol *Result, margin float64) *Result {
	budget := SecondBudget(sol.Iters)
	if n := lik.GammaRows(); n > 0 && !s.ctl.NoCrowdLimit && s.ctl.GammaLimit == 0 {
		if lim := s.ctl.Crowded * float64(n); !(effectiveParameters(sol) > lim) {
			s.ctl.GammaLimit = lim
		}
	}
	s.ctl.Monitor = func(pr engine.Progress) bool {
		return pr.Iteration >= budget && !(pr.Bound > sol.Full+margin)
	}
	_, _, status, err := s.run(ctx)
	if status != engine.Done || err != nil {
		return sol
	}
	l := s.bound()
	full := l + s.excluded()
	if !(full > sol.Full+margin) {
		return sol
	}
	p.lik.SetFactor(lik.Factor(nil))
	cols, mu, sig, alpha := s.sorted()
	if p.set.Monitor != nil {
		p.set.Monitor(engine.Progress{Iteration: sol.Iters + 1, Bound: full, Change: (full - sol.Full) / math.Max(1, math.Abs(full)), Active: len(cols)})
	}
	trace := append(append(make([]float64, 0, len(sol.Trace)+1), sol.Trace...), full)
	return &Result{Cols: cols, Mu: mu, Sigma: sig, Alpha: alpha, Trace: trace,
		Iters: sol.Iters + 1, Status: engine.Done, Full: full, Bound: l}
}

// effectiveParameters returns γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) of the fit sol.
func effectiveParameters(sol *Result) float64 {
	if sol.Sigma == nil {
		return 0
	}
	return posterior.EffectiveParams(sol.Alpha, sol.Sigma)
}
