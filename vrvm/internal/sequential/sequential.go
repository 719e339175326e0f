package sequential

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// seqAddEvery is the largest number of iterations between two addition
// rounds while the active set is still moving. For regression, rounds
// start every iteration and the interval doubles (up to seqAddEvery)
// whenever a sweep removes a function, and, once seqShortlistActive
// functions are active, halves after a round that added a function in an
// iteration without removals (large sets, seqLargeGain, keep rounds every
// iteration); classification keeps rounds every seqAddEvery iterations,
// where rounds every iteration fitted worse and cost more (docs/benchmarks.md, "Measurements behind choices in the code").
const seqAddEvery = 10

// Large active sets. With uniform precisions, at least seqShortlistMin
// candidates and seqShortlistActive active functions (largeSet), once the
// threshold is final, the interval between addition rounds no longer
// doubles when a sweep removes a function (a round follows every
// iteration), and a function is added only if the part of its gain (S2)
// due to qₘ, by which bestAddition ranks them, is at least seqLargeGain
// nats per training row. Without the floor, such fits end in a long tail
// of additions worth a few hundredths of a nat each, about half of them
// removed again later, each costing a sweep over hundreds of functions
// and a row of B_A Bᵀ, O(P r). A function whose ranking gain is below the
// floor raises the full bound by less than 10⁻⁵N nats when added; the fit
// converges when a full computation finds none above it. What it saves
// and costs is measured in docs/benchmarks.md ("Measurements behind
// choices in the code").
const seqLargeGain = 1e-5

// largeSet reports whether the current fit is one of those of
// seqLargeGain.
func (s *seqFit) largeSet() bool {
	return s.sched.largeSets && len(s.bnorm) >= seqShortlistMin && len(s.act) >= seqShortlistActive
}

// Annealing of the pruning threshold: the solver first converges with the
// threshold seqAnnealStart·PruneAlpha (at most seqPhaseIter iterations),
// then divides it by seqAnnealStep until it reaches PruneAlpha. Greedy
// additions at the final threshold alone end in sparser, worse optima than
// the paper's schedule (which starts from every function).
//
// Classification starts at seqAnnealStartCls, which gives the same fits in
// less time (docs/benchmarks.md, "Measurements behind choices in the code").
const (
	seqAnnealStart    = 100
	seqAnnealStartCls = 10
	seqAnnealStep     = 10
	seqPhaseIter      = 100
)

// seqAddBatch is the largest number of functions added in one round:
// one for regression, several for classification, as measured on the
// paper's sinc and Pima sets (docs/benchmarks.md, "Measurements behind choices in the code").
const (
	seqAddBatch    = 1
	seqAddBatchCls = 4
)

// Deferred likelihood updates. With uniform precisions the update of
// Q_τ, (26)–(27), changes every element of Σ, which then costs a new
// factorisation, O(M³); the sweep itself keeps Σ and μ current by rank
// one, and ln|Σ| by ln|Σ'| = ln|Σ| − ln(1 + ΔΣₘₘ). With at least
// seqTauActive active functions and seqShortlistMin candidates, Q_τ is
// updated only every seqTauEvery iterations while
// the active set is moving (the sweep removed a function or changed some
// ln⟨αₘ⟩ by more than seqSettled); any iteration at which it may have
// settled updates it, so that convergence is judged as before. Skipping
// a factor's update never lowers the bound (docs/benchmarks.md, "Measurements behind choices in the code").
const (
	seqTauEvery  = 4
	seqTauActive = 64
)

// deferLikelihood reports whether iteration k, whose sweep changed
// ln⟨αₘ⟩ by at most maxDl and removed a function if removed, leaves the
// likelihood's factor as it is (see seqTauEvery).
func (s *seqFit) deferLikelihood(k int, maxDl float64, removed bool) bool {
	return s.sched.deferUpdate && len(s.bnorm) >= seqShortlistMin && len(s.act) >= seqTauActive &&
		k%seqTauEvery != 0 && (removed || maxDl > seqSettled)
}

// seqSettled is the largest change of ln⟨αₘ⟩ and of the relative noise
// precision (or ξ) over an iteration at which the active set counts as
// settled, so that an addition round follows.
const seqSettled = 1e-2

