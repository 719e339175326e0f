package vrvm

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The solvers of the multi-class model (docs/design.md, "Multi-class
// classification", "Multi-class probit"), one loop for every likelihood:
// Q(W) is a product of blocks over the shared basis, each a binary-like
// problem with its own precisions, the curvatures Bₙ and the targets z of
// the likelihood (mcLikelihood: c₀ and (M5) for Böhning's bound, Aₙ,ₖₖ and
// (M22) for the adaptive bound, 1 and ⟨y⟩ (P3) for the probit).

// mcBlock is one Q(W) block: its active functions with ⟨αₘ⟩, Σ over them
// and, for every candidate m, the statistics of the collapsed bound (S1),
// (P12) computed without the active functions' own terms (Tipping & Faul
// 2003), with the likelihood's curvatures Bₙ and targets z:
//
//	Sₘ = dₘ − cₘᵀΣcₘ,  Qₘ = hₘ − cₘᵀΣh_act,  dₘ = φₘᵀBφₘ,  cₘ = Φ_actᵀBφₘ,  h = Φᵀz.
//
// A block holds one class of the softmax model (q = 1, its own αₘₖ (M2)),
// or every class of the probit (q = K outputs sharing αₘ and Σ (P2)).
type mcBlock struct {
	mcActive
	q int       // outputs that share the block's Σ and ⟨α⟩
	d []float64 // φₘᵀBφₘ of every function
	// fixed, if not nil, is the mean (M × q) set by the likelihood's
	// step on the means, in place of Σh_act until the next fresh.
	fixed *mat.Dense
}

// mean returns the means (M × q) of the block's active weights, Σh_act
// (M4), (P3), or those set by the step on the means.
func (c *mcBlock) mean() *mat.Dense {
	if c.fixed != nil {
		return mat.DenseCopyOf(c.fixed)
	}
	return c.meanAct()
}

// vec returns the means of a one-output block as a vector.
func (c *mcBlock) vec() []float64 {
	if c.fixed != nil {
		return mat.Col(nil, 0, c.fixed)
	}
	return mat.Col(nil, 0, c.meanAct())[:len(c.act)]
}

// setVec sets the means of a one-output block to mu.
func (c *mcBlock) setVec(mu []float64) {
	c.fixed = nil
	if len(mu) > 0 {
		c.fixed = mat.NewDense(len(mu), 1, mu)
	}
}

// mcActive is one Q(W) block of the sequential multi-class solvers: its
// active functions, their ⟨α⟩ and Σ, and the statistics (M14) or (P12)
// of the candidates it holds, for q outputs that share Σ (one, a class
// of the softmax model; K, the shared-α probit: mcBlock).
// The updates below are exact: rank-one changes of Σ for a changed ⟨α⟩
// or a removal, a bordered Σ for an addition.
type mcActive struct {
	act    []int
	alpha  []float64
	sig    *mat.Dense // Σ (M × M)
	logDet float64
	rows   []int      // the functions whose statistics are held: all, or the active ones
	at     []int      // each function's position in rows, or −1
	c      *mat.Dense // R × M: Φ_rowsᵀBΦ_act
	e      *mat.Dense // R × M: CΣ
	ss     []float64  // Sₘ of the rows
	qq     *mat.Dense // R × q: Qₘ of the rows, one column per output
	h      *mat.Dense // P × q: Φᵀz of every function, one column per output
	del    map[int]int
}

// hold sets the rows whose statistics are held (every function with
// all, else the active ones) and C = Φ_rowsᵀBΦ_act from phiA = Φ_act and
// bphiA = BΦ_act.
func (s *mcActive) hold(phi, phiA, bphiA *mat.Dense, all bool) {
	_, np := phi.Dims()
	m := len(s.act)
	s.at = make([]int, np)
	for j := range s.at {
		s.at[j] = -1
	}
	if all {
		s.rows = seq(np)
		s.c = mat.NewDense(np, m, nil)
		mul(s.c, phi.T(), bphiA)
	} else {
		s.rows = append([]int(nil), s.act...)
		s.c = mat.NewDense(m, m, nil)
		mul(s.c, phiA.T(), bphiA)
	}
	for r, j := range s.rows {
		s.at[j] = r
	}
}

// factor sets Σ = (Φ_actᵀBΦ_act + diag⟨α⟩)⁻¹ from C (hold), and from
// it E = CΣ and the statistics Sₘ = dₘ − CₘΣCₘᵀ, Qₘ = hₘ − CₘΣh_act of
// the held rows, with d (φₘᵀBφₘ of every function) and h set.
func (s *mcActive) factor(iter int, d []float64) error {
	m := len(s.act)
	prec := mat.NewSymDense(m, nil)
	for i, a := range s.act {
		for j := i; j < m; j++ {
			prec.SetSym(i, j, s.c.At(s.at[a], j))
		}
		prec.SetSym(i, i, prec.At(i, i)+s.alpha[i])
	}
	var q gaussQ
	if err := q.factor(prec, iter); err != nil {
		return err
	}
	s.sig = mat.DenseCopyOf(q.sigma())
	s.logDet = q.logDet
	nr := len(s.rows)
	_, nq := s.h.Dims()
	s.e = mat.NewDense(nr, m, nil)
	s.qq = mat.NewDense(nr, nq, nil)
	if m > 0 {
		mul(s.e, s.c, s.sig)
		mul(s.qq, s.e, selectRows(s.h, s.act))
	}
	s.ss = make([]float64, nr)
	for r, j := range s.rows {
		s.ss[r] = d[j] - dot(s.c.RawRowView(r), s.e.RawRowView(r))
		qr := s.qq.RawRowView(r)
		for k := range qr {
			qr[k] = s.h.At(j, k) - qr[k]
		}
	}
	return nil
}

// meanAct returns Σh_act, the means (M × q) of the active weights.
func (s *mcActive) meanAct() *mat.Dense {
	m := len(s.act)
	_, nq := s.h.Dims()
	mu := mat.NewDense(max(m, 1), nq, nil)
	if m == 0 {
		return mu
	}
	mul(mu, s.sig, selectRows(s.h, s.act))
	return mu
}

// qsq returns Σₖ Qₘₖ² of held row r.
func (s *mcActive) qsq(r int) float64 {
	var q2 float64
	for _, v := range s.qq.RawRowView(r) {
		q2 += v * v
	}
	return q2
}

// stats returns s and Σₖqₖ² of (S1), (P12) for active position i,
// without its own terms.
func (s *mcActive) stats(i int) (sv, q2 float64) {
	r := s.at[s.act[i]]
	a := s.alpha[i]
	if den := a - s.ss[r]; den > mcStatsCut*a {
		f := a / den
		return f * s.ss[r], f * f * s.qsq(r)
	}
	// With its own terms, Sᵢ = αs/(α + s) ≈ α − α²/s when ⟨α⟩ is far
	// below s (the bias held by (M24)), and α − Sᵢ has lost its digits:
	// then s = 1/Σᵢᵢ − α and qₖ = μᵢₖ/Σᵢᵢ, μ = Σh_act.
	sii := s.sig.At(i, i)
	sv = math.Max(0, 1/sii-a)
	_, nq := s.h.Dims()
	si := s.sig.RawRowView(i)
	for k := range nq {
		var mu float64
		for j, m := range s.act {
			mu += si[j] * s.h.At(m, k)
		}
		q2 += (mu / sii) * (mu / sii)
	}
	return sv, q2
}

// mcStatsCut is the smallest (α − Sᵢ)/α for which stats uses Sᵢ and Qᵢ:
// α above 10⁻⁴ s, where α − Sᵢ keeps all but about 8 of its digits.
const mcStatsCut = 1e-4

// rankOne applies Σ ← Σ − κσᵢσᵢᵀ to Σ, E, S and Q.
func (s *mcActive) rankOne(i int, kappa float64) {
	m := len(s.act)
	nr, _ := s.e.Dims()
	_, nq := s.h.Dims()
	si := mat.Col(nil, i, s.sig)
	ei := mat.Col(nil, i, s.e)
	sh := make([]float64, nq) // σᵢᵀh_act
	for r, a := range s.act {
		for k, v := range s.h.RawRowView(a) {
			sh[k] += si[r] * v
		}
	}
	blas64.Ger(-kappa, blas64.Vector{N: m, Inc: 1, Data: si}, blas64.Vector{N: m, Inc: 1, Data: si}, s.sig.RawMatrix())
	blas64.Ger(-kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: m, Inc: 1, Data: si}, s.e.RawMatrix())
	blas64.Ger(kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: nq, Inc: 1, Data: sh}, s.qq.RawMatrix())
	for r, v := range ei {
		s.ss[r] += kappa * v * v
	}
}

