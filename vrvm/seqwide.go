package vrvm

import (
	"context"
	"math"
)

// A start annealed from a higher threshold (S10). With uniform
// precisions (regression), when the second start of (S6) is affordable
// (restartCost at most seqRestartFlopsReg), the sequential solver fits
// the problem once more from scratch with the first phase's threshold at
// seqWideAnneal·PruneAlpha instead of seqAnnealStart·PruneAlpha, and keeps
// the fit with the higher full-model bound, by more than Tol relative
// (secondFit).
//
// Smooth targets under wide kernels need many functions whose weights
// cancel: each function alone then has its optimal ⟨αₘ⟩ far above the
// threshold (its projection off the active ones is tiny), so that the
// greedy additions of the first phase stop after a handful, and neither
// the held bias (S8) nor 30 iterations of the paper's schedule (S6)
// always reach the fit of many functions that the bound prefers by
// 100–250 nats. From a threshold ten times higher, the first phase admits
// more of them before the threshold comes down. Measured on
// y = 3x₀ − 2x₁ + 0.1ε (3 standard normal inputs, 280 rows, seeds 1–8 of
// TestDefaultWidthLinearTarget's generator, default widths 6.9–8.3,
// targets scaled by (T1); noise sd, the truth 0.1):
//
//	first fit, (S8), (S6) at 10⁸ flops           above 0.14 on 6 of 8 seeds
//	(S6) at seqRestartFlopsReg                   above 0.15 on 2 (1, 3)
//	(S6), (S10)                                  on 2 (1, 3)
//	(S6), (S11) (seqCollinear)                   on 1 (8)
//	(S6), (S10), (S11)                           on none (largest 0.119)
//
// at full bounds 80–240 nats above the fits that failed, in 3–28 s a fit
// against 2–9 s (wall clock, with another job on the second core; vrvm
// fit on the sweep's 280-row linear set 0.53 → 3.18 s CPU, on 350 rows
// of integer inputs 1.33 → 3.07 s). (Without (T1), the targets unscaled,
// the solver before these changes failed on 3 of 8: 3, 5 and 8.) The
// cost: the 25 sinc sets of internal/learneval 3.7 → 7.5 s CPU for a
// mean RMS error of 0.0376 → 0.0379; the paper's 47 problems 6.7 → 10.6
// s, the full bound changed on one of them (sinc 11, 0.004 nats higher).
//
// Part of what (S10) escaped was the rounding that (S14) removes: with
// the sweep no longer clamping an sₘ lost to rounding, the fit without
// (S10) reaches the noise level on all 8 seeds (seed 8: noise sd 0.177
// and 14 functions before, 0.0952 after, full bound −3546.39 → −3304.77;
// with (S10) −3306.46 before, −3304.77 after; TestWideStart). It is kept
// for the problems where the greedy additions alone stop short.
const seqWideAnneal = 10 * seqAnnealStart

// wideLik returns a copy of p's likelihood, at its factor before the
// first fit, for the start of (S10), or nil if p does not get one.
func wideLik(p *problem, f *designFactor) likelihood {
	l, ok := p.lik.(*gaussLik)
	if p.set.noWide || !ok || !p.set.prune {
		return nil
	}
	pc, _ := f.bFull.Dims()
	if restartCost(len(l.t), pc, true) > restartLimit(true) {
		return nil
	}
	return l.clone()
}

// wideFit fits p again, with the likelihood lik (wideLik), annealed from
// seqWideAnneal·PruneAlpha (S10), unless the first fit, sol, did not
// converge, and returns that fit if its full-model bound is higher than
// sol's by more than Tol relative (secondFit); otherwise sol.
func wideFit(ctx context.Context, p *problem, f *designFactor, lik likelihood, sol *solution) *solution {
	if sol.status != Converged {
		return sol
	}
	s := newSeqFit(f, lik, p.set)
	s.annealFrom = seqWideAnneal
	return secondFit(ctx, p, s, lik, sol, p.set.tol*math.Max(1, math.Abs(sol.full)))
}
