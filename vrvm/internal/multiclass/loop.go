package multiclass

import (
	"fmt"
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// The annealing of the held start (M24), as the binary models' sequential
// solver's (S8): the threshold starts at annealStartCls·PruneAt (at most
// phaseIter iterations at each threshold) and is divided by annealStep
// until it reaches PruneAt; the bias is held at ⟨α₀⟩ = biasHold·d₀
// through the first phase. The values are those of the binary models.
const (
	annealStartCls = 10
	annealStep     = 10
	phaseIter      = 100
	biasHold       = 1e-8
)

// mcLoop is the multi-class VRVM as an engine.Problem: each iteration
// sweeps the blocks (blocksStep), then updates the means and the
// likelihood's variational parameters (meansStep); with pruning, the
// sequential solver computes every candidate's statistics and tries
// additions every mcbFullEvery iterations and before it converges, and
// anneals the threshold of the held start (M24).
type mcLoop struct {
	p     *mcProblem
	paper bool // the paper's schedule, (M6), (P11), instead of (S1), (P12)

	full      bool    // this iteration computes every candidate's statistics
	pending   bool    // the next iteration is to be full
	phaseIter int     // iterations at the current threshold (M24)
	changed   bool    // this iteration changed an active set
	dAlpha    float64 // the largest relative change of ⟨α⟩ of the unchanged blocks
	dxi       float64 // the likelihood's relative change
	bad       float64 // the bound that was not a number
	it        int     // the iteration
}

// Statistics does nothing: each block's Q(W) and statistics are set in
// the sweep (fresh).
func (lp *mcLoop) Statistics(int) error { return nil }

// Decide sweeps the blocks, with every candidate's statistics (and
// additions) every mcbFullEvery iterations or when an iteration is due.
func (lp *mcLoop) Decide(it int) (engine.Move, bool, error) {
	p := lp.p
	lp.it = it
	lp.full = !lp.paper && !p.set.NoPrune && (lp.pending || it%mcbFullEvery == 1)
	return engine.Move{Kind: engine.Sweep, Full: lp.full}, false, nil
}

// Act is blocksStep: every block's Q(W) and ⟨α⟩.
func (lp *mcLoop) Act(it int, m engine.Move) (err error) {
	lp.changed, lp.dAlpha, err = lp.p.blocksStep(it, m.Full, lp.paper)
	return err
}

// Likelihood is meansStep: the means and the variational parameters
// (M18), (M21), (P8), and every Q(W) for them.
func (lp *mcLoop) Likelihood(it int) error {
	dxi, pruned, err := lp.p.meansStep(it, lp.paper)
	lp.dxi, lp.changed = dxi, lp.changed || pruned
	return err
}

// Candidates does nothing: the additions are in the full sweep.
func (lp *mcLoop) Candidates(int) error { return nil }

// Objective is the full-model bound, (M9)–(M15) or (P6), (P11), (P13); after an iteration,
// NaN is a numerical failure (ErrBoundNaN).
func (lp *mcLoop) Objective() (float64, error) {
	l := lp.p.bound()
	if lp.it > 0 && math.IsNaN(l) {
		lp.bad = l
		return l, fmt.Errorf("%w (iteration %d)", ErrBoundNaN, lp.it)
	}
	return l, nil
}

// Change is the bound's relative change.
func (lp *mcLoop) Change(c float64) float64 { return c }

// Active is the number of active functions, summed over the blocks.
func (lp *mcLoop) Active() int {
	active := 0
	for _, c := range lp.p.cls {
		active += len(c.act)
	}
	return active
}

// Limit never stops the fit.
func (lp *mcLoop) Limit() bool { return false }

// Settle anneals the threshold of the held start (M24): it is lowered
// when the phase has settled or run phaseIter iterations, and the fit
// never converges above it. The sequential solver converges only after an
// iteration that tried additions.
func (lp *mcLoop) Settle(_ int, trace []float64) (engine.Verdict, error) {
	p := lp.p
	change := engine.RelChange(trace[len(trace)-2], trace[len(trace)-1])
	lp.pending = false
	lp.phaseIter++
	settled := !lp.changed && change <= p.set.Tol && lp.dAlpha <= p.set.ParamTol && lp.dxi <= p.set.ParamTol
	if p.thr > p.set.PruneAt*1.000001 { // annealing; the hold ends with the first phase
		if lp.phaseIter >= phaseIter || settled && lp.full {
			p.thr = math.Max(p.set.PruneAt, p.thr/annealStep)
			p.holdBias = false
			lp.phaseIter = 0
			lp.pending = true
		}
		return engine.Continue, nil
	}
	if settled {
		if lp.paper || p.set.NoPrune || lp.full {
			return engine.Final, nil
		}
		lp.pending = true
	}
	return engine.Continue, nil
}

// Polish does nothing.
func (lp *mcLoop) Polish(int) (bool, error) { return false, nil }

// Keep does nothing: the bound rises with every update.
func (lp *mcLoop) Keep(int) {}

// Restore is not called (Controls.Stall is 0).
func (lp *mcLoop) Restore() (float64, error) { return lp.p.bound(), nil }
