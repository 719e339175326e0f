package sequential

import lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"

// seqSchedule is the sequential solver's schedule: the choices of how
// the fit proceeds that depend on the likelihood, made once, when the
// solver starts (newSeqSchedule), and read by name in the loop. They are
// choices, measured for each kind of likelihood (docs/benchmarks.md,
// "Measurements behind choices in the code"), not properties of the
// factor: any of them gives a valid bound. What the factor's precisions
// allow to be computed (B = βI: dⱼ = β‖bⱼ‖², the Gram matrix
// G = B_A B_Aᵀ and the rows of B_A Bᵀ kept by add and remove, the
// partitioned inverse, the minimum form of (S14)) is not the schedule's:
// seqFit.uniform tests it where it is computed.
type seqSchedule struct {
	// annealStart is the first phase's threshold, annealStart·PruneAlpha
	// (seqAnnealStart, seqAnnealStartCls).
	annealStart float64
	// addEvery is the interval between addition rounds at the start
	// (seqLoop.every; see seqAddEvery); halveEvery halves it after a
	// round that added a function, in an iteration without removals,
	// once seqShortlistActive functions are active.
	addEvery   int
	halveEvery bool
	// addBatch is the largest number of functions added in one round
	// (seqAddBatch, seqAddBatchCls); holdEvery the least number of
	// iterations between two holdExcluded (seqAddEvery, seqHoldEveryCls).
	addBatch  int
	holdEvery int
	// fallbackAlways: a shortlist round that finds nothing to add falls
	// back to every candidate in any round, not only in one that can end
	// the fit (seqShortlist).
	fallbackAlways bool
	// joint is the joint step taken where coordinate ascent crawls:
	// Levenberg–Marquardt steps in ln⟨α⟩ (S7) or overrelaxed steps in
	// (ln⟨α⟩, ln ξ) (S12).
	joint jointStep
	// extrapolateFactor: once the threshold is final, SQUAREM
	// extrapolates the likelihood's log parameters with ln⟨α⟩
	// (extrapolateCls).
	extrapolateFactor bool
	// largeSets: the rules of large sets apply (largeSet: seqLargeGain,
	// the interval that no longer doubles, (S15)); deferUpdate: so
	// does the deferred update of the likelihood's factor (seqTauEvery),
	// which relies on the sweep's rank-one updates of Σ.
	largeSets   bool
	deferUpdate bool
	// restartFlops is the largest cost (RestartCost) of a second start,
	// (S6) (seqRestartFlopsReg, RestartFlops).
	restartFlops float64
}

// jointStep is the kind of joint step of seqSchedule.joint.
type jointStep int

const (
	jointNewton jointStep = iota // (S7), seqFit.newtonTail
	jointRelax                   // (S12), seqFit.overrelax
)

// newSeqSchedule returns the schedule for lik: uniformSchedule when its
// precisions are all equal (B = βI, the Gaussian likelihood of
// regression), weightedSchedule otherwise (classification).
func newSeqSchedule(lik lh.Likelihood) seqSchedule {
	if b, _ := lik.Weights(); b == nil {
		return uniformSchedule()
	}
	return weightedSchedule()
}

// uniformSchedule is the schedule with uniform precisions: annealing from
// seqAnnealStart, addition rounds every iteration at first, their
// interval adapted (doubled on a removal, halved on an addition in a
// larger set), one function per round, the excluded factors held at most
// every seqAddEvery iterations, the shortlist's fallback only in a round
// that can end the fit, (S7) on the crawl, SQUAREM on ln⟨α⟩ alone, the
// rules of large sets and the deferred update of Q_τ, and second starts
// up to seqRestartFlopsReg.
func uniformSchedule() seqSchedule {
	return seqSchedule{
		annealStart: seqAnnealStart, addEvery: 1, halveEvery: true,
		addBatch: seqAddBatch, holdEvery: seqAddEvery,
		joint: jointNewton, largeSets: true, deferUpdate: true,
		restartFlops: seqRestartFlopsReg,
	}
}

// weightedSchedule is the schedule with non-uniform precisions: annealing
// from seqAnnealStartCls, addition rounds every seqAddEvery iterations
// throughout, up to seqAddBatchCls functions per round, the excluded
// factors (whose eₙ cost O(N r²)) held at most every seqHoldEveryCls
// iterations, the shortlist's fallback in every round, (S12) on the
// crawl, SQUAREM on (ln⟨α⟩, ln ξ) once the threshold is final, no rules
// of large sets nor deferred updates of ξ, and second starts up to
// RestartFlops.
func weightedSchedule() seqSchedule {
	return seqSchedule{
		annealStart: seqAnnealStartCls, addEvery: seqAddEvery,
		addBatch: seqAddBatchCls, holdEvery: seqHoldEveryCls,
		fallbackAlways: true, joint: jointRelax, extrapolateFactor: true,
		restartFlops: RestartFlops,
	}
}
