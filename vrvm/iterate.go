package vrvm

import (
	"context"
	"fmt"
	"math"
)

// engine is one variational model being iterated: the factor updates of
// one iteration, the bound and the pruning of the active set.
type engine interface {
	updateW(iter int) error // Q_w: (23)–(24) or (54)–(55)
	updateHyper()           // Q_α (25)/(57), then Q_τ (26)–(27) or ξ (58)
	bound() float64         // L, (39)–(46) or (59)–(64)
	params(dst []float64) []float64
	prune(threshold float64) bool
	active() int
}

// run iterates e in the paper's order: each iteration updates Q_w, then
// Q_α, then Q_τ (or ξ), then evaluates the bound. trace[0] is the bound
// after the first Q_w update, at the initial hyperparameters; trace[k] is
// the bound after iteration k.
func run(ctx context.Context, e engine, c control) (trace []float64, iters int, status Status, err error) {
	if err := e.updateW(1); err != nil {
		return nil, 0, NotFitted, err
	}
	trace = append(trace, e.bound())
	prev := e.params(nil)
	var cur []float64
	for k := 1; k <= c.maxIter; k++ {
		if err := stopped(ctx, k-1); err != nil {
			return trace, k - 1, Canceled, err
		}
		pruned := false
		if k > 1 {
			if c.prune {
				pruned = e.prune(c.pruneAt)
			}
			if err := e.updateW(k); err != nil {
				return trace, k - 1, NotFitted, err
			}
			// A large Q_w update can take seconds: look again before
			// the next one, so that an interrupt is honoured promptly.
			// The state stays consistent (Q_w is the optimum for the
			// current hyperparameters).
			if err := stopped(ctx, k-1); err != nil {
				return trace, k - 1, Canceled, err
			}
		}
		e.updateHyper()
		l := e.bound()
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return trace, k, NotFitted, &NotPositiveDefiniteError{Iteration: k}
		}
		change := math.Abs(l-trace[len(trace)-1]) / math.Max(1, math.Abs(l))
		trace = append(trace, l)
		cur = e.params(cur)
		pc := maxRelChange(prev, cur)
		prev, cur = cur, prev
		if c.monitor != nil && c.monitor(Progress{Iteration: k, Bound: l, Change: change, Active: e.active()}) {
			return trace, k, Stopped, nil
		}
		if !pruned && change <= c.tol && pc <= c.paramTol {
			return trace, k, Converged, nil
		}
	}
	return trace, c.maxIter, IterationLimit, nil
}

// stopped returns a non-nil error, wrapping the context's cause (so that
// errors.Is(err, context.Canceled) holds), once ctx is done.
func stopped(ctx context.Context, iters int) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("vrvm: fit stopped after %d iterations: %w", iters, context.Cause(ctx))
}

// maxRelChange returns maxᵢ |aᵢ − bᵢ| / |aᵢ|, or +Inf when the lengths
// differ (the active set changed).
func maxRelChange(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i, v := range a {
		d := math.Abs(b[i] - v)
		if v != 0 {
			d /= math.Abs(v)
		}
		m = math.Max(m, d)
	}
	return m
}

// pruneSet returns the positions to keep among alphas: those with ⟨αₘ⟩ at
// most threshold. It never empties the set: if every function exceeds the
// threshold, the one with the smallest ⟨αₘ⟩ stays.
func pruneSet(alphas []float64, threshold float64) (keep []int, pruned bool) {
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
