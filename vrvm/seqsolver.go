package vrvm

import (
	"context"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// seqSolver is the Sequential solver (package sequential,
// vrvm/internal/sequential).
type seqSolver struct{}

// fit runs the sequential solver.
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
	var second, third lh.Likelihood // the likelihood at its start, for (S6) and (S8)
	if c == nil && p.warm == nil {
		second = restartLik(p, f)
		third = biasLik(p, f)
	}
	s := newSeqFit(f, p.lik, p.set)
	s.warm = p.warm
	if c != nil {
		s.cls.twins = c.twins
	}
	trace, iters, status, err := s.run(ctx)
	if status == NotFitted {
		return nil, err
	}
	cols, mu, sig, alpha := s.sorted()
	if c != nil {
		cols = c.columns(cols)
	}
	// FullModelBound: the excluded functions at their optimum for the final
	// precisions, at least the trace's last value, (S4).
	sol := &solution{cols: cols, mu: mu, sigma: sig, alpha: alpha, trace: trace, iters: iters, status: status,
		full: s.bound() + s.excluded()}
	if second != nil && err == nil {
		sol = restartFit(ctx, p, f, second, sol)
	}
	if third != nil && err == nil {
		sol = biasFit(ctx, p, f, third, sol)
	}
	return sol, err
}
