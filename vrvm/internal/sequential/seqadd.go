package sequential

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// seqHoldEveryCls is the least number of iterations between two
// holdExcluded with non-uniform precisions, whose eₙ cost O(N r²) (any
// held factors give a valid bound, (S4)).
const seqHoldEveryCls = 40

// Shortlists of candidates: the statistics of every candidate cost
// O(P M²) per round, which dominated the fits with hundreds of relevance
// vectors (Friedman #1). A round computes them for every candidate only
// every seqFullEvery rounds (and whenever the shortlist offers nothing to
// add: with uniform precisions only in a round that can end the fit,
// since the others find nothing to add most of the time); in between,
// for the seqShortlist
// candidates with the largest gains at the last full computation. Every
// addition is still judged by its exact gain (S2), and the fit converges
// only after a full computation finds nothing to add.
// Below seqShortlistMin candidates, or, with the factored design, below
// seqShortlistActive active functions, every round is full (the explicit
// design, of kernels with a large rank, needs many functions): there the
// full computation is cheap, and the shortlist, whose stale ranking
// favours neighbours of the functions just added, changes the fits (it
// can lead coordinate ascent along a ridge to the iteration limit).
const (
	seqFullEvery       = 8
	seqShortlist       = 64
	seqShortlistMin    = 1000
	seqShortlistActive = 32
)

// bestAddition returns the excluded function with the largest gain
// whose optimal ⟨αₘ⟩ is below the pruning threshold, and that ⟨αₘ⟩; ok is
// false if there is none. With force, the best function is returned even
// above the threshold (the first function of a fit). Unless full, the
// candidates are those of the shortlist, if any (see seqShortlist).
func (s *seqFit) bestAddition(dv []float64, force, full bool, iter int) (j int, alpha, sj float64, ok bool, err error) {
	sj = math.NaN()
	full = full || force || len(s.short) == 0 || len(s.act) < seqShortlistActive && !s.f.Ident
	var idx []int
	if !full {
		idx = s.short
	}
	sv, qv := s.candidateStats(dv, idx)
	in := s.activeMask(len(dv))
	defer s.clearMask(in)
	for m, n := range s.deleted {
		// Removed too often to be added again (seqMaxDeletions): passed
		// over as the active ones are, without a look-up per candidate.
		if n >= seqMaxDeletions {
			in[m] = true
		}
	}
	minGain := 0.0
	if s.largeSet() && !force && !s.annealing {
		minGain = seqLargeGain * float64(s.n) // see seqLargeGain
	}
	var top *gainHeap
	if full && len(dv) >= seqShortlistMin {
		top = &gainHeap{cs: s.topBuf[:0], k: seqShortlist, floor: math.Inf(-1)}
		if !s.wStale {
			top.floor = s.gainFloor(sv, qv, dv, in)
		}
	}
	// (S14): the eligible candidates, best first, are judged again by
	// exactAddition with the kept Σ.
	exact := !s.ctl.NoExact && s.uniform() && s.sig != nil && len(s.act) > 0 && !force
	r := addScan{exact: exact, force: force, minGain: minGain, top: top, best: math.Inf(-1)}
	r.fine, r.lazy = s.fineBuf[:0], lazyRound{lazy: s.lazyBuf[:0], sv: sv, qv: qv, dv: dv, minGain: minGain}
	for k := range sv {
		m := k
		if idx != nil {
			m = idx[k]
		}
		if in[m] || s.twin[m] || !(dv[m] > 0) {
			continue
		}
		if sv[k] <= seqCollinear*dv[m] {
			continue
		}
		s.scanCandidate(&r, k, m, sv[k], qv[k], dv[m])
	}
	if top != nil {
		s.topBuf = top.cs
	}
	s.fineBuf, s.lazyBuf = r.fine, r.lazy.lazy
	j, alpha, ok = r.j, r.alpha, r.ok
	if s.wStale && len(r.elig) > 0 {
		// dⱼ kept from an earlier round: the seqVerify candidates with the
		// largest gains are judged again with their exact dⱼ.
		elig, best := r.elig, r.best
		sort.Slice(elig, func(a, b int) bool { return elig[a].g > elig[b].g })
		for _, c := range elig[:min(len(elig), seqVerify)] {
			m := c.j
			if idx != nil {
				m = idx[c.j]
			}
			if a, g, good := s.verify(m, s.svRaw[c.j], qv[c.j], dv[m], force); good && g > best {
				best, j, alpha, ok = g, m, a, true
			}
		}
	}
	if exact {
		if j, alpha, sj, ok, err = s.exactBest(r.fine, &r.lazy, iter); err != nil {
			return 0, 0, sj, false, err
		}
	}
	if full {
		var all []addCand
		if top != nil {
			all = top.cs
		}
		s.setShortlist(all)
	} else if !ok && (s.sched.fallbackAlways || s.finalRound) {
		// With uniform precisions, only a round that can end the fit
		// falls back to every candidate (the others wait for the next
		// full computation, seqFullEvery).
		return s.bestAddition(dv, force, true, iter)
	}
	return j, alpha, sj, ok, nil
}