// seqAddMargin sets the hysteresis between adding and removing: a
// function is added only if its optimal ⟨αₘ⟩ is below
// PruneAlpha/seqAddMargin, and removed when it rises above PruneAlpha.
// Without it, functions whose optimum sits near the threshold (weights of
// about 1/√PruneAlpha, which change the fit by little) are added and
// removed in turn (hundreds of them on large sinc sets), and the fit
// never settles.
const seqAddMargin = 2

// seqCollinear: a candidate whose sₘ (S2) is at most seqCollinear·dₘ is
// not added (S11). sₘ = dₘ − cₘᵀΣcₘ is the part of φₘ's precision off the
// active functions, computed as a difference of numbers of size dₘ; at
// that ratio (about √ε) φₘ lies in their span to four parts in 10⁵ and
// half of sₘ's digits are rounding, so that its gain, its optimal ⟨αₘ⟩
// and the rank-one update of Σ that adds it are too. Under wide kernels,
// whose columns are nearly collinear, such additions lowered the full
// bound by thousands of nats in one iteration, after which the fit
// recovered through removals and its second starts could be abandoned at
// a dip of the trace (SecondBudget) (docs/benchmarks.md, "Measurements behind choices in the code").
// The rounding of sₘ is u·dₘ only while cₘᵀΣcₘ is computed
// without cancellation; where it is not (nearly collinear active
// functions), (S14) takes over.
const seqCollinear = 1e-8

// seqMaxDeletions is the number of times a function may leave the active
// set; after that it is no longer added (this prevents cycling between
// adding and removing a function whose optimal ⟨αₘ⟩ sits at PruneAlpha).
const seqMaxDeletions = 2

// Keeping functions above the pruning threshold (S5). PruneAlpha alone
// ignores what a function is worth to the bound: a function whose
// optimal ⟨αₘ⟩ exceeds it is removed, however much the full model's bound
// loses. The solver holds the active functions at ⟨αₘ⟩ ≤ PruneAlpha.
// Until convergence it prunes as before (keepGain is +Inf: a function
// whose optimum exceeds the threshold is removed, and one whose optimum
// lies above PruneAlpha/seqAddMargin is not added). Once converged, a
// polish keeps a function above the threshold while the full model's
// bound would lose at least seqPolishGain nats by its removal
// (contribution: its active term at the best ⟨αₘ⟩ ≤ PruneAlpha against
// its excluded closed form), adds one that raises that bound by more than
// seqPolishGain, and holds at most seqPolishGrowth times as many active
// functions as at convergence. Without that limit the active set grows
// without end: each function kept raises the full bound a little, since
// an active weight is correlated with the others and an excluded one is
// not. What the polish gains on the paper's problems and costs on large
// ones is in docs/benchmarks.md ("Measurements behind choices in the
// code").
const (
	seqPolishGain   = 0.1
	seqPolishGrowth = 2
)

