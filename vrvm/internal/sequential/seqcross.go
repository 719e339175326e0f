package sequential

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// The rows of cross, B_A Bᵀ (uniform precisions), are the largest cost of
// a fit with the explicit design and N ≫ P (a subset of centres): each
// costs O(P N), for every function that becomes active, against O(M²)
// for the rest of an addition. Two things keep that cost to one row per
// function:
//
//   - the column of G = Φ_AᵀΦ_A for a function j being added is read
//     from the rows of cross, which hold bₐᵀbⱼ for every active a
//     (crossColumn), instead of M dot products of length N (activeProducts);
//   - the complete row of a function that is removed is kept
//     (keepCrossRow) and reused if the function is added again
//     (keptCrossRow), up to crossKeptMax values in all;
//   - a new row takes its products with the functions whose complete rows
//     are at hand from those rows (knownCross).
//
// On large explicit designs these products and the rows of cross were
// most of a fit's time (docs/benchmarks.md, "Measurements behind choices in the code").
const crossKeptMax = 1 << 21 // 16 MB

// crossColumn sets out[i] = bₐᵀbⱼ for the active functions a = act[i]
// and out[M] = ‖bⱼ‖² from the rows of cross and reports whether it could:
// a row still pending (appendCross) holds only the candidates of the
// shortlist it was computed for, which is the current one (a full round,
// which replaces the shortlist, completes every row first).
func (s *seqFit) crossColumn(j int, out []float64) bool {
	if len(s.cross) != len(s.act) {
		return false
	}
	inShort := false
	for _, c := range s.short {
		if c == j {
			inShort = true
			break
		}
	}
	for i, row := range s.cross {
		if s.pending[i] && !inShort {
			return false
		}
		out[i] = row[j]
	}
	out[len(s.act)] = s.bnorm[j]
	return true
}

// keepCrossRow keeps row i of cross, of function j, removed from position
// i of the active set, if it is complete and the kept rows leave room.
func (s *seqFit) keepCrossRow(i, j int) {
	if s.pending[i] || s.crossKeptLen+len(s.cross[i]) > crossKeptMax {
		return
	}
	if s.crossKept == nil {
		s.crossKept = map[int][]float64{}
	}
	s.crossKept[j] = s.cross[i]
	s.crossKeptLen += len(s.cross[i])
}

// keptCrossRow returns the kept row of cross of function j, if any, and
// forgets it (it becomes an active row again).
func (s *seqFit) keptCrossRow(j int) []float64 {
	row, ok := s.crossKept[j]
	if !ok {
		return nil
	}
	delete(s.crossKept, j)
	s.crossKeptLen -= len(row)
	return row
}

// knownCross sets, in the rows out of cross for the pending rows at
// positions rows, the products with the functions whose complete rows are
// at hand (active ones not pending, and those kept by keepCrossRow), by
// symmetry, bₐᵀbⱼ = bⱼᵀbₐ, and returns the other candidates, whose
// products remain to be computed.
func (s *seqFit) knownCross(rows []int, out [][]float64) []int {
	p := len(s.bnorm)
	s.knownBuf = vec.ResizeBool(s.knownBuf, p)
	known := s.knownBuf
	clear(known)
	set := func(j int, row []float64) {
		known[j] = true
		for k, i := range rows {
			out[k][j] = row[s.act[i]]
		}
	}
	for i, row := range s.cross {
		if !s.pending[i] {
			set(s.act[i], row)
		}
	}
	for j, row := range s.crossKept {
		set(j, row)
	}
	rest := s.restBuf[:0]
	for j, kn := range known {
		if !kn {
			rest = append(rest, j)
		}
	}
	s.restBuf = rest
	return rest
}