// addScan is the state of bestAddition's pass over the candidates: the
// shortlist so far (top, nil unless the round forms it), the best
// addition so far (j, alpha, its gain best; with (S14), the eligible
// candidates fine and those passed over by their bounds, lazy), and
// the eligible candidates of a round on kept dⱼ (elig).
type addScan struct {
	exact, force bool
	minGain      float64
	top          *gainHeap
	j            int
	alpha, best  float64
	ok           bool
	fine         []exactCand
	lazy         lazyRound
	elig         []addCand
}

// scanCandidate ranks candidate k (function m, with the factors sm and
// qm of (S1) and dₘ = dm) in bestAddition's pass r. Its gain is computed
// only if its bound (S16) lets it enter the shortlist or beat the best
// so far; with (S14), a candidate that could qualify is otherwise kept
// in r.lazy.
func (s *seqFit) scanCandidate(r *addScan, k, m int, sm, qm, dm float64) {
	ub, tight := math.Inf(1), true
	var bd gainBnd
	if !s.wStale {
		bd = s.gainBound(sm, qm*qm)
		ub, tight = bd.loose(), false
	}
	needTop := r.top != nil && r.top.admits(ub)
	if needTop && !tight {
		s.sharpen(&bd)
		ub, tight = bd.tight(), true
		needTop = r.top.admits(ub)
	}
	needBest := true
	switch {
	case s.wStale:
	case r.minGain > 0 && ub < r.minGain:
		needBest = false
	case !r.force && !s.mayQualify(qm*qm, dm, ub, bd):
		needBest = false
	case r.exact:
		needBest = false
		if !needTop {
			s.sharpen(&bd)
			r.lazy.add(lazyCand{k: k, m: m, ub: bd.tight()})
		}
	default:
		needBest = !(ub < r.best)
	}
	if !needTop && !needBest {
		return
	}
	a, g, strong := s.rankGain(sm, qm, dm)
	if r.top != nil {
		r.top.add(addCand{m, g})
	}
	if r.minGain > 0 && g < r.minGain {
		return
	}
	if !r.force && (!strong || s.maxActive > 0 && len(s.act) >= s.maxActive) {
		return
	}
	switch {
	case s.wStale:
		r.elig = append(r.elig, addCand{k, g})
	case r.exact:
		if g > math.Inf(-1) {
			r.fine = append(r.fine, exactCand{j: m, g: g, alpha: a, s: math.NaN(), pos: k})
		}
	case g > r.best:
		r.best, r.j, r.alpha, r.ok = g, m, a, true
	}
}

// activeMask returns a mask of the active functions among p, from a
// buffer kept between calls and cleared by clearMask.
func (s *seqFit) activeMask(p int) []bool {
	if len(s.inBuf) < p {
		s.inBuf = make([]bool, p)
	}
	in := s.inBuf[:p]
	for _, a := range s.act {
		in[a] = true
	}
	return in
}

// clearMask clears the mask of activeMask.
func (s *seqFit) clearMask(in []bool) { clear(in) }

// addCand is a candidate of bestAddition: its index and its ranking
// gain.
type addCand struct {
	j int
	g float64
}

