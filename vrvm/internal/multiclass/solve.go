package multiclass

import (
	"context"
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// The solvers of the multi-class model (docs/design.md, "Multi-class
// classification", "Multi-class probit"), one loop for every likelihood:
// Q(W) is a product of blocks over the shared basis, each a binary-like
// problem with its own precisions, the curvatures Bₙ and the targets z of
// the likelihood (mcLikelihood: c₀ and (M5) for Böhning's bound, Aₙ,ₖₖ and
// (M22) for the adaptive bound, 1 and ⟨y⟩ (P3) for the probit). The
// blocks are in active.go, the step on the means in means.go.

// Constants of the sequential solver.
const (
	// mcAddBatch is the largest number of functions added in one
	// iteration, each the best by (M16) after the previous one.
	mcAddBatch = 8
	// mcMaxDeletions is the number of times a function may leave the
	// active set before it is no longer added (against cycling).
	mcMaxDeletions = 2
)

// psiChange is the largest change of ψ relative to max(1, |ψ|).
func psiChange(old, new *mat.Dense) float64 {
	var c float64
	a, b := old.RawMatrix().Data, new.RawMatrix().Data
	for i, v := range b {
		c = math.Max(c, math.Abs(v-a[i])/math.Max(1, math.Abs(v)))
	}
	return c
}

// mcProblem is one fit of the multi-class model: the Q(W) blocks and
// their precisions, which the solver (solve) updates the same way for
// every likelihood, and the likelihood lik, which supplies the blocks'
// curvatures and targets, its terms of L and the step on the means and
// its variational parameters.
type mcProblem struct {
	phi  *mat.Dense // N × P design of every candidate function
	phi2 *mat.Dense // its elementwise square, nil until needed (square)
	// tphi is Φᵀ (P × N): function m's column of Φ is its row m, so that
	// the active functions' columns are read in place, not copied.
	tphi *mat.Dense
	// gram caches the columns ΦᵀΦⱼ (P) of the functions that were ever
	// active, and sq the squared norms φₘᵀφₘ of every function: with a
	// curvature b that is the same for every row (Böhning's c₀ (M4), 1
	// for the probit (P3)), C = bΦᵀΦ_act and dₘ = bφₘᵀφₘ do not change
	// between the updates of Q(W) (fresh).
	gram map[int][]float64
	sq   []float64
	// twin marks the functions whose column equals that of an earlier
	// one, bit for bit or to twinTol (repeated training rows): they are
	// never added, as in the binary models' sequential solver.
	twin []bool
	// ud caches dₘ = ub φₘᵀφₘ (uniformD), ex the excluded functions'
	// terms (uniformExcluded).
	ub float64
	ud []float64
	ex *mcExcluded
	// xbuf and vbuf are the means step's scratch (softmaxMeans,
	// jointMeans), reused between its calls.
	xbuf, vbuf []float64
	y          []int
	k          int
	set        Settings
	prior      bound.Prior
	lik        mcLikelihood
	psi        *mat.Dense // ψ (N × K): the expansion points (M8), (M21) or Q(Y)'s means (P5)
	cls        []*mcBlock // the Q(W) blocks: K of one class each, or one of every class
	thr        float64
	heldStart  bool // the start of (M24)
	holdBias   bool // (M24): the bias held at a nearly flat prior
	hook       func(step string, bound func() float64)
}

func newMCProblem(phi *mat.Dense, y []int, k int, s Settings, lik Likelihood) *mcProblem {
	n, _ := phi.Dims()
	pr := &mcProblem{y: y, k: k, set: s, prior: s.Prior, psi: mat.NewDense(n, k, nil), hook: s.Hook}
	pr.setDesign(phi)
	pr.lik = newMCLikelihood(lik, pr)
	return pr
}

// setDesign sets the design Φ of every candidate function and what is
// derived from it (Φᵀ, φₘᵀφₘ), and drops the caches of a former design.
func (p *mcProblem) setDesign(phi *mat.Dense) {
	n, np := phi.Dims()
	p.phi = phi
	p.phi2 = nil
	p.tphi = mat.NewDense(np, n, nil)
	p.tphi.Copy(phi.T())
	p.sq = make([]float64, np)
	for m := range np {
		p.sq[m] = vec.Dot(p.tphi.RawRowView(m), p.tphi.RawRowView(m))
	}
	p.twin = design.Twins(p.tphi)
	p.gram, p.ud, p.ex = map[int][]float64{}, nil, nil
}

// aTil returns ã = a + q/2 of a block of q outputs (M6), (P11).
func (p *mcProblem) aTil(q int) float64 { return p.prior.A + 0.5*float64(q) }

// blockPrior returns the prior of the one-output (S1) whose maximiser is
// that of a block of q outputs, and the divisor of its Σₖqₘₖ²: f_q(α) =
// q f(α; a/q, b/q, s, Σₖqₖ²/q) (P12); q = 1 is (S1) itself.
func (p *mcProblem) blockPrior(q int) (a, b, div float64) {
	fq := float64(q)
	return p.prior.A / fq, p.prior.B / fq, fq
}

// fresh recomputes Σ and the statistics of block k from its active set
// and ⟨α⟩: the update of Q(W) (M4), (P3) for the current curvatures and
// targets of the likelihood. With all the statistics of every candidate
// are computed (O(NPM), or O(NP) with a uniform curvature), else those of
// the active functions only (O(NM²), or O(NM) with a uniform curvature),
// enough to update their ⟨α⟩.
func (p *mcProblem) fresh(k int, iter int, all bool) error {
	c := p.cls[k]
	z := p.lik.targets(k)
	if b, ok := p.lik.uniform(); ok {
		p.freshUniform(c, b, z, all)
	} else {
		n, np := p.phi.Dims()
		bw := p.lik.curvature(k)
		phiA := subset.Cols(p.phi, c.act)
		bphi := mat.DenseCopyOf(phiA) // B Φ_act
		for i := range n {
			row := bphi.RawRowView(i)
			for j := range row {
				row[j] *= bw[i]
			}
		}
		c.hold(p.phi, phiA, bphi, all)
		c.h = phiT(p.phi, z)
		c.d = make([]float64, np)
		vec.MulTVec(c.d, p.square(), bw)
	}
	c.fixed = nil
	return c.factor(iter, c.d)
}

// freshUniform sets what fresh needs of block c before its factor, for a
// curvature b of every row: C = bΦ_rowsᵀΦ_act from the cached columns
// ΦᵀΦⱼ, dₘ = bφₘᵀφₘ, and h = Φᵀz at the held rows (every function with
// all, else the active ones; the other rows of h are not read).
func (p *mcProblem) freshUniform(c *mcBlock, b float64, z *mat.Dense, all bool) {
	np, n := p.tphi.Dims()
	m := len(c.act)
	p.cacheGram(c.act)
	c.at = make([]int, np)
	for j := range c.at {
		c.at[j] = -1
	}
	if all {
		c.rows = subset.Seq(np)
	} else {
		c.rows = append([]int(nil), c.act...)
	}
	for r, j := range c.rows {
		c.at[j] = r
	}
	c.c = mat.NewDense(len(c.rows), m, nil)
	for i, a := range c.act {
		g := p.gram[a]
		for r, j := range c.rows {
			c.c.Set(r, i, b*g[j])
		}
	}
	if all {
		c.h = phiT(p.phi, z)
	} else {
		_, nq := z.Dims()
		c.h = mat.NewDense(np, nq, nil)
		if nq == 1 {
			zc := z.RawMatrix().Data[:n]
			for _, a := range c.act {
				c.h.Set(a, 0, vec.Dot(p.tphi.RawRowView(a), zc))
			}
		} else {
			for _, a := range c.act {
				vec.MulTVec(c.h.RawRowView(a), z, p.tphi.RawRowView(a))
			}
		}
	}
	c.d = p.uniformD(b)
}

// grow returns (*buf)[:n], reallocating *buf if it is shorter; the
// elements are not cleared.
func grow(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// square returns Φ², the elementwise square of the design (N × P), for
// the curvatures that differ between rows; computed on first use.
func (p *mcProblem) square() *mat.Dense {
	if p.phi2 == nil {
		n, np := p.phi.Dims()
		p.phi2 = mat.NewDense(n, np, nil)
		p.phi2.MulElem(p.phi, p.phi)
	}
	return p.phi2
}

// uniformD returns dₘ = bφₘᵀφₘ of every function for the uniform
// curvature b; the slice is shared and must not be modified.
func (p *mcProblem) uniformD(b float64) []float64 {
	if p.ub != b || p.ud == nil {
		p.ud = make([]float64, len(p.sq))
		for m, v := range p.sq {
			p.ud[m] = b * v
		}
		p.ub = b
	}
	return p.ud
}

// mcExcluded holds, for a uniform curvature, what the excluded functions
// contribute, which depends on dₘ alone: term[m] is the term of L of
// function m outside the active set at its optimal ⟨α⟩ ((M15), or (P13)
// for the probit's block of K outputs), f0[m] the value at that ⟨α⟩ of
// the one-output (S1) of the block's prior (blockPrior), with q = 0,
// from which (M16), (P13) measure an addition's gain.
type mcExcluded struct {
	b        float64
	term, f0 []float64
}

// uniformExcluded returns the excluded functions' terms for the uniform
// curvature b, computed once per problem (dₘ = bφₘᵀφₘ does not change).
func (p *mcProblem) uniformExcluded(b float64) *mcExcluded {
	if p.ex != nil && p.ex.b == b {
		return p.ex
	}
	d := p.uniformD(b)
	q := p.lik.outputs()
	ka, kb, _ := p.blockPrior(q)
	ex := &mcExcluded{b: b, term: make([]float64, len(d)), f0: make([]float64, len(d))}
	e := bound.NewExcludedTerms(p.prior)
	for m, v := range d {
		v = math.Max(v, 0)
		if q == 1 {
			ex.term[m] = e.Term(v) // (M15)
		} else {
			ex.term[m] = ProbitExcluded(p.prior, q, v) // (P13)
		}
		ex.f0[m] = bound.F(ka, kb, bound.AlphaRoot(ka, kb, v, 0), v, 0)
	}
	p.ex = ex
	return ex
}

// excludedSum returns the sum of term over the functions not in act.
func excludedSum(term []float64, act []int) float64 {
	in := bound.MemberOf(len(term), act)
	var sum float64
	for m, v := range term {
		if !in[m] {
			sum += v
		}
	}
	return sum
}

// cacheGram computes the columns ΦᵀΦⱼ of the functions in act not yet
// cached: one product Φ_newᵀΦ for several, a matrix–vector product for
// one.
func (p *mcProblem) cacheGram(act []int) {
	var miss []int
	for _, a := range act {
		if _, ok := p.gram[a]; !ok {
			miss = append(miss, a)
		}
	}
	switch len(miss) {
	case 0:
		return
	case 1:
		np, _ := p.tphi.Dims()
		g := make([]float64, np)
		vec.MulTVec(g, p.phi, p.tphi.RawRowView(miss[0]))
		p.gram[miss[0]] = g
		return
	}
	g := mat.NewDense(len(miss), len(p.sq), nil)
	dense.Mul(g, subset.Rows(p.tphi, miss), p.phi) // row i: φᵀΦ of miss[i]
	for i, a := range miss {
		p.gram[a] = g.RawRowView(i)
	}
}

// phiT returns Φᵀz (P × q).
func phiT(phi, z *mat.Dense) *mat.Dense {
	_, np := phi.Dims()
	_, q := z.Dims()
	h := mat.NewDense(np, q, nil)
	if q == 1 {
		vec.MulTVec(h.RawMatrix().Data, phi, z.RawMatrix().Data)
	} else {
		dense.Mul(h, phi.T(), z)
	}
	return h
}

// add puts candidate j into block k's active set with ⟨α⟩ = a; the
// statistics of every candidate must be held (fresh with all).
func (p *mcProblem) add(k, j int, a float64) {
	n, np := p.phi.Dims()
	cn := make([]float64, np)
	if b, ok := p.lik.uniform(); ok {
		p.cacheGram([]int{j})
		for r, v := range p.gram[j] {
			cn[r] = b * v // ΦᵀBφⱼ = bΦᵀφⱼ
		}
		p.cls[k].add(j, a, cn)
		return
	}
	bw := p.lik.curvature(k)
	col := make([]float64, n)
	for r, v := range p.tphi.RawRowView(j) {
		col[r] = v * bw[r]
	}
	vec.MulTVec(cn, p.phi, col) // ΦᵀBφⱼ
	p.cls[k].add(j, a, cn)
}

// bestAddition returns block k's excluded function with the largest gain
// (M16), (P13) among those whose optimal ⟨α⟩ is below thr/2, with that
// ⟨α⟩, or −1.
func (p *mcProblem) bestAddition(k int) (int, float64) {
	c := p.cls[k]
	ka, kb, div := p.blockPrior(p.lik.outputs())
	var base []float64
	if b, ok := p.lik.uniform(); ok {
		base = p.uniformExcluded(b).f0
	}
	in := bound.MemberOf(len(c.d), c.act)
	best, bestA, bestGain := -1, 0.0, 0.0
	for r, j := range c.rows {
		if in[j] || p.twin[j] || c.del[j] >= mcMaxDeletions || c.ss[r] <= 0 {
			continue
		}
		q2 := c.qsq(r) / div
		if !maxBelow(ka, kb, c.ss[r], q2, p.thr/2) {
			continue // its optimal ⟨α⟩ is above thr/2
		}
		a := bound.AlphaRoot(ka, kb, c.ss[r], q2)
		if a > p.thr/2 {
			continue
		}
		var f0 float64
		if base != nil {
			f0 = base[j]
		} else {
			d := math.Max(c.d[j], 0)
			f0 = bound.F(ka, kb, bound.AlphaRoot(ka, kb, d, 0), d, 0)
		}
		gain := bound.F(ka, kb, a, c.ss[r], q2) - f0 // (M16), (P13) divided by q
		if gain > bestGain {
			best, bestA, bestGain = j, a, gain
		}
	}
	return best, bestA
}

// maxBelow reports whether the maximiser of (S1),
// f(α) = (a+½) ln α − bα − ½ ln(α + s) + ½ q2/(α + s), s > 0, may lie at
// or below t; false means it is above t, without finding it. αf'(α) =
// ã − bα − ½α/(α + s) − ½q2·α/(α + s)² is at least
// a + ½s/(t + s) − bt − ½q2·h on (0, t], h the largest α/(α + s)² there
// (1/4s at α = s, or t/(t + s)² if s > t): if that is positive, f rises
// on all of (0, t] and its maximum is above t. For s > t the test is
// exact without the prior (a = b = 0): the maximiser s²/(q2 − s) is at
// most t just when q2 ≥ s(t + s)/t.
func maxBelow(a, b, s, q2, t float64) bool {
	h := t / ((t + s) * (t + s))
	if s <= t {
		h = 1 / (4 * s)
	}
	return a+0.5*s/(t+s)-b*t-0.5*q2*h <= 0
}

func (p *mcProblem) step(name string) {
	if p.hook != nil {
		p.hook(name, p.bound)
	}
}

// startSet returns the active set block k starts from: every function
// (the paper's schedule, or no pruning), the bias, or else the function
// with the largest ‖hₘ‖²/dₘ for the initial curvatures and targets.
func (p *mcProblem) startSet(k int, paper bool) []int {
	_, np := p.phi.Dims()
	switch {
	case paper || p.set.NoPrune:
		return subset.Seq(np)
	case p.set.Bias:
		return []int{0}
	}
	h := phiT(p.phi, p.lik.targets(k))
	var d []float64 // φₘᵀBφₘ
	if b, ok := p.lik.uniform(); ok {
		d = p.uniformD(b)
	} else {
		d = make([]float64, np)
		vec.MulTVec(d, p.square(), p.lik.curvature(k))
	}
	best, bestV := 0, -1.0
	for j := range np {
		if d[j] <= 0 {
			continue
		}
		var h2 float64
		if hr := h.RawRowView(j); len(hr) == 1 {
			h2 = hr[0] * hr[0]
		} else {
			h2 = mat.Norm(h.RowView(j), 2)
			h2 *= h2
		}
		if v := h2 / d[j]; v > bestV {
			best, bestV = j, v
		}
	}
	return []int{best}
}

// solve runs the sequential solver or, for Settings.Paper, the paper's
// schedule, for any likelihood, through engine.Run (mcLoop): each
// iteration updates every block's Q(W) (M4), (P3) and its ⟨α⟩ ((M6),
// (P11) in the schedule; the maximisers of (S1), (P12), removals and
// additions (M16), (P13) in the sequential solver), then the means and the
// likelihood's variational parameters (mcLikelihood.means), then Q(W)
// again.
func (p *mcProblem) solve(ctx context.Context) (*Result, error) {
	lp := &mcLoop{p: p, paper: p.set.Paper}
	if err := p.startBlocks(lp.paper); err != nil {
		return nil, err
	}
	res, err := engine.Run(ctx, lp, engine.Controls{MaxIter: p.set.MaxIter, Initial: true, Monitor: p.set.Monitor})
	if errors.Is(err, ErrBoundNaN) {
		return p.solution(append(res.Trace, lp.bad), res.Iters, engine.IterationLimit), err
	}
	if err != nil {
		return nil, err
	}
	sol := p.solution(res.Trace, res.Iters, res.Status)
	sol.Interrupted = ctx.Err() != nil
	return sol, nil
}

// startBlocks sets up the blocks' first active sets and ⟨α⟩ (startSet;
// for the held start (M24) at the annealed threshold), unless a warm start
// (SecondStart) set them, and their Q(W) (M4), (P3).
func (p *mcProblem) startBlocks(paper bool) error {
	q := p.lik.outputs()
	p.thr = p.set.PruneAt
	if p.cls == nil { // else a warm start from the blocks' active sets and ⟨α⟩ (SecondStart)
		p.cls = make([]*mcBlock, p.k/q)
		if p.heldStart {
			p.thr *= annealStartCls // (M24)
			p.holdBias = true
		}
	}
	for k, c := range p.cls {
		if c == nil {
			c = &mcBlock{mcActive: mcActive{del: map[int]int{}}, q: q}
			c.act = p.startSet(k, paper)
			c.alpha = vec.Constant(len(c.act), p.set.Alpha0)
			p.cls[k] = c
		}
		if err := p.fresh(k, 0, !paper && !p.set.NoPrune); err != nil {
			return err
		}
	}
	return nil
}

// blocksStep updates every block in turn: its Q(W) (M4), (P3) for the
// other blocks' current means (they moved since block k was last set),
// with every candidate's statistics before additions if full, then its
// ⟨α⟩ ((M6), (P11) in the schedule, scheduleAlpha; sweepBlock in the
// sequential solver). changed reports a change of an active set, dAlpha
// the largest relative change of the ⟨α⟩ of the blocks whose active set
// stayed.
func (p *mcProblem) blocksStep(it int, full, paper bool) (changed bool, dAlpha float64, err error) {
	for k, c := range p.cls {
		if err := p.fresh(k, it, full); err != nil {
			return changed, dAlpha, err
		}
		p.step("w")
		prev := append([]float64(nil), c.alpha...)
		if paper {
			p.scheduleAlpha(c)
			dAlpha = math.Max(dAlpha, vec.MaxRelChange(prev, c.alpha))
			continue
		}
		if p.sweepBlock(k, c, full) {
			changed = true
		} else {
			dAlpha = math.Max(dAlpha, vec.MaxRelChange(prev, c.alpha))
		}
	}
	if paper {
		p.step("alpha")
	}
	return changed, dAlpha, nil
}

// scheduleAlpha is the paper's update of a block's ⟨αₘ⟩, (M6), (P11):
// ã/(b + ½ Σₖ⟨wₘₖ²⟩).
func (p *mcProblem) scheduleAlpha(c *mcBlock) {
	at := p.aTil(p.lik.outputs())
	mu := c.mean()
	for i := range c.act { // (M6), (P11)
		var w2 float64
		for _, v := range mu.RawRowView(i) {
			w2 += v*v + c.sig.At(i, i)
		}
		c.alpha[i] = at / (p.prior.B + 0.5*w2)
	}
}

// sweepBlock sets each active function of block k to the maximiser of
// (S1), (P12), removing it if that exceeds the threshold (the bias held
// at a nearly flat prior through the first phase of the held start,
// (M24)), then, if full, adds up to mcAddBatch functions by (M16), (P13).
// It reports whether the active set changed.
func (p *mcProblem) sweepBlock(k int, c *mcBlock, full bool) (moved bool) {
	ka, kb, div := p.blockPrior(p.lik.outputs())
	for i := 0; i < len(c.act); i++ {
		if p.holdBias && c.act[i] == 0 {
			c.setAlpha(i, biasHold*c.d[0]) // (M24)
			p.step("hold")
			continue
		}
		sv, q2 := c.stats(i)
		a := bound.AlphaRoot(ka, kb, sv, q2/div) // (S1), (P12)
		if !p.set.NoPrune && a > p.thr && len(c.act) > 1 {
			c.remove(i)
			i--
			moved = true
			p.step("remove")
			continue
		}
		c.setAlpha(i, a)
		p.step("alpha")
	}
	if full {
		for range mcAddBatch {
			j, a := p.bestAddition(k)
			if j < 0 {
				break
			}
			p.add(k, j, a)
			moved = true
			p.step("add")
		}
	}
	return moved
}

// meansStep updates the means and the likelihood's variational
// parameters given the Σ (M18), (M21), (P8), then, for the sequential
// solver, every Q(W) for the new ψ: L rises by both. The paper's
// schedule prunes first and then updates Q(W); pruned reports that it
// removed functions. dxi is the likelihood's relative change.
func (p *mcProblem) meansStep(it int, paper bool) (dxi float64, pruned bool, err error) {
	rounds := mcMeanMax
	if paper {
		rounds = mcPaperMeanMax
	}
	dxi = p.lik.means(rounds)
	if !paper {
		for k := range p.cls {
			if err := p.fresh(k, it, false); err != nil {
				return dxi, false, err
			}
		}
	}
	p.step("psi")
	if !paper {
		return dxi, false, nil
	}
	if !p.set.NoPrune {
		for _, c := range p.cls {
			keep, did := engine.Prune(c.alpha, p.set.PruneAt)
			if did && len(keep) > 0 {
				pruned = true
				c.act, c.alpha = subset.Ints(c.act, keep), subset.Vec(c.alpha, keep)
				c.sig = subset.Cols(subset.Rows(c.sig, keep), keep)
				if c.fixed != nil {
					c.fixed = subset.Rows(c.fixed, keep)
				}
			}
		}
	}
	for k := range p.cls {
		if err := p.fresh(k, it, false); err != nil {
			return dxi, pruned, err
		}
	}
	p.step("w")
	return dxi, pruned, nil
}

// solution gathers the classes' posteriors over the union of the blocks'
// active sets, in basis order; class k is output k mod q of block k/q.
func (p *mcProblem) solution(trace []float64, iters int, status engine.Status) *Result {
	in := map[int]bool{}
	for _, c := range p.cls {
		for _, a := range c.act {
			in[a] = true
		}
	}
	var cols []int
	for a := range in {
		cols = append(cols, a)
	}
	sort.Ints(cols)
	pos := map[int]int{}
	for i, a := range cols {
		pos[a] = i
	}
	m := len(cols)
	sol := &Result{Cols: cols, Mu: mat.NewDense(m, p.k, nil), AlphaK: mat.NewDense(m, p.k, nil), Trace: trace, Iters: iters, Status: status}
	for _, c := range p.cls {
		mu := c.mean()
		s := mat.NewSymDense(m, nil)
		for i, a := range c.act {
			for j, b := range c.act {
				if pos[a] <= pos[b] {
					s.SetSym(pos[a], pos[b], 0.5*(c.sig.At(i, j)+c.sig.At(j, i)))
				}
			}
		}
		for o := range c.q {
			k := len(sol.Sigmas)
			for i, a := range c.act {
				sol.Mu.Set(pos[a], k, mu.At(i, o))
				sol.AlphaK.Set(pos[a], k, c.alpha[i])
			}
			sol.Sigmas = append(sol.Sigmas, s)
		}
	}
	return sol
}

// mcbFullEvery is the interval of the sequential solver's iterations that
// compute every candidate's statistics and try additions; the others
// update the active functions' ⟨α⟩ only, at O(NM²) per class.
const mcbFullEvery = 5