// uniformStats is candidateStats with uniform precisions (B = βI) and
// fewer than quadGemmMin active functions: for the candidates idx (every
// one if nil), it subtracts qⱼ's products cᵢⱼμᵢ from qv and sets quad to
// cⱼᵀΣcⱼ, with cⱼ = β(B_A bⱼ) from the kept rows of cross. It forms C
// block by block, quadBlock candidates at a time (dense.ScaleSub: the
// values of the loop dst = β·cross, q −= μᵢ·dst), each block used by
// quadTile while it is in cache, in parallel over the blocks: the same
// products and sums, in the same order, as forming all of C (M × P) and
// then quadFormsAxpy, which streamed C through memory twice (the
// measurement in docs/benchmarks.md, "Issue 49, acceptance 3: the fit's
// inner loops").
func (s *seqFit) uniformStats(idx []int, qv, quad []float64) {
	m, p := len(s.act), len(qv)
	_, uni := s.lik.Weights()
	sig := s.sig.RawSymmetric()
	blocks := (p + posterior.QuadBlock - 1) / posterior.QuadBlock
	// Room for half of quadGemmMin functions from the first call, so that
	// the buffer is not reallocated at every few additions.
	buf := vec.WorkDense(&s.ctBuf, blocks, max(m, posterior.QuadGemmMin/2)*posterior.QuadBlock).RawMatrix().Data
	_ = design.ParallelRange(blocks*256, func(blo, bhi int) error {
		t := make([]float64, posterior.QuadBlock)
		for b := blo / 256; b < bhi/256; b++ {
			lo, hi := b*posterior.QuadBlock, min(p, (b+1)*posterior.QuadBlock)
			n := hi - lo
			cb, q := buf[b*m*posterior.QuadBlock:b*m*posterior.QuadBlock+m*n], qv[lo:hi]
			for i := range m {
				dst, src, mu := cb[i*n:(i+1)*n], s.cross[i], s.q.Mu[i]
				if idx == nil {
					dense.ScaleSub(dst, q, src[lo:hi], uni, mu)
					continue
				}
				for j, c := range idx[lo:hi] {
					dst[j] = uni * src[c]
					q[j] -= dst[j] * mu
				}
			}
			posterior.QuadTile(sig, m, cb, n, n, quad[lo:hi], t)
		}
		return nil
	})
}

// explicitCross sets ct = Φ_AᵀBΦ_J for the explicit design (B = Φᵀ, so
// that Φ_A's rows are s.bA) and the p candidates J (idx, or every one if
// idx is nil), by blocks of crossBlock candidates: each block's rows of
// B W̃ (the rows of B scaled by the precisions beta) are formed in a
// buffer of crossBlock × N, and multiplied by Φ_A. Each element is the
// sum of the same products as with every row of B W̃ formed at once
// (the product's inner dimension, N, is the same), without the P × N
// matrix, which is as large as the design. A candidate's dⱼ still to be
// computed (NaN in dv, see pendingDiag) is set from its row of B W̃
// while the row is at hand, as explicitDiag would set it.
func (s *seqFit) explicitCross(beta []float64, idx []int, p int, ct *mat.Dense, dv []float64) {
	bf := s.f.BFull
	_, n := bf.Dims()
	m, _ := ct.Dims()
	rows := min(p, crossBlock)
	buf := vec.WorkDense(&s.crossBuf, rows, n).RawMatrix()
	cr := ct.RawMatrix()
	for c0 := 0; c0 < p; {
		// The last block takes the remainder, so that no block falls
		// below dense.Gemm's threshold for handing a product to gonum,
		// whose sums round differently.
		c1 := c0 + crossBlock
		if p-c0 < 2*crossBlock {
			c1 = p
		}
		if c1-c0 > rows {
			rows = c1 - c0
			buf = vec.WorkDense(&s.crossBuf, rows, n).RawMatrix()
		}
		for j := c0; j < c1; j++ {
			c := j
			if idx != nil {
				c = idx[j]
			}
			row, src := buf.Data[(j-c0)*buf.Stride:(j-c0)*buf.Stride+n], bf.RawRowView(c)
			if math.IsNaN(dv[c]) {
				dv[c] = design.WeightedSquare(row, beta, src)
			} else {
				design.ScaleBy(row, beta, src)
			}
		}
		dense.Gemm(blas.NoTrans, blas.Trans, 1, s.bA.RawMatrix(),
			blas64.General{Rows: c1 - c0, Cols: n, Stride: buf.Stride, Data: buf.Data},
			0, blas64.General{Rows: m, Cols: c1 - c0, Stride: cr.Stride, Data: cr.Data[c0:]})
		c0 = c1
	}
}

// crossBlock is the number of candidates whose rows of B W̃
// explicitCross forms at a time.
const crossBlock = 256