// rankGain returns, for an excluded function with the statistics sₘ
// and qₘ of (S1) and dₘ = φₘᵀBφₘ, the ⟨αₘ⟩ at which it would be added,
// the gain by which bestAddition ranks it, and whether it is strong
// enough to be added at all. A function whose optimum lies above the
// threshold/seqAddMargin is added, at its best ⟨αₘ⟩ ≤ PruneAlpha, only
// if that raises the full model's bound by more than the current
// keepGain (S5). The ranking is by the part of the gain due to the
// quality factor, max f(·; sₘ, qₘ) − max f(·; sₘ, 0): (S2) also counts
// ½ ln(dₘ/sₘ), which favours functions that duplicate active ones.
func (s *seqFit) rankGain(sm, qm, dm float64) (a, g float64, strong bool) {
	q2 := qm * qm
	a, strong = s.additionAlpha(sm, q2, dm)
	a0 := lb.AlphaRoot(s.prior.A, s.prior.B, sm, 0)
	g = lb.F(s.prior.A, s.prior.B, a, sm, q2) - lb.F(s.prior.A, s.prior.B, a0, sm, 0)
	return a, g, strong
}

// setShortlist records a full computation of the candidates'
// statistics: the shortlist becomes the seqShortlist candidates of all
// with the largest gains, largest first (none if all is nil: see
// seqShortlistMin).
func (s *seqFit) setShortlist(all []addCand) {
	s.sinceFull = 0
	s.short = s.short[:0]
	for _, c := range largestGains(all, seqShortlist) {
		s.short = append(s.short, c.j)
	}
}

// largestGains returns the k candidates of all with the largest gains,
// largest first, reordering all. Only those k are sorted, kept in a
// heap of the k largest so far, whose least is cs[0]: a full round offers
// thousands of candidates, and a sort of all of them was a large part of
// the default fit (docs/benchmarks.md, "Measurements behind choices in
// the code").
func largestGains(all []addCand, k int) []addCand {
	if len(all) > k {
		cs := all[:k]
		for i := k/2 - 1; i >= 0; i-- {
			siftGain(cs, i)
		}
		for _, c := range all[k:] {
			if c.g > cs[0].g {
				cs[0] = c
				siftGain(cs, 0)
			}
		}
		all = cs
	}
	sort.Slice(all, func(a, b int) bool { return all[a].g > all[b].g })
	return all
}

// siftGain moves cs[i] down the min-heap cs of gains.
func siftGain(cs []addCand, i int) {
	for {
		l := 2*i + 1
		if l >= len(cs) {
			return
		}
		if r := l + 1; r < len(cs) && cs[r].g < cs[l].g {
			l = r
		}
		if !(cs[l].g < cs[i].g) {
			return
		}
		cs[i], cs[l] = cs[l], cs[i]
		i = l
	}
}

// seqVerify is the number of candidates, best first, whose gain is
// computed again with their exact dⱼ = φⱼᵀWφⱼ (O(N r) each) when an
// addition round uses dⱼ kept from an earlier round (seqWeightTol): sⱼ
// is a difference of dⱼ and cⱼᵀΣcⱼ, and for functions close to the span of
// the active ones an error of 1 % in dⱼ exceeds sⱼ itself, and such
// additions are removed again, iterations later (docs/benchmarks.md, "Measurements behind choices in the code").
const seqVerify = 8

// verify returns the optimal ⟨αₘ⟩ and the ranking gain of candidate m
// with its exact dₘ at the current precisions, given sₘ (before clamping),
// qₘ and the kept dₘ (dOld) of candidateStats, and whether it qualifies
// for addition, as in bestAddition.
func (s *seqFit) verify(m int, sRaw, q, dOld float64, force bool) (alpha, g float64, ok bool) {
	beta, _ := s.lik.Weights()
	_, r := s.f.BFull.Dims()
	phi := make([]float64, s.n)
	blas64.Gemv(blas.NoTrans, 1, s.f.UFull.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.f.BFull.RawRowView(m)}, 0, blas64.Vector{N: s.n, Inc: 1, Data: phi})
	var d float64
	for n, v := range phi {
		d += beta[n] * v * v
	}
	if !(d > 0) {
		return 0, 0, false
	}
	return s.judge(math.Max(0, sRaw+d-dOld), q*q, d, force)
}