// seqFit is one fit by the sequential solver.
type seqFit struct {
	f     *design.Factor
	lik   lh.Likelihood
	prior lb.Prior
	ctl   Settings
	sched seqSchedule // the likelihood's schedule, chosen once (seqschedule.go)
	n     int
	ud    []float64 // Uᵀd for the likelihood's fixed data vector d

	act   []int      // active functions, indices into the full basis
	alpha []float64  // ⟨αₘ⟩ of the active functions
	bA    *mat.Dense // M × r rows of B of the active functions (nil if rowsShared)
	phiA  *mat.Dense // N × M active design (non-uniform precisions only)
	// With uniform precisions, the Gram matrix G = B_A B_Aᵀ = Φ_AᵀΦ_A
	// and B_A Uᵀd = Φ_Aᵀd are kept up to date by add and remove (O(M r)
	// each), so that rebuild costs O(M³/3 + M r) and never O(M² r).
	gram *mat.SymDense
	bud  []float64
	// cross (uniform precisions) is B_A B_fullᵀ, M × P: row m holds
	// bₘᵀbⱼ for every candidate j. bnorm holds ‖bⱼ‖².
	cross   [][]float64
	pending []bool // rows of cross not yet computed beyond the shortlist
	// crossKept holds the complete rows of cross of removed functions,
	// crossKeptLen their number of values (seqcross.go).
	crossKept    map[int][]float64
	crossKeptLen int
	bnorm        []float64
	// The trace's terms of the excluded functions are kept at fixed
	// factors between addition rounds (see holdExcluded): exV holds vⱼ
	// and exC the terms of j that do not involve the precisions, exConst
	// their sum; exE is the excluded share eₙ = Σⱼ vⱼφₙⱼ² of each ⟨fₙ²⟩
	// (non-uniform precisions) and exSum = Σₙ eₙ = Σⱼ vⱼ‖φⱼ‖² (uniform).
	exV, exC []float64
	exConst  float64
	exE      []float64
	exSum    float64
	held     int // the iteration of the last holdExcluded
	// dperp = ‖d‖² − ‖Uᵀd‖², the part of ‖d − Φμ‖² outside the range of U;
	// dd = ‖d‖².
	dperp, dd float64
	deleted   map[int]int
	// sigUpdates counts the updates of the kept Σ (sig) since rebuild
	// factorised the precision (rank one in sweep, the partitioned
	// inverse in addUpdate and removeUpdate); see (S14).
	sigUpdates int
	// twin marks the candidates whose column equals, bit for bit or to
	// within twinTol, that of
	// an earlier candidate (duplicated training inputs). They are never
	// added: two identical functions share one weight, and coordinate
	// ascent between them crawls (a doubled data set stalled at the
	// iteration limit).
	twin []bool

	// hook, if not nil, is called after every step: "alpha" (one ⟨αₘ⟩
	// set to its optimum), "extrapolate" (an accepted SQUAREM step),
	// "likelihood" (Q_τ or ξ), "add" and "remove".
	hook func(step string)
	warm *Warm // the active set to start from, if not nil

	// bud0 holds bⱼᵀUᵀd for every candidate j; short is the shortlist of
	// candidates and sinceFull the rounds since the last full
	// computation (seqShortlist).
	bud0      []float64
	short     []int
	sinceFull int

	// wBeta holds the precisions for which wDV (dⱼ) were
	// last computed (non-uniform precisions; see weighted), wFresh
	// whether the last call to weighted computed them, and wHold whether
	// the excluded factors have not been held at them yet.
	wBeta  []float64
	wDV    []float64
	wFresh bool
	wHold  bool
	wStale bool // the current round's dⱼ were kept (see verify)
	// crossBuf holds explicitCross's block of B W̃.
	crossBuf []float64
	// wbuf and qbuf are N × M work matrices of rebuild, kept between
	// calls (their allocation and clearing was 8 % of a classification
	// fit).
	wbuf, qbuf *mat.Dense
	// wData, qData and phiAData back wbuf, qbuf and phiA (workDense), so
	// that a change of M reuses their storage.
	wData, qData, phiAData []float64
	svRaw                  []float64 // sⱼ of the last candidateStats before clamping
	cls                    clsCache  // non-uniform precisions (seqcross.go)

	q   posterior.Gauss
	sig *mat.SymDense
	lat lh.Latent

	// keepGain is the least loss of the full model's bound for which a
	// function above the pruning threshold is kept (or added), (S5):
	// +Inf (plain pruning), then seqPolishGain in the polish, in which
	// the active set is limited to maxActive functions.
	keepGain  float64
	maxActive int
	// biasStart: the fit starts from the bias and the function of the
	// largest gain (S8).
	biasStart bool
	// holdBias keeps the bias at ⟨α₀⟩ = seqBiasHold·d₀ in the sweeps of
	// the bias start's first phase (S8).
	holdBias bool
	// finalRound reports whether the current addition round can end the
	// fit (see bestAddition).
	finalRound bool
	// pruneAt is the current pruning threshold, annealed by run from
	// sched.annealStart·PruneAlpha down to ctl.PruneAt, the PruneAlpha
	// of the resolved settings.
	pruneAt float64
	// annealing reports whether the threshold is still above PruneAlpha
	// (seqAnnealStart); ldSweep is the change of ln|Σ| by the rank-one
	// updates of the sweeps since the last rebuild, ln|Σ| = −Σ ln(1 + ΔΣₘₘ).
	annealing bool
	ldSweep   float64
	// lazyRemove: with non-uniform precisions, a removal updates Σ and μ
	// by the partitioned inverse and leaves the rebuild to the refresh
	// after the sweep (the second start, S6, removes hundreds of
	// functions in its first sweeps; for the first fit a rebuild per
	// removal needs less peak memory: docs/benchmarks.md, "Measurements
	// behind choices in the code").
	lazyRemove bool
	// ctBuf, csBuf and colBuf are work space of candidateStats
	// and sweep, kept between calls (see workDense).
	ctBuf, csBuf, colBuf []float64
	// quadBuf is quadForms' work space (Σ filled and ΣC); knownBuf and
	// restBuf are knownCross's.
	quadBuf  []float64
	dvBuf    []float64 // dⱼ of weighted with uniform precisions
	knownBuf []bool
	restBuf  []int
	// svBuf and qvBuf hold candidateStats' results, until its next call.
	svBuf, qvBuf []float64
	// topBuf, fineBuf, lazyBuf and inBuf are work space of
	// bestAddition, kept between calls.
	topBuf  []addCand
	fineBuf []exactCand
	lazyBuf []lazyCand
	inBuf   []bool
	// precBuf and sigBuf hold the precision and Σ of rebuild: Σ is
	// written on the storage of the Σ before the last but one rebuild
	// (see sigmaTo).
	precBuf []float64
	sigBuf  [2][]float64
}

