package vrvm

import (
	"context"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
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
	// nystromTol is η of (A12): the pivoted Cholesky stops once
	// Σₙ Bₙ dₙ ≤ η² min α* (dₙ the residual diagonal), and Q keeps its
	// eigenvalues above ηα*, which bound the relative error of the
	// augmented sd by about 1.5η (A13).
	nystromTol = 1e-2
	// nystromMaxRank caps the rank r; a kernel matrix that needs more
	// (many inputs, a narrow width) keeps the exact augmentation.
	nystromMaxRank = 256
)

// lowRankSettings tune the choice of the low-rank form; the zero value
// is the default, the tests compare the others with it.
type lowRankSettings struct {
	tol     float64 // η of (A12); 0 means nystromTol
	maxRank int     // the cap on r; 0 means nystromMaxRank
	exact   bool    // keep the exact form
	force   bool    // the low-rank form at the cap even if (A12) is not met
}

// nystrom is the low-rank form of the augmentation, (A10)–(A11): the
// pivots — first r₁ of the active kernel functions' centres (cols: their
// columns of the design, whose values at x* the prediction has already),
// then the inputs z ((r − r₁) × d) — and one matrix W
// (r × Σ(pₗ + M + 1)) whose columns, for each latent function l, map
// kz = K(Z, x*) to the pₗ coordinates of √(q − α*), to u = Σg and to kᵀr.
type nystrom struct {
	cols []int
	z    *mat.Dense
	w    blas64.General
	lats []nysLatent
}