// appendCross appends the row of cross for function j, just added: its
// products with the candidates of the shortlist now, the others when a
// full round needs them (completeCross), so that a function added and
// removed between two full rounds never costs O(P r).
func (s *seqFit) appendCross(j int) {
	if row := s.keptCrossRow(j); row != nil {
		s.cross, s.pending = append(s.cross, row), append(s.pending, false)
		return
	}
	p, r := s.f.BFull.Dims()
	row := make([]float64, p)
	bj := s.f.BFull.RawRowView(j)
	if len(s.short) == 0 {
		blas64.Gemv(blas.NoTrans, 1, s.f.BFull.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: bj}, 0, blas64.Vector{N: p, Inc: 1, Data: row})
		s.cross, s.pending = append(s.cross, row), append(s.pending, false)
		return
	}
	for _, c := range s.short {
		row[c] = vec.Dot(bj, s.f.BFull.RawRowView(c))
	}
	s.cross, s.pending = append(s.cross, row), append(s.pending, true)
}

// completeCross computes the pending rows of cross, all at once
// (crossProducts, where one Gemv per row is bound by memory bandwidth).
func (s *seqFit) completeCross() {
	var rows []int
	for i, pd := range s.pending {
		if pd {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return
	}
	a := make([][]float64, len(rows))
	out := make([][]float64, len(rows))
	for k, i := range rows {
		a[k] = s.f.BFull.RawRowView(s.act[i])
		out[k] = s.cross[i]
		clear(out[k])
	}
	design.CrossProducts(a, s.f.BFull, out, s.knownCross(rows, out))
	for _, i := range rows {
		s.pending[i] = false
	}
}

// Work kept between steps of the sequential solver with non-uniform
// likelihood precisions (classification), where every product with the
// N × M active design costs O(N) per element.
//
// The precisions βₙ change only at the likelihood's update (58), once per
// iteration, and the active set only at additions and removals, while Q_w
// is rebuilt 2–3 times per iteration (after the sweep, after the update,
// at extrapolations): Φ_AᵀWΦ_A, O(N M²), and the rows cₐ = φₐᵀWΦ of the
// candidate statistics, O(N r + P r) each, are kept for the precisions at
// which they were computed and extended or cut as functions are added and
// removed.
type clsCache struct {
	beta []float64 // the precisions of the kept products (a copy)

	// pact and prec: Φ_AᵀWΦ_A for the active set pact (in that order).
	pact []int
	prec []float64 // row-major, len(pact)²

	// current: Q_w was rebuilt for the current ⟨α⟩ and precisions by
	// extrapolate, so that the refresh that follows has nothing to do.
	current bool
	// target is the final pruning threshold (the annealing's end).
	target float64
	// twins[j] is the number of basis functions identical to candidate j
	// that a collapsed problem left out (the facade's seqdup.go), nil if none; twinV
	// holds (twins[j])·vⱼ of their held factors.
	twins []float64
	twinV []float64

	// rows[a] is row a of C = Φ_AᵀWΦ, φₐᵀWΦ for the active function a.
	rows map[int][]float64
}

// fresh reports whether beta equals, bit for bit, the precisions of the
// kept products, and otherwise forgets them and records beta.
func (c *clsCache) fresh(beta []float64) bool {
	if c.beta != nil && design.SameBits(c.beta, beta) {
		return true
	}
	c.beta = append(c.beta[:0], beta...)
	c.pact = c.pact[:0]
	c.prec = c.prec[:0]
	clear(c.rows)
	return false
}

// weightedGramActive sets prec to Φ_AᵀWΦ_A for the current active set and
// precisions beta (upper triangle), from the kept product when the
// precisions are unchanged: unchanged active set, O(M²); one function
// appended, O(N M); one removed, O(M²); otherwise by Syrk, O(N M²).
func (s *seqFit) weightedGramActive(prec *mat.SymDense, beta []float64) {
	c := &s.cls
	m := len(s.act)
	pd := prec.RawSymmetric()
	if c.fresh(beta) {
		k := len(c.pact)
		switch {
		case k == m && equalInts(c.pact, s.act):
			for i := range m {
				copy(pd.Data[i*pd.Stride+i:i*pd.Stride+m], c.prec[i*m+i:(i+1)*m])
			}
			return
		case k+1 == m && equalInts(c.pact, s.act[:k]):
			// Φ_AᵀWφⱼ for the appended function j, O(N M).
			col := make([]float64, m)
			w := make([]float64, s.n)
			for n := range s.n {
				w[n] = beta[n] * s.phiA.At(n, k)
			}
			blas64.Gemv(blas.Trans, 1, s.phiA.RawMatrix(), blas64.Vector{N: s.n, Inc: 1, Data: w}, 0, blas64.Vector{N: m, Inc: 1, Data: col})
			np := make([]float64, m*m)
			for i := range k {
				copy(np[i*m+i:i*m+k], c.prec[i*k+i:(i+1)*k])
				np[i*m+k] = col[i]
			}
			np[k*m+k] = col[k]
			c.setPrec(s.act, np, pd)
			return
		case k == m+1:
			if i := removedAt(c.pact, s.act); i >= 0 {
				np := make([]float64, m*m)
				for a, na := 0, 0; a < k; a++ {
					if a == i {
						continue
					}
					for b, nb := a, na; b < k; b++ {
						if b == i {
							continue
						}
						np[na*m+nb] = c.prec[a*k+b]
						nb++
					}
					na++
				}
				c.setPrec(s.act, np, pd)
				return
			}
		}
	}
	s.wbuf = vec.WorkDense(&s.wData, s.n, m)
	w := s.wbuf
	for i := range s.n {
		f := math.Sqrt(beta[i])
		src, dst := s.phiA.RawRowView(i), w.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	// Φ_AᵀWΦ_A by the packed products of internal/dense (both triangles;
	// setPrec reads the upper one), faster than gonum's Syrk here
	// (docs/benchmarks.md, "Measurements behind choices in the code").
	tmp := make([]float64, m*m)
	dense.Gram(1, w.RawMatrix(), 0, blas64.General{Rows: m, Cols: m, Stride: m, Data: tmp})
	c.setPrec(s.act, tmp, pd)
}

// setPrec keeps p (m × m, upper triangle) as the product for the active
// set act and copies it into the upper triangle of dst.
func (c *clsCache) setPrec(act []int, p []float64, dst blas64.Symmetric) {
	m := len(act)
	c.pact = append(c.pact[:0], act...)
	c.prec = append(c.prec[:0], p...)
	for i := range m {
		copy(dst.Data[i*dst.Stride+i:i*dst.Stride+m], p[i*m+i:(i+1)*m])
	}
}

// equalInts reports whether a and b hold the same elements in the same
// order.
func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if b[i] != v {
			return false
		}
	}
	return true
}

