package sequential

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
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