// nysLatent is where a latent function's columns start in W, how many
// hold the square root of its (A8) form (p) and of its active functions
// (m), and its α*.
type nysLatent struct {
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
func weightedCholesky(k Kernel, x, forced *mat.Dense, weight []float64, tol2 float64, maxRank int, force bool) ([]int, *mat.Dense, bool, error) {
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
func choleskyColumn(k Kernel, xa *mat.Dense, p int, gt, diag, col []float64, centre []int) error {
	n, d := xa.Dims()
	j := len(gt) / n
	if err := kernelBlock(k, mat.NewDense(1, n, col), xa.Slice(p, p+1, 0, d).(*mat.Dense), xa, p, centre, false); err != nil {
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

// newNystrom returns the low-rank form (A10)–(A11) of an augmentation at
// the training inputs x with precisions beta, design phi (N × M) and
// bphi = BΦ, whose kernel functions are centred at the rows of centres
// from design column off, and one latent function per element of lats
// (its Σ, ⟨α⟩, α* and residuals), or nil if the kernel matrix needs more
// than min(nystromMaxRank, N/2) pivots for the tolerance (A12).
func newNystrom(set lowRankSettings, k Kernel, x, centres *mat.Dense, off int, phi, bphi *mat.Dense, beta []float64, lats []augLatent) (*nystrom, error) {
	n, d := x.Dims()
	if set.exact {
		return nil, nil
	}
	as := math.Inf(1)
	for _, l := range lats {
		as = min(as, l.alphaStar)
	}
	eta, capR := set.tol, set.maxRank
	if eta == 0 {
		eta = nystromTol
	}
	if capR == 0 {
		capR = min(nystromMaxRank, n/2)
	}
	piv, gt, ok, err := weightedCholesky(k, x, centres, beta, eta*eta*as, capR, set.force)
	if err != nil || !ok {
		return nil, err
	}
	nf := gt.RawMatrix().Cols - n
	r := len(piv)
	ny := &nystrom{}
	l := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: r, Stride: max(1, r), Data: make([]float64, max(1, r*r))}
	var extra []int
	for i, p := range piv {
		if p < nf {
			ny.cols = append(ny.cols, off+p)
		} else {
			extra = append(extra, p-nf)
		}
		for j := 0; j <= i; j++ {
			l.Data[i*r+j] = gt.At(j, p)
		}
	}
	if len(extra) > 0 {
		ny.z = mat.NewDense(len(extra), d, nil)
		for i, p := range extra {
			ny.z.SetRow(i, x.RawRowView(p))
		}
	}
	g := gt.RawMatrix()
	g = blas64.General{Rows: g.Rows, Cols: n, Stride: g.Stride, Data: g.Data[nf:]} // the training rows
	var blocks []blas64.General
	cols := 0
	for _, lat := range lats {
		wl, p := nystromLatent(g, phi, bphi, beta, lat, l, eta)
		if p < 0 {
			return nil, nil // no eigendecomposition: the exact form
		}
		_, m := phi.Dims()
		ny.lats = append(ny.lats, nysLatent{off: cols, p: p, m: m, alphaStar: lat.alphaStar})
		blocks = append(blocks, wl)
		cols += wl.Cols
	}
	ny.w = joinCols(r, cols, blocks)
	return ny, nil
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

// nystromLatent forms (A11) for the latent function l from Gᵀ (r × N)
// and L: H = ΦᵀBG, S = ΣH, w = Gᵀr and
//
//	Q = Σₙ Bₙ(Gₙ − φₙᵀS)ᵀ(Gₙ − φₙᵀS) + SᵀAS,
//
// the (A8) form of kᵀBk − gᵀΣg for k = Gc, whose residuals G − ΦS are
// formed column by column before the products (no cancellation of
// kᵀBk against gᵀΣg), by blocks of training rows; then, with
// Q ≈ VΛVᵀ over its p eigenvalues above ηα* (A12), the r × (p + M + 1)
// matrix L⁻ᵀ[VΛ^½, Sᵀ, w] that c = L⁻¹kz folds into.
func nystromLatent(gt blas64.General, phi, bphi *mat.Dense, beta []float64, l augLatent, lt blas64.Triangular, eta float64) (blas64.General, int) {
	n, m := phi.Dims()
	r := lt.N
	if r == 0 {
		return blas64.General{Rows: 0, Cols: m + 1, Stride: m + 1}, 0
	}
	s := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
	h := blas64.General{Rows: m, Cols: r, Stride: r, Data: make([]float64, m*r)}
	dense.Gemm(blas.Trans, blas.Trans, 1, bphi.RawMatrix(), gt, 0, h)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, l.sigma, h, 0, s)
	w := make([]float64, r)
	blas64.Gemv(blas.NoTrans, 1, gt, l.resid, 0, blas64.Vector{N: r, Inc: 1, Data: w})
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
		sa := math.Sqrt(max(0, l.alpha[a]))
		for j := range r {
			as.Data[a*r+j] = sa * s.Data[a*r+j]
		}
	}
	blas64.Syrk(blas.Trans, 1, as, 1, qs)
	var eig mat.EigenSym
	var vecs mat.Dense
	if !eig.Factorize(q, true) {
		return blas64.General{}, -1
	}
	vals := eig.Values(nil)
	eig.VectorsTo(&vecs)
	var keep []int
	for j, v := range vals {
		if v > eta*l.alphaStar {
			keep = append(keep, j)
		}
	}
	p := len(keep)
	cols := p + m + 1
	out := blas64.General{Rows: r, Cols: cols, Stride: cols, Data: make([]float64, r*cols)}
	for i := range r {
		row := out.Data[i*cols : (i+1)*cols]
		for c, j := range keep {
			row[c] = vecs.At(i, j) * math.Sqrt(vals[j])
		}
		for a := range m {
			row[p+a] = s.Data[a*r+i]
		}
		row[p+m] = w[i]
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lt, out) // L⁻ᵀ[VΛ^½, Sᵀ, w]
	return out, p
}

// nysScratch is a worker's buffers for nystrom.block.
type nysScratch struct{ kz, out, q, pu []float64 }

// adjust augments, through the low-rank form, the latent means and
// variances at the rows of x (the columns cols of f's basis), by blocks
// of rows with their design (block); add receives the latent function,
// the row and the mean and variance increments.
func (ny *nystrom) adjust(f *fitted, x *mat.Dense, cols []int, add func(lat, i int, dm, dv float64)) error {
	n, d := x.Dims()
	m := len(cols)
	size := blockRows(ny.w.Rows + m + ny.w.Cols)
	scratch := make([]nysScratch, runtime.GOMAXPROCS(0))
	return parallelBlocks(context.Background(), n, size, ny.w.Rows+m+ny.w.Cols, func(lo, hi, w int) error {
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		phis, err := f.b.design(xb, cols)
		if err != nil {
			return err
		}
		return ny.block(f.b.kernel, xb, lo, phis.RawMatrix().Data, m, 1, &scratch[w], add)
	})
}

// block augments the rows xb (from row lo) given their design, Φₓ[i, j]
// at phi[i·rs + j·cs]: kz = K(x*, pivots), the centres' values taken
// from the design, and one product Wᵀkz give, for each latent function,
//
//	q = α* + ‖kzᵀL⁻ᵀVΛ^½‖²,  e = K(x*, x*) − φ*ᵀSL⁻¹kz,  kᵀr ≈ wᵀL⁻¹kz   (A11)
//
// and (A2)–(A4) as in augmentBlock. Both kz and the product are held by
// rows of pivots and of W's columns (r × b, (p + M + 1) × b), so that
// the kernel's exponentials and the sums over a block run along rows.
func (ny *nystrom) block(k Kernel, xb *mat.Dense, lo int, phi []float64, rs, cs int, s *nysScratch, add func(lat, i int, dm, dv float64)) error {
	b, _ := xb.Dims()
	r, nc := ny.w.Rows, ny.w.Cols
	r1 := len(ny.cols)
	if len(s.kz) < b*r || len(s.out) < b*nc || len(s.q) < b {
		s.kz, s.out, s.q, s.pu = make([]float64, b*r), make([]float64, b*nc), make([]float64, b), make([]float64, b)
	}
	out := blas64.General{Rows: nc, Cols: b, Stride: b, Data: s.out[:nc*b]}
	if r > 0 {
		kzT := s.kz[:r*b]
		for j, c := range ny.cols {
			row := kzT[j*b : (j+1)*b]
			for i := range row {
				row[i] = phi[i*rs+c*cs]
			}
		}
		if r > r1 {
			if err := kernelBlock(k, mat.NewDense(r-r1, b, kzT[r1*b:]), xb, ny.z, lo, seq(r-r1), true); err != nil {
				return err
			}
		}
		dense.Gemm(blas.Trans, blas.NoTrans, 1, ny.w, blas64.General{Rows: r, Cols: b, Stride: b, Data: kzT}, 0, out)
	} else {
		clear(out.Data)
	}
	self, constant := selfValue(k)
	qv, pu := s.q[:b], s.pu[:b]
	for li, l := range ny.lats {
		sumSquares(qv, out.Data[l.off*b:(l.off+l.p)*b])
		rowDots(pu, out.Data[(l.off+l.p)*b:(l.off+l.p+l.m)*b], phi, rs, cs)
		kr := out.Data[(l.off+l.p+l.m)*b : (l.off+l.p+l.m+1)*b]
		for i := range b {
			kss := self
			if !constant {
				xi := xb.RawRowView(i)
				kss = k.Eval(xi, xi)
			}
			q := l.alphaStar + qv[i]        // (A1), (A11)
			e := kss - pu[i]                // (A3)
			add(li, lo+i, e*kr[i]/q, e*e/q) // (A2), (A4)
		}
	}
	return nil
}

// sumSquares sets q[i] to the sum over the rows of rows (len(q) values
// each, by rows) of their squares at i, four rows a pass.
func sumSquares(q, rows []float64) {
	b := len(q)
	clear(q)
	c := 0
	for ; c+4 <= len(rows)/b; c += 4 {
		r0, r1, r2, r3 := rows[c*b:(c+1)*b], rows[(c+1)*b:(c+2)*b], rows[(c+2)*b:(c+3)*b], rows[(c+3)*b:(c+4)*b]
		r0, r1, r2, r3 = r0[:b], r1[:b], r2[:b], r3[:b]
		for i := range q {
			q[i] += r0[i]*r0[i] + r1[i]*r1[i] + r2[i]*r2[i] + r3[i]*r3[i]
		}
	}
	for ; c < len(rows)/b; c++ {
		for i, v := range rows[c*b : (c+1)*b] {
			q[i] += v * v
		}
	}
}

// rowDots sets p[i] = Σⱼ Φₓ[i, j]·rows[j][i] over the rows of rows
// (len(p) values each), Φₓ[i, j] at phi[i·rs + j·cs]; by four rows a pass
// where Φₓ is held by columns (rs = 1).
func rowDots(p, rows, phi []float64, rs, cs int) {
	b := len(p)
	m := len(rows) / b
	clear(p)
	j := 0
	if rs == 1 {
		for ; j+4 <= m; j += 4 {
			r0, r1, r2, r3 := rows[j*b:(j+1)*b], rows[(j+1)*b:(j+2)*b], rows[(j+2)*b:(j+3)*b], rows[(j+3)*b:(j+4)*b]
			f0, f1, f2, f3 := phi[j*cs:j*cs+b], phi[(j+1)*cs:(j+1)*cs+b], phi[(j+2)*cs:(j+2)*cs+b], phi[(j+3)*cs:(j+3)*cs+b]
			r0, r1, r2, r3 = r0[:b], r1[:b], r2[:b], r3[:b]
			for i := range p {
				p[i] += f0[i]*r0[i] + f1[i]*r1[i] + f2[i]*r2[i] + f3[i]*r3[i]
			}
		}
	}
	for ; j < m; j++ {
		for i, v := range rows[j*b : (j+1)*b] {
			p[i] += phi[i*rs+j*cs] * v
		}
	}
}

// selfValue returns K(x, x) and true for a kernel whose value there is
// the same at every x (Gaussian and ARDGaussian: 1, divided by the scale
// of (U1)), or false for another kernel, whose K(x, x) is evaluated at
// each row.
func selfValue(k Kernel) (float64, bool) {
	switch k := k.(type) {
	case Gaussian, ARDGaussian:
		return 1, true
	case scaledKernel:
		v, ok := selfValue(k.K)
		return v / k.S, ok
	case namedKernel:
		return selfValue(k.k)
	}
	return 0, false
}
