package augment

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// The augmentation through a low-rank factor of the training kernel
// matrix (docs/design.md, "Variance away from the data", (A10)–(A13)):
// a pivoted Cholesky factorisation K(X, X) ≈ GGᵀ over r pivots Z (the
// active centres, then training inputs), stopped when the weighted trace of its
// residual is below (A12)'s tolerance, replaces k = K(X, x*) by its
// Nyström approximation k̃ = Gc, c = L⁻¹K(Z, x*), L = G at the pivots.
// Every term of (A1)–(A4) is then a linear or quadratic form in c, whose
// matrices are formed once over the N training rows; a prediction costs
// O(r(d + r + M)) per test point and the model keeps the r pivots, not
// the N training inputs.

const (
	// Tol is η of (A12): the pivoted Cholesky stops once
	// Σₙ Bₙ dₙ ≤ η² min α* (dₙ the residual diagonal), and Q keeps its
	// eigenvalues above ηα*, which bound the relative error of the
	// augmented sd by about 1.5η (A13).
	Tol = 1e-2
	// MaxRank caps the rank r; a kernel matrix that needs more
	// (many inputs, a narrow width) keeps the exact augmentation, or, for
	// a regressor with a floor fitted on more than ExactRows rows, the
	// floor alone (A19).
	MaxRank = 256
	// ExactRows is the most training rows at which a regressor whose
	// kernel matrix fails (A12) keeps the exact form (A19).
	ExactRows = 2048
)

// Settings tune the choice of the low-rank form; the zero value is the
// default, the tests compare the others with it.
type Settings struct {
	Tol     float64 // η of (A12); 0 means the constant Tol
	MaxRank int     // the cap on r; 0 means the constant MaxRank
	Exact   bool    // keep the exact form
	Force   bool    // the low-rank form at the cap even if (A12) is not met
	Full    bool    // keep every pivot of (A12), without (A14)
	// ExactRows is the most training rows at which a regressor with a
	// floor keeps the exact form where (A12) fails (A19); 0 means the
	// constant ExactRows, a negative value no limit.
	ExactRows int
}

// FloorOnly reports whether a regressor with the GP floor (A15)–(A18),
// fitted on n rows, whose kernel matrix failed (A12), predicts with the
// floor alone (A19): above set's ExactRows, unless set asks for the exact
// form or the forced low-rank one.
func (set Settings) FloorOnly(n int) bool {
	rows := set.ExactRows
	if rows == 0 {
		rows = ExactRows
	}
	return !set.Exact && !set.Force && rows >= 0 && n > rows
}

// LowRank is the low-rank form of the augmentation, (A10)–(A11): the
// pivots — first r₁ of the active kernel functions' centres (cols: their
// columns of the design, whose values at x* the prediction has already),
// then the inputs z ((r − r₁) × d) — and one matrix W
// (r × Σ(pₗ + M + 1)) whose columns, for each latent function l, map
// kz = K(Z, x*) to the pₗ coordinates of √(q − α*), to u = Σg and to kᵀr.
type LowRank struct {
	cols []int
	z    *mat.Dense
	w    blas64.General
	lats []latentCols
}

// latentCols is where a latent function's columns start in W, how many
// hold the square root of its (A8) form (p) and of its active functions
// (m), and its α*.
type latentCols struct {
	off, p, m int
	alphaStar float64
}