// removedAt returns the position i such that b is a without a[i], or −1.
func removedAt(a, b []int) int {
	if len(a) != len(b)+1 {
		return -1
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if equalInts(a[i+1:], b[i:]) {
		return i
	}
	return -1
}

// activeCross returns C = Φ_AᵀWΦ restricted to the candidates idx (every
// candidate if idx is nil), M × p, for the factored design at the current
// precisions beta: row a is (Wφₐ)ᵀU Bᵀ, O(N r + P r). With idx nil the
// rows are kept (clsCache) and only those of functions added since the
// precisions last changed are computed.
func (s *seqFit) activeCross(beta []float64, idx []int) *mat.Dense {
	m := len(s.act)
	p, r := s.f.BFull.Dims()
	bs := s.f.BFull
	if idx != nil {
		bs = subset.Rows(bs, idx)
		p = len(idx)
	}
	ct := mat.NewDense(m, p, nil)
	c := &s.cls
	var miss []int // positions in the active set
	if idx == nil {
		c.fresh(beta)
		if c.rows == nil {
			c.rows = map[int][]float64{}
		}
		for i, a := range s.act {
			if row, ok := c.rows[a]; ok {
				copy(ct.RawRowView(i), row)
			} else {
				miss = append(miss, i)
			}
		}
	} else {
		miss = subset.Seq(m)
	}
	if len(miss) == 0 {
		return ct
	}
	k := len(miss)
	pw := mat.NewDense(s.n, k, nil)
	for n := range s.n {
		src, dst := s.phiA.RawRowView(n), pw.RawRowView(n)
		for i, a := range miss {
			dst[i] = beta[n] * src[a]
		}
	}
	aw := mat.NewDense(k, r, nil)
	dense.Gemm(blas.Trans, blas.NoTrans, 1, pw.RawMatrix(), s.f.UFull.RawMatrix(), 0, aw.RawMatrix())
	out := mat.NewDense(k, p, nil)
	dense.Gemm(blas.NoTrans, blas.Trans, 1, aw.RawMatrix(), bs.RawMatrix(), 0, out.RawMatrix())
	for i, a := range miss {
		row := out.RawRowView(i)
		copy(ct.RawRowView(a), row)
		if idx == nil {
			c.rows[s.act[a]] = row
		}
	}
	return ct
}

// heldShares sets the excluded shares eₙ = Σⱼ vⱼφₙⱼ² = uₙᵀVuₙ of the
// factored design, V = Bᵀ diag(v) B (r × r), (S4): V by Gemm on the
// blocks of its upper triangle (gramBlocks), and, with V = LLᵀ,
// eₙ = ‖Lᵀuₙ‖² by one triangular product, O(P r²/2 + N r²/2), where
// forming V and UV by full products costs O(P r² + N r²). If V is not
// numerically positive definite, eₙ = uₙᵀ(UV)ₙ.
func (s *seqFit) heldShares() {
	bf := s.f.BFull
	p, r := bf.Dims()
	sb := mat.NewDense(p, r, nil)
	for j, v := range s.heldWeights() {
		if v > 0 {
			src, dst := bf.RawRowView(j), sb.RawRowView(j)
			f := math.Sqrt(v)
			for k, x := range src {
				dst[k] = f * x
			}
		}
	}
	vm := vec.GramBlocks(sb)
	var ch mat.Cholesky
	if ch.Factorize(mat.NewSymDense(r, vm.RawMatrix().Data)) {
		var l mat.TriDense
		ch.LTo(&l)
		y := vec.MulTri(nil, s.f.UFull, l.RawTriangular())
		for i := range s.n {
			row := y.RawRowView(i)
			s.exE[i] = vec.Dot(row, row)
		}
		return
	}
	uv := mat.NewDense(s.n, r, nil)
	dense.Gemm(blas.NoTrans, blas.NoTrans, 1, s.f.UFull.RawMatrix(), vm.RawMatrix(), 0, uv.RawMatrix())
	for i := range s.n {
		s.exE[i] = vec.Dot(uv.RawRowView(i), s.f.UFull.RawRowView(i))
	}
}

// extrapolationPoint returns the point of the sequence that extrapolate
// accelerates: ln⟨α⟩ of the active functions and, with non-uniform
// precisions, ln ξ as well (extrapolateCls).
func (s *seqFit) extrapolationPoint() []float64 {
	pt := logs(s.alpha)
	if s.sched.extrapolateFactor && s.pruneAt <= s.cls.target*1.000001 {
		pt = s.lik.LogParams(pt)
	}
	return pt
}

// extrapolateCls is extrapolate with non-uniform precisions
// (classification): SQUAREM over (ln⟨α⟩, ln ξ) jointly. Near convergence
// ⟨α⟩ and ξ move together, each sweep undoing part of the last update of
// ξ, and extrapolating ⟨α⟩ alone left Ripley's problem at N = 20,000
// converging linearly at about 2 % per iteration for 380 iterations with
// an unchanged active set. The new point is kept, with Q_w at its optimum,
// only if it raises both L of the active model and the trace's full-model
// bound (whose held excluded terms depend on ξ, (S4)); Q_w is current for
// the kept point either way (clsCache.current).
func (s *seqFit) extrapolateCls(iter int, h [][]float64) error {
	x := squarem(h)
	if x == nil {
		return nil
	}
	if err := s.rebuild(iter); err != nil {
		return err
	}
	s.cls.current = true
	before, beforeFull := s.bound(), s.objective()
	m := len(s.alpha)
	oldA := append([]float64(nil), s.alpha...)
	oldXi := s.lik.LogParams(nil)
	hi := math.Min(math.Log(s.prior.A+0.5)-math.Log(s.prior.B), math.Log(s.pruneAt)) // (S5)
	for i := range m {
		s.alpha[i] = math.Exp(lh.ClampLog(x[i], hi))
	}
	s.lik.SetLogParams(x[m:])
	if err := s.rebuild(iter); err == nil && s.bound() >= before && s.objective() >= beforeFull {
		if s.hook != nil {
			s.hook("extrapolate")
		}
		return nil
	}
	copy(s.alpha, oldA)
	s.lik.SetLogParams(oldXi)
	return s.rebuild(iter)
}

// Overrelaxed steps for a crawling classifier (S12). With non-uniform
// precisions the solver can crawl along a direction in which some weights
// grow with no end in sight: a function that carves points of one class
// out of a cluster of the other, its neighbours' weights cancelling it
// elsewhere, reaches weights of 10³–10⁵ with ⟨αₘ⟩ of 10⁻⁶–10⁻¹¹, the ξₙ of
// its points grow by about one an iteration (with a negligible prior the
// update (58) adds the posterior variance of the point's activation,
// about 2ξₙ, to ξₙ²), and the bound rises by 10⁻⁵ nats an iteration,
// for tens of thousands of iterations. SQUAREM (extrapolateCls) does not
// follow such a drift: it
// extrapolates geometric convergence, and the drift's second differences
// are noise. When the fit crawls, settled but not quiet as in (S7), the
// solver therefore steps along the last iteration's move d in
// (ln⟨α⟩, ln ξ), from the current point x to x + d, then on by 2d, 4d, …
// (at most seqRelaxSteps steps), keeping each step that raises L of the
// active model and does not lower the trace's bound, as an accepted
// extrapolation, and stopping at the first that does not: the adaptive
// overrelaxation of bound optimisers (Salakhutdinov & Roweis 2003), with
// a step that doubles so that a drift of many iterations is covered in a
// few evaluations of the bound. TestOverrelax checks it; the ablation
// (docs/ablation.md) measures what it saves.
const seqRelaxSteps = 12

// seqRelaxFirst and seqRelaxWait are the first and the longest wait, in
// crawling iterations, before an attempt of (S12); the wait doubles after
// each attempt that keeps no step and returns to seqRelaxFirst after one
// that keeps a step. Waiting 10 iterations, as (S7), instead of 40 took
// 6,413 iterations instead of 4,855 for the fit described above, and
// lengthened short fits (390 iterations instead of 225 or 237).
const (
	seqRelaxFirst = 40
	seqRelaxWait  = 160
)

// stepBetween returns b − a, or nil if a is nil or of another length.
func stepBetween(a, b []float64) []float64 {
	if a == nil || len(a) != len(b) {
		return nil
	}
	d := make([]float64, len(b))
	for i := range b {
		d[i] = b[i] - a[i]
	}
	return d
}

// overrelax takes the overrelaxed steps of (S12) along d, the last
// iteration's move in extrapolationPoint's coordinates, and reports
// whether any was kept; Q_w is current for the final point either way.
func (s *seqFit) overrelax(iter int, d []float64) (bool, error) {
	m := len(s.alpha)
	x0 := s.extrapolationPoint()
	if s.ctl.NoRelax || len(d) != len(x0) || len(x0) == m {
		return false, nil
	}
	if err := s.rebuild(iter); err != nil {
		return false, err
	}
	s.cls.current = true
	before, beforeFull := s.bound(), s.objective()
	hi := math.Min(math.Log(s.prior.A+0.5)-math.Log(s.prior.B), math.Log(s.pruneAt)) // (S5)
	best := x0
	kept := false
	x := make([]float64, len(x0))
	eta := 1.0
	for range seqRelaxSteps {
		for i := range x {
			x[i] = best[i] + eta*d[i]
		}
		for i := range m {
			s.alpha[i] = math.Exp(lh.ClampLog(x[i], hi))
		}
		s.lik.SetLogParams(x[m:])
		if err := s.rebuild(iter); err != nil || !(s.bound() > before && s.objective() >= beforeFull) {
			break
		}
		before, beforeFull = s.bound(), s.objective()
		best = append([]float64(nil), x...)
		kept = true
		eta *= 2
	}
	for i := range m {
		s.alpha[i] = math.Exp(lh.ClampLog(best[i], hi))
	}
	s.lik.SetLogParams(best[m:])
	if err := s.rebuild(iter); err != nil {
		return kept, err
	}
	if kept && s.hook != nil {
		s.hook("extrapolate")
	}
	return kept, nil
}