// judge returns the optimal ⟨αₘ⟩ and the ranking gain of a candidate
// with sparsity and quality factors sm and q2 = qₘ² (S1) and precision
// d = dₘ, and whether it qualifies for addition, as in bestAddition:
// sm above seqCollinear·d (S11), and an optimum below the threshold over
// seqAddMargin or a contribution above keepGain (S5) at its best ⟨αₘ⟩
// ≤ PruneAlpha, with room in the active set.
func (s *seqFit) judge(sm, q2, d float64, force bool) (alpha, g float64, ok bool) {
	if sm <= seqCollinear*d {
		return 0, 0, false
	}
	a, strong := s.additionAlpha(sm, q2, d)
	a0 := lb.AlphaRoot(s.prior.A, s.prior.B, sm, 0)
	g = lb.F(s.prior.A, s.prior.B, a, sm, q2) - lb.F(s.prior.A, s.prior.B, a0, sm, 0)
	return a, g, force || strong && (s.maxActive == 0 || len(s.act) < s.maxActive)
}

// addRound adds up to seqAddBatch functions, one at a time, each with the
// largest gain given the ones added before it (every addition raises the
// bound of the full model, (S2)). It returns the number added.
func (s *seqFit) addRound(iter int, final bool) (int, error) {
	tol := seqWeightTol
	if final {
		tol = s.ctl.ParamTol
	}
	var dv []float64
	fresh := true
	if s.lazyDiag() {
		dv = s.pendingDiag()
	} else {
		_, dv, fresh = s.weighted(tol)
	}
	s.wStale = !fresh && !s.f.Ident
	defer func() { s.wStale = false }()
	s.wHold = s.wHold || fresh
	batch, holdEvery := s.sched.addBatch, s.sched.holdEvery
	if iter-s.held >= holdEvery && s.wHold {
		// Kept factors (fresh false) were held when they were computed,
		// or will be at the next round at least seqAddEvery iterations on.
		defer func() {
			s.fillDiag(dv, nil)
			s.holdExcluded(dv)
		}()
		s.held, s.wHold = iter, false
	}
	s.sinceFull++
	s.finalRound = final
	for k := range batch {
		j, a, sj, ok, err := s.bestAddition(dv, false, s.sinceFull >= seqFullEvery, iter)
		if err != nil {
			return k, err
		}
		if !ok {
			return k, nil
		}
		if err := s.addUpdate(j, a, sj, iter); err != nil {
			return k + 1, err
		}
		if s.hook != nil {
			s.hook("add")
		}
	}
	return batch, nil
}

// holdExcluded sets the factors of the excluded functions to their
// optimum for the current precisions (dv from weighted):
// Q(wⱼ) = N(0, vⱼ) and Q_αⱼ as in excludedTerm. Until the next call their
// terms of the bound are
//
//	excludedTerm(dⱼ) + ½ dⱼvⱼ − ½ Σₙ βₙ vⱼ φₙⱼ²,                     (S4)
//
// the last part linear in the precisions βₙ, so that the trace costs
// O(N) per iteration (O(1) with uniform precisions) instead of
// re-optimising P factors, and O((N + P) r²) for dⱼ = φⱼᵀBφⱼ with
// non-uniform ones. Any such factors give a valid bound; re-optimising
// them (at addition rounds at most every seqAddEvery iterations, or
// seqHoldEveryCls with non-uniform precisions, and at
// the end of the fit) only raises it.
func (s *seqFit) holdExcluded(dv []float64) {
	p := len(dv)
	in := lb.MemberOf(p, s.act)
	s.exV, s.exC = vec.Resize(s.exV, p), vec.Resize(s.exC, p)
	s.exConst = 0
	e := lb.NewExcludedTerms(s.prior)
	for j, d := range dv {
		s.exV[j], s.exC[j] = 0, 0
		if in[j] {
			continue
		}
		d = math.Max(d, 0)
		a := lb.AlphaRoot(s.prior.A, s.prior.B, d, 0)
		s.exV[j] = 1 / (a + d)
		s.exC[j] = e.TermAt(d, a) + 0.5*d*s.exV[j]
		s.exConst += s.exC[j]
	}
	s.holdTwins(dv) // collapsed duplicates (seqtwins.go)
	if s.uniform() {
		s.exSum = vec.Dot(s.exV, s.bnorm)
		return
	}
	bf := s.f.BFull
	s.exE = vec.Resize(s.exE, s.n)
	if s.f.Ident {
		// eₙ = Σⱼ vⱼ Bⱼₙ², B = Φᵀ.
		clear(s.exE)
		for j, v := range s.heldWeights() {
			if v != 0 {
				for n, x := range bf.RawRowView(j) {
					s.exE[n] += v * x * x
				}
			}
		}
		return
	}
	s.heldShares() // eₙ = uₙᵀ V uₙ with V = Bᵀ diag(v) B (seqcross.go)
}