// setAlpha sets ⟨α⟩ of active position i to a.
func (s *mcActive) setAlpha(i int, a float64) {
	d := a - s.alpha[i]
	if d == 0 {
		return
	}
	sii := s.sig.At(i, i)
	s.rankOne(i, d/(1+d*sii))
	s.logDet -= math.Log1p(d * sii)
	s.alpha[i] = a
}

// remove takes active position i out of the active set.
func (s *mcActive) remove(i int) {
	sii := s.sig.At(i, i)
	s.rankOne(i, 1/sii)
	s.logDet -= math.Log(sii)
	keep := make([]int, 0, len(s.act)-1)
	for j := range s.act {
		if j != i {
			keep = append(keep, j)
		}
	}
	s.del[s.act[i]]++
	s.sig = selectCols(selectRows(s.sig, keep), keep)
	s.e = selectCols(s.e, keep)
	s.c = selectCols(s.c, keep)
	s.act = selectInts(s.act, keep)
	s.alpha = selectVec(s.alpha, keep)
}

// add puts candidate j into the active set with ⟨α⟩ = a, given
// cn = ΦᵀBφⱼ; the statistics of every candidate must be held.
func (s *mcActive) add(j int, a float64, cn []float64) {
	np := len(cn)
	if len(s.rows) != np {
		panic("vrvm: mcActive.add without every candidate's statistics")
	}
	m := len(s.act)
	_, nq := s.h.Dims()
	sb := make([]float64, m)
	bj := make([]float64, m)
	for i := range m {
		sb[i] = s.e.At(j, i) // Σb, b = C[j, :]
		bj[i] = s.c.At(j, i)
	}
	sigma := 1 / (a + s.ss[j])
	u := make([]float64, np) // E b
	if m > 0 {
		blas64.Gemv(blas.NoTrans, 1, s.e.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: bj}, 0, blas64.Vector{N: np, Inc: 1, Data: u})
	}
	delta := make([]float64, np)
	for r := range np {
		delta[r] = cn[r] - u[r]
	}
	qj := append([]float64(nil), s.qq.RawRowView(j)...)
	ns := mat.NewDense(m+1, m+1, nil)
	for r := range m {
		for c := range m {
			ns.Set(r, c, s.sig.At(r, c)+sigma*sb[r]*sb[c])
		}
		ns.Set(r, m, -sigma*sb[r])
		ns.Set(m, r, -sigma*sb[r])
	}
	ns.Set(m, m, sigma)
	s.sig = ns
	s.logDet += math.Log(sigma)
	ne := mat.NewDense(np, m+1, nil)
	nc := mat.NewDense(np, m+1, nil)
	for r := range np {
		er, dst := s.e.RawRowView(r), ne.RawRowView(r)
		for c := range m {
			dst[c] = er[c] - sigma*delta[r]*sb[c]
		}
		dst[m] = sigma * delta[r]
		copy(nc.RawRowView(r), s.c.RawRowView(r))
		nc.Set(r, m, cn[r])
	}
	s.e, s.c = ne, nc
	blas64.Ger(-sigma, blas64.Vector{N: np, Inc: 1, Data: delta}, blas64.Vector{N: nq, Inc: 1, Data: qj}, s.qq.RawMatrix())
	for r, v := range delta {
		s.ss[r] -= sigma * v * v
	}
	s.act = append(s.act, j)
	s.alpha = append(s.alpha, a)
}