// weightedCholesky factors K(X, X) ≈ GGᵀ (A10) for the kernel k at the
// rows of x: first on the rows of forced (the active centres, weight 0,
// each unless its residual diagonal is below 10⁻¹⁰ of K), then choosing
// at each step the row of largest weighted residual diagonal Bₙdₙ
// (weight Bₙ), until Σₙ Bₙdₙ ≤ tol2 or maxRank pivots. It returns the
// pivots as rows of [forced; x], Gᵀ over those rows (r × (F + N)), and
// whether the tolerance was met (or, with force, maxRank pivots taken).
func weightedCholesky(k design.Kernel, x, forced *mat.Dense, weight []float64, tol2 float64, maxRank int, force bool) ([]int, *mat.Dense, bool, error) {
	nf := 0
	if forced != nil {
		nf, _ = forced.Dims()
	}
	nx, d := x.Dims()
	n := nf + nx
	xa := mat.NewDense(n, d, nil)
	for i := range n {
		if i < nf {
			xa.SetRow(i, forced.RawRowView(i))
		} else {
			xa.SetRow(i, x.RawRowView(i-nf))
		}
	}
	w := append(make([]float64, nf), weight...)
	diag := make([]float64, n)
	for i := range n {
		xi := xa.RawRowView(i)
		diag[i] = k.Eval(xi, xi)
	}
	diag0 := append([]float64(nil), diag...)
	gt := make([]float64, 0, min(maxRank, 64)*n)
	var piv []int
	col := make([]float64, n)
	centre := seq(n)
	for next := 0; ; {
		var tr, best float64
		p := -1
		for i, v := range diag {
			wv := w[i] * max(0, v)
			tr += wv
			if wv > best {
				best, p = wv, i
			}
		}
		if tr <= tol2 || p < 0 {
			return piv, mat.NewDense(max(1, len(piv)), n, pad(gt, n)), true, nil
		}
		for ; next < nf; next++ {
			if diag[next] > 1e-10*diag0[next] {
				p = next
				next++
				break
			}
		}
		if len(piv) == maxRank || !(diag[p] > 0) {
			if force {
				return piv, mat.NewDense(max(1, len(piv)), n, pad(gt, n)), true, nil
			}
			return piv, nil, false, nil
		}
		if err := choleskyColumn(k, xa, p, gt, diag, col, centre); err != nil {
			return nil, nil, false, err
		}
		for _, q := range piv {
			col[q] = 0 // exactly lower triangular at the pivots
		}
		gt = append(gt, col...)
		piv = append(piv, p)
	}
}

// choleskyColumn sets col to the next column of G for the pivot p of
// the rows of xa, from the previous ones (gt, by rows), and subtracts its
// squares from the residual diagonal diag.
func choleskyColumn(k design.Kernel, xa *mat.Dense, p int, gt, diag, col []float64, centre []int) error {
	n, d := xa.Dims()
	j := len(gt) / n
	if err := design.Fill(k, mat.NewDense(1, n, col), xa.Slice(p, p+1, 0, d).(*mat.Dense), xa, p, centre, false); err != nil {
		return err
	}
	if j > 0 {
		gp := make([]float64, j)
		for i := range j {
			gp[i] = gt[i*n+p]
		}
		blas64.Gemv(blas.Trans, -1, blas64.General{Rows: j, Cols: n, Stride: n, Data: gt}, blas64.Vector{N: j, Inc: 1, Data: gp}, 1, blas64.Vector{N: n, Inc: 1, Data: col})
	}
	s := 1 / math.Sqrt(diag[p])
	for i, v := range col {
		v *= s
		col[i] = v
		diag[i] -= v * v
	}
	diag[p] = 0
	return nil
}

// pad returns g, or n zeros for an empty g.
func pad(g []float64, n int) []float64 {
	if len(g) == 0 {
		return make([]float64, n)
	}
	return g
}

