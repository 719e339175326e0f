package vrvm

import (
	"context"
	"errors"
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// The facade of the sequential solver (package sequential,
// vrvm/internal/sequential: docs/design.md, "Pruning and convergence" and
// "Layout"): the settings it is given, the paper's schedule and the
// Newton solver's joint steps it calls, and its result read back as a
// solution.

// seqSolver is the Sequential solver.
type seqSolver struct{}

// fit runs the sequential solver: without pruning the Newton solver's
// joint steps from every function, otherwise sequential.Fit on the
// factored design (over the distinct rows, with counts, where rows are
// duplicated: seqdup.go).
func (seqSolver) fit(ctx context.Context, p *problem) (*solution, error) {
	if !p.set.prune {
		f, err := newDesignFactor(ctx, p.basis, p.x)
		if err != nil {
			return nil, err
		}
		// Nothing to add or remove: every function is in the model. From
		// all of them, coordinate ascent converges to inferior fixed
		// points (on 50 sinc points with all 51 functions, 0.03 nats below
		// the paper's), so the joint steps of the Newton solver are taken.
		return maximiseCollapsed(ctx, f, p)
	}
	c := collapseRows(p)
	if c != nil {
		defer c.expand()
		p = c.prob // distinct rows with counts (seqdup.go)
	}
	f, err := newSeqDesign(ctx, p.basis, p.x)
	if err != nil {
		return nil, err
	}
	in := sequential.Inputs{Warm: p.warm, Collapsed: c != nil}
	if c != nil {
		in.Twins = c.twins
	}
	res, err := sequential.Fit(ctx, f, p.lik, seqSettings(p), in)
	if res == nil {
		return nil, seqError(err)
	}
	cols := res.Cols
	if c != nil {
		cols = c.columns(cols)
	}
	sol := &solution{cols: cols, mu: res.Mu, sigma: res.Sigma, alpha: res.Alpha, trace: res.Trace, iters: res.Iters,
		status: engineStatus(res.Status), full: res.Full}
	if res.Status == engine.Canceled && err == nil {
		err = stopped(ctx, res.Iters)
	}
	return sol, seqError(err)
}

// seqError returns the solver's error as the facade's: ErrZeroBasis, a
// *NotPositiveDefiniteError, or the error as it is.
func seqError(err error) error {
	if errors.Is(err, sequential.ErrZeroBasis) {
		return ErrZeroBasis
	}
	return notPD(err)
}

// seqSettings returns the sequential solver's settings for p, with the
// paper's schedule for its second start (S6) and the Newton solver's
// joint steps (S7).
func seqSettings(p *problem) sequential.Settings {
	s := p.set
	return sequential.Settings{Prior: s.prior.weightPrior(), Bias: s.bias, NoPrune: !s.prune, PruneAt: s.pruneAt, Alpha0: s.alpha0,
		MaxIter: s.maxIter, Tol: s.tol, ParamTol: s.paramTol, Monitor: engineMonitor(s.monitor), GammaLimit: s.gammaLimit,
		Crowded: widthCrowded, NoRestart: s.noRestart, NoBiasStart: s.noBiasStart, NoNewton: s.noNewton, NoRelax: s.noRelax,
		NoExact: s.noExact, NoCrawlStop: s.noCrawlStop, NoCrowdLimit: s.noCrowdLimit,
		Solvers: sequential.Solvers{Schedule: p.restartSchedule, Newton: p.jointSteps}}
}

// restartSchedule runs the paper's schedule on p with the likelihood lik
// for maxIter iterations, without the Monitor, and returns its functions
// and their ⟨α⟩, or nil: the start of the second start (S6).
func (p *problem) restartSchedule(ctx context.Context, lik lh.Likelihood, maxIter int) (cols []int, alpha []float64) {
	ps := *p
	ps.lik = lik
	ps.set.maxIter = maxIter
	ps.set.monitor = nil
	sch, err := schedule{}.fit(ctx, &ps)
	if sch == nil || err != nil {
		return nil, nil
	}
	return sch.cols, sch.alpha
}

// jointSteps takes up to steps Levenberg–Marquardt steps
// (newtonRun.newtonStep) on the collapsed bound F of the model on sub
// with the likelihood lik, from x0, without pruning at the threshold
// pruneAt, and returns where they ended if F rose (S7).
func (p *problem) jointSteps(sub *design.Factor, lik lh.Likelihood, pruneAt float64, x0 []float64, steps int) ([]float64, bool) {
	set := p.set
	set.prune, set.pruneAt = false, pruneAt
	fr := &newtonRun{model: newCollapsed(sub, lik, p.set.prior), c: set}
	if !fr.eval(x0) {
		return nil, false
	}
	f0 := fr.f
	for range steps {
		conv, progressed := fr.newtonStep()
		if !progressed || conv || math.IsNaN(fr.f) {
			break
		}
	}
	if !(fr.f > f0) {
		return nil, false
	}
	return fr.x, true
}