// Constants of the sequential solver.
const (
	// mcAddBatch is the largest number of functions added in one
	// iteration, each the best by (M16) after the previous one.
	mcAddBatch = 8
	// mcMaxDeletions is the number of times a function may leave the
	// active set before it is no longer added (against cycling).
	mcMaxDeletions = 2
)

// mcSolution is a solver's result, over the active functions cols in
// basis order.
type mcSolution struct {
	cols   []int
	mu     *mat.Dense
	sigma  *mat.SymDense
	alpha  []float64
	trace  []float64
	iters  int
	status Status
	// The per-class model: ⟨αₘₖ⟩ (0 where m is not active in class k)
	// and each class's Σₖ over cols (zero rows and columns there).
	alphaK *mat.Dense
	sigmas []*mat.SymDense
}

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
	set        settings
	prior      Prior
	lik        mcLikelihood
	psi        *mat.Dense // ψ (N × K): the expansion points (M8), (M21) or Q(Y)'s means (P5)
	cls        []*mcBlock // the Q(W) blocks: K of one class each, or one of every class
	thr        float64
	heldStart  bool // the start of (M24)
	holdBias   bool // (M24): the bias held at a nearly flat prior
	hook       func(step string, bound func() float64)
}

func newMCProblem(phi *mat.Dense, y []int, k int, s settings, lik MultiLikelihood) *mcProblem {
	n, _ := phi.Dims()
	pr := &mcProblem{y: y, k: k, set: s, prior: s.prior, psi: mat.NewDense(n, k, nil)}
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
		p.sq[m] = dot(p.tphi.RawRowView(m), p.tphi.RawRowView(m))
	}
	p.twin = twins(p.tphi)
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
		phiA := selectCols(p.phi, c.act)
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
		gemvT(c.d, p.square(), bw)
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
		c.rows = seq(np)
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
				c.h.Set(a, 0, dot(p.tphi.RawRowView(a), zc))
			}
		} else {
			for _, a := range c.act {
				gemvT(c.h.RawRowView(a), z, p.tphi.RawRowView(a))
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
	for m, v := range d {
		v = math.Max(v, 0)
		if q == 1 {
			ex.term[m] = excludedTerm(p.prior, v) // (M15)
		} else {
			ex.term[m] = probitExcluded(p.prior, q, v) // (P13)
		}
		ex.f0[m] = fval(ka, kb, alphaRoot(ka, kb, v, 0), v, 0)
	}
	p.ex = ex
	return ex
}

// excludedSum returns the sum of term over the functions not in act.
func excludedSum(term []float64, act []int) float64 {
	in := make([]bool, len(term))
	for _, a := range act {
		in[a] = true
	}
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
		gemvT(g, p.phi, p.tphi.RawRowView(miss[0]))
		p.gram[miss[0]] = g
		return
	}
	g := mat.NewDense(len(miss), len(p.sq), nil)
	mul(g, selectRows(p.tphi, miss), p.phi) // row i: φᵀΦ of miss[i]
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
		gemvT(h.RawMatrix().Data, phi, z.RawMatrix().Data)
	} else {
		mul(h, phi.T(), z)
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
	gemvT(cn, p.phi, col) // ΦᵀBφⱼ
	p.cls[k].add(j, a, cn)
}