// New returns the low-rank form (A10)–(A11) of an augmentation at the
// training inputs x with precisions beta, design phi (N × M) and
// bphi = BΦ, whose kernel functions are centred at the rows of centres
// from design column off, and one latent function per element of lats
// (its Σ, ⟨α⟩, α* and residuals), or nil if the kernel matrix needs more
// than min(MaxRank, N/2) pivots for the tolerance (A12). Unless set asks
// for Full or Force, it keeps the fewest leading pivots of (A14), judged
// at probe points whose design phiAt gives.
func New(set Settings, k Kernel, phiAt Design, x, centres *mat.Dense, off int, phi, bphi *mat.Dense, beta []float64, lats []Latent) (*LowRank, error) {
	n, _ := x.Dims()
	if set.Exact {
		return nil, nil
	}
	as := math.Inf(1)
	for _, l := range lats {
		as = min(as, l.AlphaStar)
	}
	eta, capR := set.Tol, set.MaxRank
	if eta == 0 {
		eta = Tol
	}
	if capR == 0 {
		capR = min(MaxRank, n/2)
	}
	piv, gt, ok, err := weightedCholesky(k.Kernel, x, centres, beta, eta*eta*as, capR, set.Force)
	if err != nil || !ok {
		return nil, err
	}
	nf := gt.RawMatrix().Cols - n
	r := len(piv)
	f := &factor{piv: piv, nf: nf, off: off, x: x, eta: eta, lats: lats}
	f.l = blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: r, Stride: max(1, r), Data: make([]float64, max(1, r*r))}
	for i, p := range piv {
		for j := 0; j <= i; j++ {
			f.l.Data[i*r+j] = gt.At(j, p)
		}
	}
	g := gt.RawMatrix()
	g = blas64.General{Rows: g.Rows, Cols: n, Stride: g.Stride, Data: g.Data[nf:]} // the training rows
	_, f.m = phi.Dims()
	for _, lat := range lats {
		f.forms = append(f.forms, nystromForms(g, phi, bphi, beta, lat, r))
	}
	ny := f.leading(r)
	if ny == nil || set.Full || set.Force {
		return ny, nil
	}
	return f.fewest(ny, k, phiAt)
}

// factor is the pivoted Cholesky factor (A10) of New with each latent
// function's forms of (A11), from which leading builds the low-rank form
// over any number of leading pivots.
type factor struct {
	piv     []int // the pivots, as rows of [centres; x]
	nf, off int   // the number of centres, and the design column of the first
	x       *mat.Dense
	l       blas64.Triangular // L over every pivot
	m       int
	eta     float64
	lats    []Latent
	forms   []latentForm
}

// leading returns the low-rank form over the first r pivots: L, S, Q and
// w are the leading blocks of the forms over all of them, since the
// Cholesky factor's first r columns are those of r pivots; nil where an
// eigendecomposition of Q fails (the exact form).
func (f *factor) leading(r int) *LowRank {
	_, d := f.x.Dims()
	ny := &LowRank{}
	var extra []int
	for _, p := range f.piv[:r] {
		if p < f.nf {
			ny.cols = append(ny.cols, f.off+p)
		} else {
			extra = append(extra, p-f.nf)
		}
	}
	if len(extra) > 0 {
		ny.z = mat.NewDense(len(extra), d, nil)
		for i, p := range extra {
			ny.z.SetRow(i, f.x.RawRowView(p))
		}
	}
	lt := f.l
	lt.N = r
	var blocks []blas64.General
	cols := 0
	for i, lat := range f.lats {
		wl, p := latentW(f.forms[i], lt, f.m, f.eta*lat.AlphaStar)
		if p < 0 {
			return nil // no eigendecomposition: the exact form
		}
		ny.lats = append(ny.lats, latentCols{off: cols, p: p, m: f.m, alphaStar: lat.AlphaStar})
		blocks = append(blocks, wl)
		cols += wl.Cols
	}
	ny.w = joinCols(r, cols, blocks)
	return ny
}

// joinCols returns the r × cols matrix of the blocks side by side.
func joinCols(r, cols int, blocks []blas64.General) blas64.General {
	w := blas64.General{Rows: r, Cols: cols, Stride: max(1, cols), Data: make([]float64, max(1, r*cols))}
	off := 0
	for _, b := range blocks {
		for i := range r {
			copy(w.Data[i*w.Stride+off:i*w.Stride+off+b.Cols], b.Data[i*b.Stride:i*b.Stride+b.Cols])
		}
		off += b.Cols
	}
	return w
}

// latentForm is one latent function's S = ΣH (M × r), Q (r × r) and
// w = Gᵀr of (A11), over every pivot.
type latentForm struct {
	s blas64.General
	q *mat.SymDense
	w []float64
}