func newSeqFit(f *design.Factor, lik lh.Likelihood, c Settings) *seqFit {
	d, _ := lik.Data()
	n := len(d)
	_, r := f.BFull.Dims()
	s := &seqFit{f: f, lik: lik, prior: c.Prior, ctl: c, sched: newSeqSchedule(lik), pruneAt: c.PruneAt, n: n, deleted: map[int]int{}, ud: make([]float64, r), keepGain: math.Inf(1)}
	if f.Ident {
		copy(s.ud, d)
	} else {
		blas64.Gemv(blas.Trans, 1, f.UFull.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: d}, 0, blas64.Vector{N: r, Inc: 1, Data: s.ud})
	}
	s.dd = vec.Dot(d, d)
	p, _ := f.BFull.Dims()
	s.bud0 = make([]float64, p)
	if p > 0 && r > 0 {
		blas64.Gemv(blas.NoTrans, 1, f.BFull.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.ud}, 0, blas64.Vector{N: p, Inc: 1, Data: s.bud0})
	}
	s.dperp = math.Max(0, s.dd-vec.Dot(s.ud, s.ud))
	s.lat.Mean = make([]float64, n)
	if lik.RowVariances() {
		s.lat.Vars = make([]float64, n)
	}
	s.twin = f.TwinMask()
	s.cls.target = c.PruneAt
	s.bnorm = make([]float64, p)
	for j := range p {
		row := f.BFull.RawRowView(j)
		s.bnorm[j] = vec.Dot(row, row)
	}
	return s
}

// ActiveKey identifies an active set regardless of order (its sorted
// indices, printed).
func ActiveKey(act []int) string {
	a := append([]int(nil), act...)
	sort.Ints(a)
	return fmt.Sprint(a)
}

// sorted returns the active functions in basis order, with μ, Σ and ⟨α⟩
// permuted to match.
func (s *seqFit) sorted() (cols []int, mu []float64, sig *mat.SymDense, alpha []float64) {
	m := len(s.act)
	perm := subset.Seq(m)
	sort.Slice(perm, func(i, j int) bool { return s.act[perm[i]] < s.act[perm[j]] })
	full := s.sig
	sig = mat.NewSymDense(m, nil)
	for i, pi := range perm {
		cols = append(cols, s.act[pi])
		mu = append(mu, s.q.Mu[pi])
		alpha = append(alpha, s.alpha[pi])
		for j := i; j < m; j++ {
			sig.SetSym(i, j, full.At(pi, perm[j]))
		}
	}
	return cols, mu, sig, alpha
}

// effective returns γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) over the active functions
// (EffectiveParameters).
func (s *seqFit) effective() float64 { return posterior.EffectiveParams(s.alpha, s.sig) }
