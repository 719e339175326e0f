package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// The Sequential and Newton solvers work with a factorisation of the design
// matrix
//
//	Φ = U Bᵀ,   UᵀU = I,
//
// where U is N × r and B is M × r (row m of B belongs to basis function m).
// Every quantity the updates and the bound need reduces to r × r algebra
// plus O(M r) work per iteration: ΦᵀΦ = BBᵀ, Φᵀt = BUᵀt and
// ‖t − Φμ‖² = ‖t‖² − ‖Uᵀt‖² + ‖Uᵀt − Bᵀμ‖².
//
// For positive semi-definite kernels (those whose PSD method reports true,
// such as this package's Gaussian, Polynomial and Linear), the kernel
// matrix K is factorised by pivoted
// Cholesky, K = LLᵀ + R, stopping when the largest diagonal element of the
// residual R is at most factorTol·max Kᵢᵢ. R is positive semi-definite, so
// every element obeys |Rᵢⱼ| ≤ √(RᵢᵢRⱼⱼ): the factored design reproduces Φ
// to about 1e-13 per element, the accuracy of the kernel values
// themselves. Smooth kernels have a rapidly decaying spectrum, so r is
// small (tens for the Gaussian kernel on the one-dimensional sinc data,
// whatever N), and only r kernel columns are ever computed. Other kernels
// and user design matrices use the exact factorisation by Householder QR
// (r = min(N, M)). Memory is O((N + P) r) for P candidate functions.

// factorTol is the pivoted-Cholesky stopping tolerance, relative to the
// largest diagonal kernel value.
const factorTol = 1e-13

// newDesignFactor factorises the design of basis bs at the training rows
// x, stopping with the error of stopped when ctx is done.
func newDesignFactor(ctx context.Context, bs basis, x mat.Matrix) (*design.Factor, error) {
	n, _ := x.Dims()
	f, err := lowRankFactor(ctx, bs, x, n)
	if f != nil || err != nil {
		return f, err
	}
	phi, err := bs.fullCtx(ctx, x)
	if err != nil {
		return nil, err
	}
	return design.DenseFactor(phi), nil
}

// lowRankFactor returns the factorisation of the design by pivoted
// Cholesky of the kernel matrix, or nil (and no error) if the kernel is
// not positive semi-definite or the rank would exceed maxRank.
func lowRankFactor(ctx context.Context, bs basis, x mat.Matrix, maxRank int) (*design.Factor, error) {
	n, _ := x.Dims()
	if bs.kernel == nil || !isPSD(bs.kernel) {
		return nil, nil
	}
	off := bs.offset()
	l, err := pivotedCholesky(ctx, bs.kernel, rowsOf(x), factorTol, min(maxRank, n-off)+1)
	if err != nil {
		return nil, err
	}
	// Φ = [1 | LLᵀ] = W D with W = [1 | L], D = blockdiag(1, Lᵀ).
	k := len(l) // columns of L, stored as rows of l
	if k > maxRank || k+off > n {
		// Full rank, or too large a rank: nothing to gain from the
		// factorisation.
		return nil, nil
	}
	w := mat.NewDense(n, k+off, nil)
	for i := range n {
		row := w.RawRowView(i)
		if off == 1 {
			row[0] = 1
		}
		for j := range k {
			row[off+j] = l[j][i]
		}
	}
	u, r := design.ThinQR(w)
	// B = Dᵀ Rᵀ: the bias row is R[:,0]ᵀ, kernel row m is R[:,off:] L[c,:]ᵀ
	// for the training row c of centre m.
	_, rc := r.Dims()
	m := bs.size()
	bm := mat.NewDense(m, rc, nil)
	lm := make([]float64, k)
	for i := 0; i < m; i++ {
		row := bm.RawRowView(i)
		if off == 1 && i == 0 {
			for c := range rc {
				row[c] = r.At(c, 0)
			}
			continue
		}
		c := bs.row(i - off)
		for j := range k {
			lm[j] = l[j][c]
		}
		for c := range rc {
			var s float64
			rrow := r.RawRowView(c)
			for j := range k {
				s += rrow[off+j] * lm[j]
			}
			row[c] = s
		}
	}
	return &design.Factor{U: u, B: bm, Cols: seq(m), UFull: u, BFull: bm}, nil
}

// seqRankFraction sets when the Sequential solver gives up the low-rank
// factorisation for the explicit design (explicitDesign): when the kernel
// matrix's numerical rank exceeds N/seqRankFraction. The pivoted Cholesky
// costs O(N r²), and with U kept the memory is O((N + P) r); the explicit
// design costs no factorisation and N·P memory, so a kernel matrix of
// rank in the thousands (many inputs, a narrow width) is cheaper explicit.
//
// seqMaxRank caps that rank whatever N: the columns computed before the
// factorisation is abandoned cost O(N r²). Smooth kernels in few
// dimensions stay well below it (docs/benchmarks.md, "Measurements behind
// choices in the code", has the ranks and costs).
const (
	seqRankFraction = 8
	seqMaxRank      = 512
)