// bestAddition returns block k's excluded function with the largest gain
// (M16), (P13) among those whose optimal ⟨α⟩ is below thr/2, with that
// ⟨α⟩, or −1.
func (p *mcProblem) bestAddition(k int) (int, float64) {
	c := p.cls[k]
	ka, kb, div := p.blockPrior(c.q)
	var base []float64
	if b, ok := p.lik.uniform(); ok {
		base = p.uniformExcluded(b).f0
	}
	in := make([]bool, len(c.d))
	for _, a := range c.act {
		in[a] = true
	}
	best, bestA, bestGain := -1, 0.0, 0.0
	for r, j := range c.rows {
		if in[j] || p.twin[j] || c.del[j] >= mcMaxDeletions || c.ss[r] <= 0 {
			continue
		}
		q2 := c.qsq(r) / div
		if !maxBelow(ka, kb, c.ss[r], q2, p.thr/2) {
			continue // its optimal ⟨α⟩ is above thr/2
		}
		a := alphaRoot(ka, kb, c.ss[r], q2)
		if a > p.thr/2 {
			continue
		}
		var f0 float64
		if base != nil {
			f0 = base[j]
		} else {
			d := math.Max(c.d[j], 0)
			f0 = fval(ka, kb, alphaRoot(ka, kb, d, 0), d, 0)
		}
		gain := fval(ka, kb, a, c.ss[r], q2) - f0 // (M16), (P13) divided by q
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
	case paper || !p.set.prune:
		return seq(np)
	case p.set.bias:
		return []int{0}
	}
	h := phiT(p.phi, p.lik.targets(k))
	var d []float64 // φₘᵀBφₘ
	if b, ok := p.lik.uniform(); ok {
		d = p.uniformD(b)
	} else {
		d = make([]float64, np)
		gemvT(d, p.square(), p.lik.curvature(k))
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

// solve runs the sequential solver or, for PaperSchedule, the paper's
// schedule, for any likelihood: each iteration updates every block's
// Q(W) (M4), (P3) and its ⟨α⟩ ((M6), (P11) in the schedule; the
// maximisers of (S1), (P12), removals and additions (M16), (P13) in the
// sequential solver), then the means and the likelihood's variational
// parameters (mcLikelihood.means), then Q(W) again.
func (p *mcProblem) solve(ctx context.Context) (*mcSolution, error) {
	paper := p.set.solver == PaperSchedule
	q := p.lik.outputs()
	p.thr = p.set.pruneAt
	if p.cls == nil { // else a warm start from the blocks' active sets and ⟨α⟩ (mcSecondStart)
		p.cls = make([]*mcBlock, p.k/q)
		if p.heldStart {
			p.thr *= seqAnnealStartCls // (M24)
			p.holdBias = true
		}
	}
	for k, c := range p.cls {
		if c == nil {
			c = &mcBlock{mcActive: mcActive{del: map[int]int{}}, q: q}
			c.act = p.startSet(k, paper)
			c.alpha = constant(len(c.act), p.set.alpha0)
			p.cls[k] = c
		}
		if err := p.fresh(k, 0, !paper && p.set.prune); err != nil {
			return nil, err
		}
	}
	ka, kb, div := p.blockPrior(q)
	at := p.aTil(q)
	trace := []float64{p.bound()}
	status := IterationLimit
	iters := 0
	pending := false
	phaseIter := 0
	for it := 1; it <= p.set.maxIter; it++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = it
		changed := false
		dAlpha := 0.0
		full := !paper && p.set.prune && (pending || it%mcbFullEvery == 1)
		for k, c := range p.cls {
			// Q(W) of the block for the other blocks' current means (they
			// moved since block k was last set), with every candidate's
			// statistics before additions.
			if err := p.fresh(k, it, full); err != nil {
				return nil, err
			}
			p.step("w")
			prev := append([]float64(nil), c.alpha...)
			if paper {
				mu := c.mean()
				for i := range c.act { // (M6), (P11)
					var w2 float64
					for _, v := range mu.RawRowView(i) {
						w2 += v*v + c.sig.At(i, i)
					}
					c.alpha[i] = at / (p.prior.B + 0.5*w2)
				}
				dAlpha = math.Max(dAlpha, maxRelChange(prev, c.alpha))
				continue
			}
			moved := false
			for i := 0; i < len(c.act); i++ {
				if p.holdBias && c.act[i] == 0 {
					c.setAlpha(i, seqBiasHold*c.d[0]) // (M24)
					p.step("hold")
					continue
				}
				sv, q2 := c.stats(i)
				a := alphaRoot(ka, kb, sv, q2/div) // (S1), (P12)
				if p.set.prune && a > p.thr && len(c.act) > 1 {
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
			if moved {
				changed = true
			} else {
				dAlpha = math.Max(dAlpha, maxRelChange(prev, c.alpha))
			}
		}
		if paper {
			p.step("alpha")
		}
		// The means and the likelihood's variational parameters given the
		// Σ (M18), (M21), (P8), then, for the sequential solver, every
		// Q(W) for the new ψ: L rises by both. The paper's schedule
		// updates Q(W) after pruning.
		rounds := mcMeanMax
		if paper {
			rounds = mcPaperMeanMax
		}
		dxi := p.lik.means(rounds)
		if !paper {
			for k := range p.cls {
				if err := p.fresh(k, it, false); err != nil {
					return nil, err
				}
			}
		}
		p.step("psi")
		if paper && p.set.prune {
			for _, c := range p.cls {
				keep, did := pruneSet(c.alpha, p.set.pruneAt)
				if did && len(keep) > 0 {
					changed = true
					c.act, c.alpha = selectInts(c.act, keep), selectVec(c.alpha, keep)
					c.sig = selectCols(selectRows(c.sig, keep), keep)
					if c.fixed != nil {
						c.fixed = selectRows(c.fixed, keep)
					}
				}
			}
		}
		if paper {
			for k := range p.cls {
				if err := p.fresh(k, it, false); err != nil {
					return nil, err
				}
			}
			p.step("w")
		}
		l := p.bound()
		if math.IsNaN(l) {
			return p.solution(append(trace, l), it, IterationLimit), fmt.Errorf("%w (iteration %d)", errBoundNaN, it)
		}
		change := relChange(trace[len(trace)-1], l)
		trace = append(trace, l)
		active := 0
		for _, c := range p.cls {
			active += len(c.act)
		}
		if p.set.monitor != nil && p.set.monitor(Progress{Iteration: it, Bound: l, Change: change, Active: active}) {
			status = Stopped
			break
		}
		pending = false
		phaseIter++
		settled := !changed && change <= p.set.tol && dAlpha <= p.set.paramTol && dxi <= p.set.paramTol
		if p.thr > p.set.pruneAt*1.000001 { // annealing; the hold ends with the first phase
			// (M24): lower the threshold when the phase has settled or
			// run seqPhaseIter iterations; never converge above it.
			if phaseIter >= seqPhaseIter || settled && full {
				p.thr = math.Max(p.set.pruneAt, p.thr/seqAnnealStep)
				p.holdBias = false
				phaseIter = 0
				pending = true
			}
			continue
		}
		if settled {
			if paper || !p.set.prune || full {
				status = Converged
				break
			}
			pending = true // converge only after an iteration that tried additions
		}
	}
	return p.solution(trace, iters, status), stopped(ctx, iters)
}

// solution gathers the classes' posteriors over the union of the blocks'
// active sets, in basis order; class k is output k mod q of block k/q.
func (p *mcProblem) solution(trace []float64, iters int, status Status) *mcSolution {
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
	sol := &mcSolution{cols: cols, mu: mat.NewDense(m, p.k, nil), alphaK: mat.NewDense(m, p.k, nil), trace: trace, iters: iters, status: status}
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
			k := len(sol.sigmas)
			for i, a := range c.act {
				sol.mu.Set(pos[a], k, mu.At(i, o))
				sol.alphaK.Set(pos[a], k, c.alpha[i])
			}
			sol.sigmas = append(sol.sigmas, s)
		}
	}
	return sol
}

// mcbFullEvery is the interval of the sequential solver's iterations that
// compute every candidate's statistics and try additions; the others
// update the active functions' ⟨α⟩ only, at O(NM²) per class.
const mcbFullEvery = 5

// mcMeanMax bounds the rounds of the step on the means (mcLikelihood.means) in the sequential solver,
// mcPaperMeanMax in the paper's schedule, whose classes start with every
// function (a round costs O(NM² + M³) per class).
const (
	mcMeanMax      = 100
	mcPaperMeanMax = 2
)

// softmaxMeans maximises L over the means of Q(W) and ψ jointly, with the
// covariances Σₖ fixed (M18): with ψ at its optimum ψ = ȳ (M8) given the
// means, (M3) is tight and L is, up to terms of Σₖ and α, the
// log-posterior
//
//	G(μ) = Σₙ{ȳₙ,tₙ − lse(ȳₙ)} − ½ Σₖ μₖᵀdiag(αₖ)μₖ,
//
// concave in μ. Its maximum is found by joint Newton steps over every
// class (jointMeans, up to mcJointMax means), then, if not reached, by
// Newton steps on one class's means at a time (Hessian ΦᵀDₖΦ + diag αₖ,
// Dₖ = diag(pₖ(1 − pₖ))), each kept only if it raises G; alternating ψ and Q(W) instead is Böhning's
// minorise–maximise iteration, which crawls where the classes are well
// separated. It returns the means at the maximum and their activations
// ȳ (N × K), for the likelihood to set ψ by (M8) or (M21), and, if the
// joint steps reached the maximum, softmax(ȳₙ) of every row (N × K),
// else nil; it changes nothing of p but its scratch.
func (p *mcProblem) softmaxMeans(rounds int) ([][]float64, *mat.Dense, *mat.Dense) {
	n, _ := p.phi.Dims()
	k := p.k
	// xa[j] = Φ_actᵀ of class j (Mⱼ × N, nil if empty): rows of Φᵀ,
	// stacked in x (Σₖ Mₖ × N).
	mt := 0
	for _, c := range p.cls {
		mt += len(c.act)
	}
	x := mat.NewDense(max(mt, 1), n, grow(&p.xbuf, max(mt, 1)*n)) // every row set below
	xa := make([]*mat.Dense, k)
	mus := make([][]float64, k)
	ybar := mat.NewDense(n, k, nil)
	col := make([]float64, n)
	off := 0
	for j, c := range p.cls {
		mus[j] = c.vec()
		m := len(c.act)
		if m == 0 {
			continue
		}
		xa[j] = x.Slice(off, off+m, 0, n).(*mat.Dense)
		off += m
		for q, a := range c.act {
			copy(xa[j].RawRowView(q), p.tphi.RawRowView(a))
		}
		gemvT(col, xa[j], mus[j]) // Φ_act μ
		ybar.SetCol(j, col)
	}
	at, prob := p.jointMeans(xa, x, mus, ybar, rounds)
	if at {
		return mus, ybar, prob // at the maximum: no class steps
	}
	// While class j moves, the other classes' part of each row's lse is
	// fixed: rest.lse(i, y) = ln(Σ_{l≠j} exp(ȳₙₗ) + exp(y)) costs one exp
	// and one log, not K.
	rest := newLSERest(ybar)
	// obj is G with class j's activations replaced by y and means by mu.
	obj := func(j int, y, mu []float64) float64 {
		var s float64
		for i := range n {
			t := p.y[i]
			if t == j {
				s += y[i]
			} else {
				s += ybar.At(i, t)
			}
			s -= rest.lse(i, y[i])
		}
		for i, al := range p.cls[j].alpha {
			s -= 0.5 * al * mu[i] * mu[i]
		}
		return s
	}
	for range rounds {
		var dmu float64
		for j, c := range p.cls {
			m := len(c.act)
			if m == 0 {
				continue
			}
			rest.set(j)
			y := make([]float64, n)
			r, w := make([]float64, n), make([]float64, n)
			for i := range n {
				y[i] = ybar.At(i, j)
				pj := math.Exp(y[i] - rest.lse(i, y[i])) // softmax_j(ȳₙ)
				r[i] = -pj
				if p.y[i] == j {
					r[i]++
				}
				w[i] = pj * (1 - pj)
			}
			g0 := obj(j, y, mus[j])
			grad := make([]float64, m)
			gemv(grad, xa[j], r)
			for i, al := range c.alpha {
				grad[i] -= al * mus[j][i]
			}
			wx := mat.DenseCopyOf(xa[j]) // Φ_actᵀ diag(w)
			for q := range m {
				floats.Mul(wx.RawRowView(q), w)
			}
			var hh mat.Dense
			mul(&hh, xa[j], wx.T())
			hess := mat.NewSymDense(m, nil)
			for q := range m {
				for t := q; t < m; t++ {
					hess.SetSym(q, t, hh.At(q, t))
				}
				hess.SetSym(q, q, hess.At(q, q)+c.alpha[q])
			}
			var chol mat.Cholesky
			if !chol.Factorize(hess) {
				continue
			}
			var step mat.VecDense
			if err := chol.SolveVecTo(&step, mat.NewVecDense(m, grad)); err != nil {
				continue
			}
			if dot(grad, step.RawVector().Data) <= 1e-12*math.Max(1, math.Abs(g0)) {
				continue
			}
			trial := make([]float64, m)
			yt := make([]float64, n)
			for t := 1.0; t > 1e-8; t /= 2 {
				for q := range m {
					trial[q] = mus[j][q] + t*step.AtVec(q)
				}
				gemvT(yt, xa[j], trial)
				if obj(j, yt, trial) > g0 {
					for q := range m {
						dmu = math.Max(dmu, math.Abs(trial[q]-mus[j][q])/math.Max(1, math.Abs(trial[q])))
					}
					copy(mus[j], trial)
					ybar.SetCol(j, yt)
					rest.update(j, yt)
					break
				}
			}
		}
		if dmu <= 1e-10 {
			break
		}
	}
	return mus, ybar, nil
}

// lseRest holds the exponentials of the activations, eₙₗ = exp(ȳₙₗ − hiₙ)
// with hiₙ at least the row's largest activation when last rescaled, and,
// for the class j that moves, Σ_{l≠j} eₙₗ, so that the row's lse with class
// j's activation at y costs one exp and one log, and a class's step
// costs N exps, not NK.
type lseRest struct {
	e       *mat.Dense
	hi, sum []float64
}

// newLSERest returns the exponentials of ybar.
func newLSERest(ybar *mat.Dense) *lseRest {
	n, k := ybar.Dims()
	r := &lseRest{e: mat.NewDense(n, k, nil), hi: make([]float64, n), sum: make([]float64, n)}
	for i := range n {
		row, er := ybar.RawRowView(i), r.e.RawRowView(i)
		hi := math.Inf(-1)
		for _, v := range row {
			hi = math.Max(hi, v)
		}
		for l, v := range row {
			er[l] = math.Exp(v - hi)
		}
		r.hi[i] = hi
	}
	return r
}

// set makes class j the one that moves.
func (r *lseRest) set(j int) {
	for i := range r.hi {
		var s float64
		for l, v := range r.e.RawRowView(i) {
			if l != j {
				s += v
			}
		}
		r.sum[i] = s
	}
}

// update sets class j's activations to y.
func (r *lseRest) update(j int, y []float64) {
	for i, v := range y {
		er := r.e.RawRowView(i)
		if v > r.hi[i] {
			// Rescale the row to its new largest activation.
			f := math.Exp(r.hi[i] - v)
			for l := range er {
				er[l] *= f
			}
			r.sum[i] *= f
			r.hi[i] = v
		}
		er[j] = math.Exp(v - r.hi[i])
		if emax := floats.Max(er); emax < 1e-100 {
			// The row's largest activation fell far below hiₙ: rescale,
			// so that its other exponentials do not underflow.
			for l := range er {
				er[l] /= emax
			}
			r.sum[i] /= emax
			r.hi[i] += math.Log(emax)
		}
	}
}

// lse returns ln(Σ_{l≠j} exp(ȳₙₗ) + exp(y)) for row i.
func (r *lseRest) lse(i int, y float64) float64 {
	hi, s := r.hi[i], r.sum[i]
	if y <= hi {
		if t := s + math.Exp(y-hi); t > 0 {
			return hi + math.Log(t)
		}
		return y // every exponential underflowed: the others are negligible
	}
	return y + math.Log1p(s*math.Exp(hi-y))
}

// mcJointMax is the largest number of means (Σₖ Mₖ) for which softmaxMeans
// takes joint Newton steps over every class (M18); above it (the paper's
// schedule starts with every function in every class) it takes one
// class's step at a time.
const mcJointMax = 2000

// jointMeans takes up to rounds joint Newton steps on G of (M18) over
// every class's means, Hessian blocks Φₖᵀdiag(pₖ(δₖₗ − pₗ))Φₗ +
// δₖₗdiag αₖ, each kept only if it raises G (halved otherwise), updating
// mus and ybar (the activations, N × K) in place. xa[k] is Φ_Aₖᵀ (Mₖ × N,
// nil if class k has no active function), the row blocks of x in class
// order. It reports whether G is at its maximum (the last step changed
// no mean by more than 1e-10 relative, or did not ascend); false leaves
// the class-wise steps to go on from where it stopped. It also returns
// softmax(ȳₙ) of every row at the activations left in ybar, or nil if
// it took no step (no means, or more than mcJointMax).
func (p *mcProblem) jointMeans(xa []*mat.Dense, x *mat.Dense, mus [][]float64, ybar *mat.Dense, rounds int) (bool, *mat.Dense) {
	n, k := ybar.Dims()
	off := make([]int, k+1)
	for j, m := range mus {
		off[j+1] = off[j] + len(m)
	}
	mt := off[k]
	if mt == 0 || mt > mcJointMax {
		return false, nil
	}
	prob := mat.NewDense(n, k, nil)
	// g returns G at activations y and means w, and sets prob.
	g := func(y *mat.Dense, w [][]float64) float64 {
		var s float64
		for i := range n {
			s += y.At(i, p.y[i]) - softmaxTo(prob.RawRowView(i), y.RawRowView(i))
		}
		for j, c := range p.cls {
			for q, al := range c.alpha {
				s -= 0.5 * al * w[j][q] * w[j][q]
			}
		}
		return s
	}
	g0 := g(ybar, mus)
	hess := mat.NewSymDense(mt, nil)
	grad := make([]float64, mt)
	r, pa := make([]float64, n), make([]float64, n)
	v := mat.NewDense(mt, n, grow(&p.vbuf, mt*n)) // Φ_Aₖᵀdiag(pₖ), stacked as x; every row set below
	var blk mat.Dense
	trial := make([][]float64, k)
	for a := range k {
		trial[a] = make([]float64, off[a+1]-off[a])
	}
	ty := mat.NewDense(n, k, nil)
	col := make([]float64, n)
	for range rounds {
		// Gradient Φₖᵀ(tₖ − pₖ) − αₖμₖ.
		var dec float64 // gᵀdiag(α)⁻¹g ≥ gᵀH⁻¹g, H ⪰ diag α
		for a := range k {
			if xa[a] == nil {
				continue
			}
			for i := range n {
				r[i] = -prob.At(i, a)
				if p.y[i] == a {
					r[i]++
				}
			}
			ga := grad[off[a]:off[a+1]]
			gemv(ga, xa[a], r)
			for q, al := range p.cls[a].alpha {
				ga[q] -= al * mus[a][q]
				dec += ga[q] * ga[q] / al
			}
		}
		if dec <= 1e-12*math.Max(1, math.Abs(g0)) {
			// The Newton decrement gᵀH⁻¹g below is at most dec: G is
			// at its maximum without forming H.
			return true, prob
		}
		// The Hessian Σₙ Φ_Aᵀ(diag pₙ − pₙpₙᵀ)Φ_A + diag α =
		// −VVᵀ + blockdiag(Φₖᵀdiag(pₖ)Φₖ) + diag α, with the rows of
		// V = Φ_Aₖᵀdiag(pₖ) stacked over the classes.
		for a := range k {
			if xa[a] == nil {
				continue
			}
			for i := range n {
				pa[i] = prob.At(i, a)
			}
			for q := off[a]; q < off[a+1]; q++ {
				floats.MulTo(v.RawRowView(q), x.RawRowView(q), pa)
			}
		}
		hess.SymOuterK(-1, v)
		for a := range k {
			m := off[a+1] - off[a]
			if m == 0 {
				continue
			}
			blk.Reset()
			mul(&blk, xa[a], v.Slice(off[a], off[a+1], 0, n).T())
			for q := range m {
				for t := q; t < m; t++ {
					hess.SetSym(off[a]+q, off[a]+t, hess.At(off[a]+q, off[a]+t)+blk.At(q, t))
				}
			}
			for q, al := range p.cls[a].alpha {
				hess.SetSym(off[a]+q, off[a]+q, hess.At(off[a]+q, off[a]+q)+al)
			}
		}
		var chol mat.Cholesky
		if !chol.Factorize(hess) {
			return false, prob
		}
		var st mat.VecDense
		if err := chol.SolveVecTo(&st, mat.NewVecDense(mt, grad)); err != nil {
			return false, prob
		}
		step := st.RawVector().Data
		if dot(grad, step) <= 1e-12*math.Max(1, math.Abs(g0)) {
			return true, prob
		}
		accepted := false
		for t := 1.0; t > 1e-8; t /= 2 {
			for a := range k {
				for q := range trial[a] {
					trial[a][q] = mus[a][q] + t*step[off[a]+q]
				}
				clear(col)
				if xa[a] != nil {
					gemvT(col, xa[a], trial[a])
				}
				ty.SetCol(a, col)
			}
			if gt := g(ty, trial); gt > g0 {
				var dmu float64
				for a := range k {
					for q, v := range trial[a] {
						dmu = math.Max(dmu, math.Abs(v-mus[a][q])/math.Max(1, math.Abs(v)))
					}
					copy(mus[a], trial[a])
				}
				ybar.Copy(ty)
				g0, accepted = gt, true
				if dmu <= 1e-10 {
					return true, prob
				}
				break
			}
		}
		if !accepted {
			g(ybar, mus) // prob at the kept means
			return true, prob
		}
	}
	return false, prob
}