// add puts function j into the active set with ⟨αⱼ⟩ = alpha.
func (s *seqFit) add(j int, alpha float64) {
	_, r := s.f.BFull.Dims()
	m := len(s.act)
	bj := s.f.BFull.RawRowView(j)
	var nb *mat.Dense
	if !s.rowsShared() {
		var data []float64
		if s.bA != nil && m > 0 {
			data = s.bA.RawMatrix().Data[:m*r]
		}
		nb = mat.NewDense(m+1, r, append(data, bj...))
	}
	if s.uniform() {
		// G gains the row B_A bⱼ and the element ‖bⱼ‖²; Φ_Aᵀd gains bⱼᵀUᵀd.
		g := mat.NewSymDense(m+1, nil)
		for i := range m {
			copy(g.RawSymmetric().Data[i*(m+1)+i:(i+1)*(m+1)-1], s.gram.RawSymmetric().Data[i*m+i:(i+1)*m])
		}
		col := make([]float64, m+1)
		switch {
		case nb != nil:
			blas64.Gemv(blas.NoTrans, 1, nb.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: bj}, 0, blas64.Vector{N: m + 1, Inc: 1, Data: col})
		case !s.crossColumn(j, col):
			s.activeProducts(bj, col)
		}
		for i, v := range col {
			g.SetSym(i, m, v)
		}
		s.gram = g
		s.bud = append(s.bud, vec.Dot(bj, s.ud))
		s.appendCross(j)
	}
	s.bA = nb
	s.act = append(s.act, j)
	s.alpha = append(s.alpha, alpha)
	s.setPhiA()
	s.releaseExcluded(j)
}

// addUpdate adds function j with ⟨αⱼ⟩ = alpha and brings Q_w to its
// optimum. With uniform precisions it extends Σ and μ by the partitioned
// inverse (Tipping & Faul 2003, appendix), O(M²) instead of the O(M³) of
// rebuild: with c = βB_A bⱼ, Σc, sⱼ = β‖bⱼ‖² − cᵀΣc, qⱼ = yⱼ − cᵀμ and
// σ = 1/(alpha + sⱼ),
//
//	Σ' = [Σ + σ Σc cᵀΣ, −σ Σc; −σ cᵀΣ, σ],   μ' = [μ − σqⱼ Σc; σqⱼ],
//
// and ln|Σ'| = ln|Σ| + ln σ. The factorisation is refreshed by the next
// rebuild, once per iteration. exact, unless NaN, is sⱼ by (S14)
// (bestAddition), used instead of the plain form.
func (s *seqFit) addUpdate(j int, alpha, exact float64, iter int) error {
	if !s.uniform() || s.sig == nil || len(s.act) == 0 {
		s.add(j, alpha)
		return s.rebuild(iter)
	}
	_, uni := s.lik.Weights()
	_, scale := s.lik.Data()
	m := len(s.act)
	s.add(j, alpha)
	c := make([]float64, m)
	for i := range m {
		c[i] = uni * s.gram.At(i, m)
	}
	sc := make([]float64, m)
	blas64.Symv(1, s.sig.RawSymmetric(), blas64.Vector{N: m, Inc: 1, Data: c}, 0, blas64.Vector{N: m, Inc: 1, Data: sc})
	sj := uni*s.bnorm[j] - vec.Dot(c, sc)
	if !math.IsNaN(exact) {
		sj = exact
	}
	qj := scale*s.bud0[j] - vec.Dot(c, s.q.Mu)
	if !(alpha+sj > 0) || !(sj > 0) {
		return s.rebuild(iter)
	}
	sig := 1 / (alpha + sj)
	muj := sig * qj
	ns := mat.NewSymDense(m+1, nil)
	nd, od := ns.RawSymmetric().Data, s.sig.RawSymmetric()
	for a := range m {
		for b := a; b < m; b++ {
			nd[a*(m+1)+b] = od.Data[a*od.Stride+b] + sig*sc[a]*sc[b]
		}
		nd[a*(m+1)+m] = -sig * sc[a]
	}
	nd[m*(m+1)+m] = sig
	mu := make([]float64, m+1)
	for a := range m {
		mu[a] = s.q.Mu[a] - muj*sc[a]
	}
	mu[m] = muj
	s.sig, s.q.Mu = ns, mu
	s.sigUpdates++
	s.q.LogDet += math.Log(sig)
	s.syncDiag()
	return s.refresh(iter)
}