// newSeqDesign returns the design of basis bs at the training rows x for
// the Sequential solver: the low-rank factorisation when the kernel
// matrix has a small numerical rank, otherwise the explicit design
// (explicitDesign). A basis with a subset of centres and a large rank
// needs only N × P memory, never N × N.
func newSeqDesign(ctx context.Context, bs basis, x mat.Matrix) (*design.Factor, error) {
	n, _ := x.Dims()
	maxRank := min(seqMaxRank, max(64, n/seqRankFraction))
	high, err := sampleRankAbove(ctx, bs, x, maxRank)
	if err != nil {
		return nil, err
	}
	if !high {
		f, err := lowRankFactor(ctx, bs, x, maxRank)
		if f != nil || err != nil {
			return f, err
		}
	}
	return explicitDesign(ctx, bs, x)
}

// sampleRankAbove reports whether the pivoted Cholesky factorisation of
// the kernel matrix of an evenly spaced sample of 2·maxRank of the n
// training rows (when n is larger) needs more than maxRank columns. The
// kernel matrix of the sample is a principal submatrix of the full one,
// whose eigenvalues it interlaces, so that the full matrix then has at
// least as large a numerical rank, and the factorisation of all n rows,
// O(n·maxRank²), would be abandoned after maxRank columns; the sample
// costs a small fraction of that.
func sampleRankAbove(ctx context.Context, bs basis, x mat.Matrix, maxRank int) (bool, error) {
	n, _ := x.Dims()
	k := 2 * maxRank
	if n <= k || bs.kernel == nil || !isPSD(bs.kernel) {
		return false, nil
	}
	all := rowsOf(x)
	rows := make([][]float64, k)
	for i, r := range spread(n, k) {
		rows[i] = all[r]
	}
	l, err := pivotedCholesky(ctx, bs.kernel, rows, factorTol, maxRank+1)
	return len(l) > maxRank, err
}

// explicitDesign is the trivial factorisation Φ = U Bᵀ with U = I (not
// stored: uFull is nil) and B = Φᵀ, P × N, evaluated by blocks of rows so
// that Φ itself is never held beside B.
func explicitDesign(ctx context.Context, bs basis, x mat.Matrix) (*design.Factor, error) {
	n, d := x.Dims()
	p := bs.size()
	b := mat.NewDense(p, n, nil)
	cols := seq(p)
	step := max(1, (1<<20)/max(p, 1))
	xd := denseOf(x)
	for lo := 0; lo < n; lo += step {
		hi := min(n, lo+step)
		phi, err := bs.designCtx(ctx, xd.Slice(lo, hi, 0, d), cols)
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi; i++ {
			row := phi.RawRowView(i - lo)
			for j, v := range row {
				b.Set(j, i, v)
			}
		}
	}
	return &design.Factor{B: b, Cols: cols, BFull: b, Ident: true}, nil
}

// pivotedCholesky factorises the kernel matrix Kᵢⱼ = K(xᵢ, xⱼ) as LLᵀ up
// to a residual whose diagonal is at most tol·maxᵢ Kᵢᵢ. It returns the
// columns of L. Kernel columns are computed on demand, in parallel. It
// stops with the error of stopped when ctx is done (looking once per
// column).
//
// It stops after maxCols columns whatever the residual.
func pivotedCholesky(ctx context.Context, k Kernel, rows [][]float64, tol float64, maxCols int) ([][]float64, error) {
	n := len(rows)
	d := make([]float64, n)
	if err := kernelValues(k, rows, d, func(i int) int { return i }); err != nil {
		return nil, err
	}
	var dmax float64
	for _, v := range d {
		dmax = math.Max(dmax, v)
	}
	stop := tol * dmax
	var l [][]float64
	for len(l) < min(n, maxCols) {
		p := 0
		for i, v := range d {
			if v > d[p] {
				p = i
			}
		}
		if !(d[p] > stop) {
			break
		}
		if err := stopped(ctx, 0); err != nil {
			return nil, err
		}
		col := make([]float64, n)
		if err := kernelValues(k, rows, col, func(int) int { return p }); err != nil {
			return nil, err
		}
		// col ← (col − Σⱼ lⱼ lⱼ[p]) / √d[p]
		for _, lj := range l {
			blas64.Axpy(-lj[p], blas64.Vector{N: n, Inc: 1, Data: lj}, blas64.Vector{N: n, Inc: 1, Data: col})
		}
		piv := math.Sqrt(d[p])
		for i := range col {
			col[i] /= piv
		}
		for i, v := range col {
			d[i] -= v * v
		}
		d[p] = 0
		l = append(l, col)
	}
	return l, nil
}

// keepFactor restricts the active rows of f to the positions keep (into
// the current active set).
func keepFactor(f *design.Factor, keep []int) {
	f.B = selectRows(f.B, keep)
	f.Cols = selectInts(f.Cols, keep)
}

// compactFactor re-factorises the active design of f by the thin QR of
// Φ_A = U B_Aᵀ when at most half as many functions as the rank remain, so
// that r = M.
func compactFactor(f *design.Factor) {
	m, r := f.B.Dims()
	if 2*m > r {
		return
	}
	n, _ := f.U.Dims()
	phi := mat.NewDense(n, m, nil)
	dense.Gemm(blas.NoTrans, blas.Trans, 1, f.U.RawMatrix(), f.B.RawMatrix(), 0, phi.RawMatrix())
	q, rr := design.ThinQR(phi)
	f.U = q
	f.B = mat.DenseCopyOf(rr.T())
}
