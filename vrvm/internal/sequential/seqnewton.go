package sequential

import (
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// Joint steps for a crawling tail (S7). Coordinate ascent on ⟨αₘ⟩, one
// function at a time, crawls where neighbouring functions share a weight:
// each sweep moves their ln⟨αₘ⟩ by 10⁻⁴ or less, in opposite directions,
// and the bound by 10⁻¹³ relative, so that the fit neither converges
// (ParamTol) nor gets anywhere, and SQUAREM over two sweeps does not
// follow the curved path (sinc at N = 4,000, seed 5, with (S8): the
// iteration limit of 10,000 with four such functions). When the active
// set has not changed for seqNewtonAfter iterations that were settled
// (seqSettled) but not quiet, the solver takes up to seqNewtonSteps
// Levenberg–Marquardt steps (the facade's, Solvers.Newton) in (ln⟨α⟩, ln⟨τ⟩) of
// the active model on the collapsed bound F (the facade's collapsed.go: Q_w (23)–(24)
// at its optimum, Q_α (25) in the family Γ(ã, ã/⟨αₘ⟩), Q_τ by ⟨τ⟩ with
// c̃ of (26)), holds each ⟨αₘ⟩ at PruneAlpha at most (S5), keeps Q_τ
// (the excluded functions' terms of the trace depend on it), and keeps
// the new ⟨α⟩ if the trace's bound does not decrease, as an accepted
// extrapolation. It shortens the crawling tails of sinc fits severalfold
// at the same fits (the record in docs/benchmarks.md, "Measurements behind
// choices in the code", (S7)).
const (
	seqNewtonAfter = 10
	seqNewtonSteps = 20
	// seqNewtonActive bounds the active set for which the steps are
	// taken: each costs O(M³ + M r² + r³) for M active functions and
	// rank r, and the Hessian O(M²) memory.
	seqNewtonActive = 64
	// seqNewtonWork bounds N·r, for N training rows and rank r: each
	// evaluation of F costs O(N r) (the predictive means of the rows),
	// and the steps are retried wherever the fit crawls. Sinc at
	// N = 1,000,000 (r = 31, 3·10⁷) took 167 s CPU with them and the bias
	// start (S8) against 12 s without; at N = 50,000 (1.6·10⁶) they are
	// taken.
	seqNewtonWork = 4e6
)

// newtonAffordable reports whether the joint steps of (S7) are taken for
// the factor f on n training rows (seqNewtonWork; the low-rank factor
// only, U stored).
func newtonAffordable(f *design.Factor, n int) bool {
	if f.U == nil {
		return false
	}
	_, r := f.U.Dims()
	return float64(n)*float64(r) <= seqNewtonWork
}

// newtonTakes reports whether (S7) can take the fit's crawl: the
// Gaussian likelihood, the low-rank factor within seqNewtonWork, and
// from 1 to seqNewtonActive active functions.
func (s *seqFit) newtonTakes() bool {
	m := len(s.act)
	return !s.ctl.NoNewton && s.ctl.Solvers.Newton != nil && s.lik.NewtonCopy() != nil && newtonAffordable(s.f, s.n) && m > 0 && m <= seqNewtonActive
}

// newtonTail takes the joint steps of (S7) from the current state at
// iteration iter and reports whether they were kept, if newtonTakes.
func (s *seqFit) newtonTail(iter int) (bool, error) {
	if !s.newtonTakes() {
		return false, nil
	}
	sub := &design.Factor{U: s.f.U, B: subset.Rows(s.f.BFull, s.act), Cols: append([]int(nil), s.act...)}
	lc := s.lik.NewtonCopy()
	x, ok := s.ctl.Solvers.Newton(sub, lc, s.pruneAt, append(logs(s.alpha), lc.LogParams(nil)...), seqNewtonSteps)
	if !ok {
		return false, nil
	}
	before := s.objective()
	old := append([]float64(nil), s.alpha...)
	hi := math.Log(s.pruneAt)
	for i := range s.act {
		s.alpha[i] = math.Exp(math.Min(x[i], hi))
	}
	kept := s.keepQ()
	if err := s.rebuild(iter); err == nil && s.objective() >= before {
		if s.hook != nil {
			s.hook("newton")
		}
		return true, nil
	}
	copy(s.alpha, old)
	s.restoreQ(kept)
	return false, nil
}