// releaseExcluded takes function j, just added, out of the terms held for
// the excluded functions, (S4).
func (s *seqFit) releaseExcluded(j int) {
	if s.exV == nil || s.exV[j] == 0 {
		return
	}
	v := s.exV[j]
	s.exConst -= s.exC[j]
	if s.exE == nil {
		s.exSum -= v * s.bnorm[j]
	} else {
		m := len(s.act) - 1 // j is the last active function
		for n := range s.n {
			p := s.phiA.At(n, m)
			s.exE[n] -= v * p * p
		}
	}
	s.exV[j], s.exC[j] = 0, 0
}

// additionAlpha returns the ⟨αₘ⟩ at which a candidate with the factors
// sm and q2 = qₘ² of (S1) and dₘ = d would be added and whether it is
// strong enough (rankGain): the maximiser of (S1) if it lies at most at
// the threshold over seqAddMargin; otherwise the best ⟨αₘ⟩ ≤ PruneAlpha,
// strong if its contribution beats keepGain (S5). Most candidates lie
// above (docs/benchmarks.md, "Measurements behind choices in the code"),
// and alphaRootAbove tells so without solving for the maximiser.
func (s *seqFit) additionAlpha(sm, q2, d float64) (a float64, strong bool) {
	lim := s.pruneAt / seqAddMargin
	if !lb.AlphaRootAbove(s.prior.A, s.prior.B, sm, q2, lim) {
		if a = lb.AlphaRoot(s.prior.A, s.prior.B, sm, q2); !(a > lim) {
			return a, true
		}
	}
	a = lb.AlphaRootUpTo(s.prior.A, s.prior.B, sm, q2, s.pruneAt)
	return a, s.beatsKeepGain(a, sm, q2, d)
}

// beatsKeepGain reports whether the contribution of function m at
// ⟨αₘ⟩ = alpha exceeds keepGain (S5); never while keepGain is +Inf
// (plain pruning), without evaluating it.
func (s *seqFit) beatsKeepGain(alpha, sm, q2, d float64) bool {
	return !math.IsInf(s.keepGain, 1) && s.contribution(alpha, sm, q2, d) > s.keepGain
}

// contribution returns what function m, held active at ⟨αₘ⟩ = alpha with
// sparsity and quality factors s and q² (S1), adds to the full model's
// bound over holding it excluded with dₘ = d: f(alpha; s, q²) − max f(·; d, 0),
// the gain (S2) when alpha is (S1)'s maximiser.
func (s *seqFit) contribution(alpha, sm, q2, d float64) float64 {
	a0 := lb.AlphaRoot(s.prior.A, s.prior.B, d, 0)
	return lb.F(s.prior.A, s.prior.B, alpha, sm, q2) - lb.F(s.prior.A, s.prior.B, a0, d, 0)
}