// nystromForms forms (A11) for the latent function l from Gᵀ (r × N):
// H = ΦᵀBG, S = ΣH, w = Gᵀr and
//
//	Q = Σₙ Bₙ(Gₙ − φₙᵀS)ᵀ(Gₙ − φₙᵀS) + SᵀAS,
//
// the (A8) form of kᵀBk − gᵀΣg for k = Gc, whose residuals G − ΦS are
// formed column by column before the products (no cancellation of
// kᵀBk against gᵀΣg), by blocks of training rows.
func nystromForms(gt blas64.General, phi, bphi *mat.Dense, beta []float64, l Latent, r int) latentForm {
	n, m := phi.Dims()
	if r == 0 {
		return latentForm{}
	}
	s := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
	h := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
	dense.Gemm(blas.Trans, blas.Trans, 1, bphi.RawMatrix(), gt, 0, h)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, l.Sigma, h, 0, s)
	w := make([]float64, r)
	blas64.Gemv(blas.NoTrans, 1, gt, l.Resid, 0, blas64.Vector{N: r, Inc: 1, Data: w})
	const rows = 4096
	res := make([]float64, r*min(rows, n))
	q := mat.NewSymDense(r, nil)
	qs := q.RawSymmetric()
	for lo := 0; lo < n; lo += rows {
		hi := min(n, lo+rows)
		b := hi - lo
		rb := blas64.General{Rows: r, Cols: b, Stride: b, Data: res[:r*b]}
		for j := range r {
			copy(rb.Data[j*b:(j+1)*b], gt.Data[j*gt.Stride+lo:j*gt.Stride+hi])
		}
		pb := phi.Slice(lo, hi, 0, m).(*mat.Dense).RawMatrix()
		dense.Gemm(blas.Trans, blas.Trans, -1, s, pb, 1, rb) // Gᵀ − SᵀΦᵀ
		for j := range r {
			row := rb.Data[j*b : (j+1)*b]
			for i := range row {
				row[i] *= math.Sqrt(beta[lo+i])
			}
		}
		blas64.Syrk(blas.NoTrans, 1, rb, 1, qs)
	}
	as := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
	for a := range m {
		sa := math.Sqrt(max(0, l.Alpha[a]))
		for j := range r {
			as.Data[a*r+j] = sa * s.Data[a*r+j]
		}
	}
	blas64.Syrk(blas.Trans, 1, as, 1, qs)
	return latentForm{s: s, q: q, w: w}
}

// latentW returns, for the leading lt.N pivots of the forms f, with
// Q ≈ VΛVᵀ over its p eigenvalues above floor = ηα* (A12), the
// r × (p + M + 1) matrix L⁻ᵀ[VΛ^½, Sᵀ, w] that c = L⁻¹kz folds into,
// and p (−1 where the eigendecomposition fails).
func latentW(f latentForm, lt blas64.Triangular, m int, floor float64) (blas64.General, int) {
	r := lt.N
	if r == 0 {
		return blas64.General{Rows: 0, Cols: m + 1, Stride: m + 1}, 0
	}
	q := f.q
	if n := q.SymmetricDim(); r < n {
		q = mat.NewSymDense(r, nil)
		q.CopySym(f.q.SliceSym(0, r))
	}
	var eig mat.EigenSym
	var vecs mat.Dense
	if !eig.Factorize(q, true) {
		return blas64.General{}, -1
	}
	vals := eig.Values(nil)
	eig.VectorsTo(&vecs)
	var keep []int
	for j, v := range vals {
		if v > floor {
			keep = append(keep, j)
		}
	}
	p := len(keep)
	cols := p + m + 1
	rs := f.s.Stride
	out := blas64.General{Rows: r, Cols: cols, Stride: cols, Data: make([]float64, r*cols)}
	for i := range r {
		row := out.Data[i*cols : (i+1)*cols]
		for c, j := range keep {
			row[c] = vecs.At(i, j) * math.Sqrt(vals[j])
		}
		for a := range m {
			row[p+a] = f.s.Data[a*rs+i]
		}
		row[p+m] = f.w[i]
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lt, out) // L⁻ᵀ[VΛ^½, Sᵀ, w]
	return out, p
}
