package sequential

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// ErrZeroBasis is returned by Fit when every candidate function is zero at
// the training inputs: there is nothing to fit.
var ErrZeroBasis = errors.New("every basis function is zero at the training inputs")

// Settings are the controls of a fit, resolved by the caller: the numeric
// fields have no default here; the zero value of every boolean is the
// default behaviour.
type Settings struct {
	// Prior is the Gamma prior of every weight precision αₘ (the
	// likelihood holds its own factor's prior).
	Prior lb.Prior
	// Bias marks the design's first column as the bias function φ₀ = 1
	// (the start from the bias, (S8)).
	Bias bool
	// NoPrune starts from every function and removes none (the facade
	// fits such problems by the Newton solver instead).
	NoPrune bool
	// PruneAt is the threshold on ⟨αₘ⟩ above which a function is removed,
	// the final one of the annealing (PruneAlpha); Alpha0 the initial
	// ⟨αₘ⟩ without pruning.
	PruneAt, Alpha0 float64
	// MaxIter is the largest number of iterations.
	MaxIter int
	// Tol bounds the relative change of L, ParamTol that of every ⟨αₘ⟩
	// and of the likelihood's parameters, at convergence.
	Tol, ParamTol float64
	// Monitor, if not nil, is called after every iteration with the
	// full-model bound; returning true ends the fit (engine.Stopped).
	Monitor func(engine.Progress) bool
	// GammaLimit, if positive, stops the fit (engine.Stopped) once its
	// active functions and its effective parameters γ both exceed it
	// (W5), (R6).
	GammaLimit float64
	// Crowded is the fraction of the rows above which the effective
	// parameters γ of a regression's second start stop it, (C1), when
	// GammaLimit is 0 and the first fit's γ is not above it.
	Crowded float64
	// The parts of the solver that can be turned off (ablations and
	// tests): the second start from every function (S6), the start from
	// the bias (S8), the joint Newton steps on the crawl (S7), the
	// overrelaxed steps (S12), the minimum form of (S14) in the ranking
	// of additions, the stop on a crawling bound (S15), and the limit of
	// (C1) on second starts.
	NoRestart, NoBiasStart, NoNewton, NoRelax, NoExact, NoCrawlStop, NoCrowdLimit bool
	// Solvers are the caller's solvers for (S6) and (S7).
	Solvers Solvers
}

// Warm is an active set (indices into the candidate functions) with its
// ⟨α⟩, to start a fit from (kernel learning's refits).
type Warm struct {
	Cols  []int
	Alpha []float64
}

// Inputs are what a fit needs besides the design, the likelihood and the
// settings: where it starts and, for a problem over distinct rows, the
// copies left out.
type Inputs struct {
	// Warm, if not nil, is the active set to start from; the likelihood's
	// factor starts where the likelihood holds it. A warm fit gets no
	// second starts.
	Warm *Warm
	// Collapsed marks a problem over the distinct rows of another, with
	// counts (no second starts); Twins, if not nil, holds for each
	// candidate the number of its copies left out of it.
	Collapsed bool
	Twins     []float64
}

// Solvers are the caller's solvers that the second start (S6) and the
// joint steps (S7) call; a nil one turns its part off.
type Solvers struct {
	// Schedule, if not nil, runs the paper's schedule on the same
	// problem with the likelihood lik for maxIter iterations and returns
	// its functions and their ⟨α⟩, or nil: the start of (S6).
	Schedule func(ctx context.Context, lik lh.Likelihood, maxIter int) (cols []int, alpha []float64)
	// Newton, if not nil, maximises the collapsed bound F of the model
	// on the factor sub with the likelihood lik (a NewtonCopy) by up to
	// steps Levenberg–Marquardt steps from the parameters x0 (ln⟨α⟩ of
	// sub's functions, then the likelihood's log parameters), without
	// pruning, at the threshold pruneAt, and returns the parameters it
	// reached if F rose: the joint steps of (S7).
	Newton func(sub *design.Factor, lik lh.Likelihood, pruneAt float64, x0 []float64, steps int) (x []float64, ok bool)
}

// Result is a fit's outcome over the active functions Cols (indices into
// the candidate functions, in increasing order): the posterior N(Mu,
// Sigma) over their weights and their precisions Alpha. The likelihood's
// factor is left in the likelihood given to Fit.
type Result struct {
	Cols  []int
	Mu    []float64
	Sigma *mat.SymDense
	Alpha []float64
	// Trace holds the full-model bound of every iteration, the first
	// before the first iteration; Full is the full-model bound with the
	// excluded functions at their optimum for the final precisions, at
	// least the trace's last value, (S4).
	Trace  []float64
	Iters  int
	Status engine.Status
	Full   float64
	// Bound is L of the active model, (39)–(46) or (59)–(64), at the
	// end.
	Bound float64
}

// Fit fits the model on the factored design f (every candidate function)
// with the likelihood lik by the sequential solver, from in.Warm or from
// one function, followed on small problems by the second starts (S6) and
// (S8). It returns a nil Result with an error if the fit could not start
// or a step failed (ErrZeroBasis, a *posterior.NotPDError, or the
// context's error from a blocked factorisation); a done ctx ends the fit
// with the Result so far and the status engine.Canceled.
func Fit(ctx context.Context, f *design.Factor, lik lh.Likelihood, set Settings, in Inputs) (*Result, error) {
	p := &problem{lik: lik, set: set, in: in}
	var second, third lh.Likelihood // the likelihood at its start, for (S6) and (S8)
	if !in.Collapsed && in.Warm == nil {
		second = restartLik(p, f)
		third = biasLik(p, f)
	}
	s := newSeqFit(f, p.lik, p.set)
	s.warm = in.Warm
	s.cls.twins = in.Twins
	trace, iters, status, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	cols, mu, sig, alpha := s.sorted()
	// FullModelBound: the excluded functions at their optimum for the final
	// precisions, at least the trace's last value, (S4).
	l := s.bound()
	sol := &Result{Cols: cols, Mu: mu, Sigma: sig, Alpha: alpha, Trace: trace, Iters: iters, Status: status,
		Full: l + s.excluded(), Bound: l}
	if second != nil {
		sol = restartFit(ctx, p, f, second, sol)
	}
	if third != nil {
		sol = biasFit(ctx, p, f, third, sol)
	}
	return sol, nil
}

// problem is what Fit was given: the likelihood, the settings and the
// inputs.
type problem struct {
	lik lh.Likelihood
	set Settings
	in  Inputs
}
