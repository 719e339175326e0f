package augment

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// The continuum-limit floor of the augmented variance (docs/design.md,
// "Variance away from the data", (A15)–(A18)): the sparse model's prior
// covariance Σₘ K(x, cₘ)K(cₘ, x')/αₘ tends, for centres spread through the
// data, to a multiple of ∫K(x, c)K(c, x')dc, a Gaussian of √2 times the
// kernel's width (A15); the GP with that prior, the model's noise 1/⟨τ⟩
// and a signal variance by its evidence gives a latent variance that the
// augmented one is not let fall below (A18). The GP goes through a
// pivoted Cholesky factor of its kernel matrix at the training inputs
// (A16), so a prediction costs O(m(d + m)) over m ≤ FloorRank pivots,
// whatever N, and the model keeps the m pivots and one m × p matrix.

const (
	// FloorTol is κ of (A16): the factor stops once the trace of its
	// residual is at most κσ²/v, v the targets' variance, so that the gap
	// σ_f² tr(K₂ − GGᵀ)/(2σ²) of the bound (A17) is at most κ/2 at σ_f² = v.
	FloorTol = 1e-2
	// FloorRank caps the floor's pivots m (A16).
	FloorRank = 512
	// floorCells caps the factor's m × N values at 2²⁵ (256 MB), so that
	// m ≤ max(16, 2²⁵/N) (A16).
	floorCells = 1 << 25
	// FloorDrop drops the directions of (A17) whose σ_f² − pᵢ is at most
	// FloorDrop·σ²: since ‖c‖² ≤ K(x*, x*) = 1, that raises v_GP by at
	// most FloorDrop of the noise variance.
	FloorDrop = 1e-2
)

// Floor is the GP floor (A15)–(A18) of a regressor's augmented latent
// variance: the widened kernel k (K(x, x) = 1), its m pivots z, the
// signal variance s and the m × p matrix A = L⁻ᵀVD of (A17), with which
// the GP's latent variance at x* is s·K(x*, x*) − ‖Aᵀk_z‖², k_z = K(z, x*).
type Floor struct {
	k design.Kernel
	z *mat.Dense
	a blas64.General
	s float64
	// lower marks an A that is lower trapezoidal (lowerTrapezoid), whose
	// product skips the zeros above the diagonal (trapezoidProduct).
	lower bool
}

// NewFloor returns the floor (A15)–(A18) for a regressor fitted at the
// rows of x to the targets t with noise precision tau, for the widened
// kernel k (K(x, x) = 1: the model's Gaussian of √2 times its width), or
// nil where the data give no signal variance; maxRank, if positive,
// lowers the cap on its pivots m below (A16)'s. k must have K(x, x) = 1
// at every x.
func NewFloor(k design.Kernel, x *mat.Dense, t []float64, tau float64, maxRank int) (*Floor, error) {
	n, _ := x.Dims()
	if n < 2 || !(tau > 0) || math.IsInf(tau, 0) {
		return nil, nil
	}
	var mean float64
	for _, v := range t {
		mean += v
	}
	mean /= float64(n)
	y := make([]float64, n)
	var yy, trace float64
	for i, v := range t {
		y[i] = v - mean
		yy += y[i] * y[i]
		xi := x.RawRowView(i)
		trace += k.Eval(xi, xi)
	}
	if !(yy > 0) {
		return nil, nil
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	tol := FloorTol / tau / (yy / float64(n)) // (A16): κσ²/v
	capM := min(n, FloorRank, max(16, floorCells/n))
	if maxRank > 0 {
		capM = min(capM, maxRank)
	}
	piv, gt, _, err := weightedCholesky(k, x, nil, w, tol, capM, true)
	if err != nil || len(piv) == 0 {
		return nil, err
	}
	m := len(piv)
	g := gt.RawMatrix()
	c := mat.NewSymDense(m, nil)
	blas64.Syrk(blas.NoTrans, 1, g, 0, c.RawSymmetric()) // GᵀG
	b := make([]float64, m)
	blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: n, Inc: 1, Data: y}, 0, blas64.Vector{N: m, Inc: 1, Data: b})
	for j := range m {
		trace -= blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: g.Data[j*g.Stride : j*g.Stride+n]}, blas64.Vector{N: n, Inc: 1, Data: g.Data[j*g.Stride : j*g.Stride+n]})
	}
	var eig mat.EigenSym
	if !eig.Factorize(c, true) {
		return nil, nil
	}
	lam := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	beta2 := make([]float64, m) // (Vᵀb)ᵢ²/λᵢ, the squared projections of y (A17)
	for i := range m {
		if lam[i] > 1e-12*lam[m-1] {
			v := blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: mat.Col(nil, i, &vecs)}, blas64.Vector{N: m, Inc: 1, Data: b})
			beta2[i] = v * v / lam[i]
		} else {
			lam[i] = 0
		}
	}
	s := signalVariance(lam, beta2, yy, max(0, trace), 1/tau, n)
	if !(s > 0) {
		return nil, nil
	}
	f := &Floor{k: k, s: s, z: mat.NewDense(m, x.RawMatrix().Cols, nil)}
	for i, p := range piv {
		f.z.SetRow(i, x.RawRowView(p))
	}
	f.a, f.lower = floorMatrix(g, piv, &vecs, lam, s, 1/tau), true
	return f, nil
}

// floorMatrix returns A = L⁻ᵀV diag(√(s − pᵢ)) of (A17) over the
// eigenvalues λᵢ > 0 of GᵀG = VΛVᵀ with s − pᵢ = s²λᵢ/(σ² + sλᵢ) above
// FloorDrop·σ², L the factor Gᵀ (m × N, by rows) at the pivots.
func floorMatrix(gt blas64.General, piv []int, vecs *mat.Dense, lam []float64, s, noise float64) blas64.General {
	m := len(piv)
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: make([]float64, m*m)}
	for i, p := range piv {
		for j := 0; j <= i; j++ {
			lt.Data[i*m+j] = gt.Data[j*gt.Stride+p]
		}
	}
	var keep []int
	for i, l := range lam {
		if l > 0 && s*s*l/(noise+s*l) > FloorDrop*noise {
			keep = append(keep, i)
		}
	}
	p := len(keep)
	a := blas64.General{Rows: m, Cols: p, Stride: max(1, p), Data: make([]float64, max(1, m*p))}
	for c, i := range keep {
		d := math.Sqrt(s * s * lam[i] / (noise + s*lam[i]))
		for r := range m {
			a.Data[r*a.Stride+c] = vecs.At(r, i) * d
		}
	}
	if p > 0 {
		blas64.Trsm(blas.Left, blas.Trans, 1, lt, a) // L⁻ᵀVD
		lowerTrapezoid(a)
	}
	return a
}

// lowerTrapezoid replaces the m × p matrix a by the lower trapezoidal L
// of its LQ factorisation a = LQ (Q orthogonal, p × p): aᵀk = QᵀLᵀk and ‖Qᵀv‖ = ‖v‖,
// so ‖aᵀk‖² of (A17) is unchanged for every k (to rounding), and a model
// file keeps its Σᵢ min(i + 1, p) entries on or below the diagonal
// (about half of m·p for p near m).
func lowerTrapezoid(a blas64.General) {
	m, p := a.Rows, a.Cols
	tau := make([]float64, min(m, p))
	work := make([]float64, 1)
	lapack64.Gelqf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Gelqf(a, tau, work, len(work))
	for i := range m {
		for j := i + 1; j < p; j++ {
			a.Data[i*a.Stride+j] = 0
		}
	}
}

// signalVariance maximises over s the collapsed variational bound (A17)
// of the GP y ~ N(0, sGGᵀ + σ²I) with GᵀG's eigenvalues lam, the squared
// projections beta2 of y, yᵀy = yy and the factor's residual trace, by
// golden section on ln s over twelve decades about yy/N.
func signalVariance(lam, beta2 []float64, yy, trace, noise float64, n int) float64 {
	neg := func(ls float64) float64 { // −2 ln p, up to a constant
		s := math.Exp(ls)
		v := yy
		var ld float64
		for i, l := range lam {
			if l == 0 {
				continue
			}
			ld += math.Log1p(s * l / noise)
			v -= beta2[i] * s * l / (s*l + noise)
		}
		return ld + v/noise + s*trace/noise
	}
	c := math.Log(max(yy/float64(n), 1e-300))
	lo, hi := c-14, c+14
	const gr = 0.6180339887498949
	a, b := hi-gr*(hi-lo), lo+gr*(hi-lo)
	fa, fb := neg(a), neg(b)
	for range 80 {
		if fa < fb {
			hi, b, fb = b, a, fa
			a = hi - gr*(hi-lo)
			fa = neg(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + gr*(hi-lo)
			fb = neg(b)
		}
	}
	return math.Exp((lo + hi) / 2)
}

// Apply raises each latent variance at the rows of x to the floor's,
// variance[i] = max(variance[i], s − ‖Aᵀk_z‖²) (A18), K₂(x*, x*) = 1, by
// blocks of rows over GOMAXPROCS workers.
func (f *Floor) Apply(x *mat.Dense, variance []float64) error {
	n, d := x.Dims()
	m, p := f.a.Rows, f.a.Cols
	size := design.BlockRows(m + p)
	kbufs := make([][]float64, runtime.GOMAXPROCS(0))
	obufs := make([][]float64, len(kbufs))
	centre := seq(m)
	return design.Parallel(n, size, m+p, nil, func(lo, hi, w int) error {
		r := hi - lo
		if kbufs[w] == nil {
			kbufs[w], obufs[w] = make([]float64, size*m), make([]float64, size*max(1, p))
		}
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		kb := mat.NewDense(r, m, kbufs[w][:r*m])
		if err := design.Fill(f.k, kb, xb, f.z, lo, centre, false); err != nil {
			return err
		}
		out := blas64.General{Rows: r, Cols: p, Stride: max(1, p), Data: obufs[w][:r*max(1, p)]}
		if p > 0 {
			trapezoidProduct(kb.RawMatrix(), f.a, f.lower, out)
		}
		for i := range r {
			v := f.s // K₂(x*, x*) = 1
			for _, o := range out.Data[i*out.Stride : i*out.Stride+p] {
				v -= o * o
			}
			variance[lo+i] = max(variance[lo+i], v) // (A18)
		}
		return nil
	})
}

// trapezoidProduct sets out = kb·a; for a lower trapezoidal a, by blocks
// of 64 of its columns, each from its diagonal down (about 45 % fewer
// multiply–adds for a square a of 512).
func trapezoidProduct(kb, a blas64.General, lower bool, out blas64.General) {
	if !lower {
		dense.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, a, 0, out)
		return
	}
	const cols = 64
	m, p := a.Rows, a.Cols
	for c0 := 0; c0 < p; c0 += cols {
		c1 := min(p, c0+cols)
		kbs := blas64.General{Rows: kb.Rows, Cols: m - c0, Stride: kb.Stride, Data: kb.Data[c0:]}
		as := blas64.General{Rows: m - c0, Cols: c1 - c0, Stride: a.Stride, Data: a.Data[c0*a.Stride+c0:]}
		os := blas64.General{Rows: out.Rows, Cols: c1 - c0, Stride: out.Stride, Data: out.Data[c0:]}
		dense.Gemm(blas.NoTrans, blas.NoTrans, 1, kbs, as, 0, os)
	}
}

// FloorFile is the floor (A15)–(A18) in a model file: the signal
// variance, the m pivots and the m × p matrix A of (A17), by rows; from
// version 4 as M, P and the flat Floats PivotData and AData, before it as
// the rows Pivots and A.
type FloorFile struct {
	Signal    float64     `json:"signal"`
	Pivots    [][]float64 `json:"pivots,omitempty"`
	A         [][]float64 `json:"a,omitempty"`
	M         int         `json:"m,omitempty"`
	P         int         `json:"p,omitempty"`
	PivotData Floats      `json:"pivot_data,omitempty"`
	AData     Floats      `json:"a_data,omitempty"`
	// Lower marks an A that is lower trapezoidal (lowerTrapezoid): AData
	// holds the first min(i + 1, p) entries of each row i.
	Lower bool `json:"a_lower,omitempty"`
}

// Encode returns the file form of f.
func (f *Floor) Encode() *FloorFile {
	m, p := f.a.Rows, f.a.Cols
	out := &FloorFile{Signal: f.s, M: m, P: p, PivotData: Floats(f.z.RawMatrix().Data[:m*f.z.RawMatrix().Cols]), Lower: p > 0}
	for i := range m * min(p, 1) {
		for _, v := range f.a.Data[i*f.a.Stride+min(i+1, p) : i*f.a.Stride+p] {
			out.Lower = out.Lower && v == 0
		}
	}
	for i := range m * min(p, 1) {
		w := p
		if out.Lower {
			w = min(i+1, p)
		}
		out.AData = append(out.AData, f.a.Data[i*f.a.Stride:i*f.a.Stride+w]...)
	}
	return out
}

// lowerRows returns the m rows of p entries of the lower trapezoidal A
// whose rows, cut after min(i + 1, p) entries, are joined in v.
func lowerRows(v Floats, m, p int) ([][]float64, error) {
	want := 0
	for i := range m {
		want += min(i+1, p)
	}
	if len(v) != want {
		return nil, fmt.Errorf("floor: %d values of a lower trapezoidal %d × %d matrix, want %d", len(v), m, p, want)
	}
	out := make([][]float64, m)
	for i := range m {
		w := min(i+1, p)
		out[i] = append(append(make([]float64, 0, p), v[:w]...), make([]float64, p-w)...)
		v = v[w:]
	}
	return out, nil
}

// rows returns the floor's pivots and A by rows, from either form.
func (ff *FloorFile) rows(dim int) (piv, a [][]float64, err error) {
	if ff.M == 0 {
		return ff.Pivots, ff.A, nil
	}
	if len(ff.Pivots) != 0 || len(ff.A) != 0 || ff.P < 0 {
		return nil, nil, fmt.Errorf("floor: both forms, or p = %d", ff.P)
	}
	if piv, err = ff.PivotData.Rows(ff.M, dim); err != nil {
		return nil, nil, err
	}
	if ff.Lower {
		a, err = lowerRows(ff.AData, ff.M, ff.P)
		return piv, a, err
	}
	a, err = ff.AData.Rows(ff.M, ff.P)
	return piv, a, err
}

// Decode validates the floor of a model file for inputs of dimension dim
// and rebuilds it with the widened kernel k.
func (ff *FloorFile) Decode(k design.Kernel, dim int) (*Floor, error) {
	pivots, rowsA, err := ff.rows(dim)
	if err != nil {
		return nil, err
	}
	m := len(pivots)
	if !(ff.Signal > 0) || math.IsInf(ff.Signal, 0) || m == 0 || len(rowsA) != m {
		return nil, fmt.Errorf("floor: signal %v, %d pivots, %d rows of a", ff.Signal, m, len(rowsA))
	}
	p := len(rowsA[0])
	f := &Floor{k: k, s: ff.Signal, z: mat.NewDense(m, dim, nil), lower: ff.Lower,
		a: blas64.General{Rows: m, Cols: p, Stride: max(1, p), Data: make([]float64, max(1, m*p))}}
	for i := range m {
		if len(pivots[i]) != dim || len(rowsA[i]) != p {
			return nil, fmt.Errorf("floor: row %d has %d inputs and %d entries, want %d and %d", i, len(pivots[i]), len(rowsA[i]), dim, p)
		}
		if err := finite("floor", append(append([]float64(nil), pivots[i]...), rowsA[i]...)); err != nil {
			return nil, err
		}
		f.z.SetRow(i, pivots[i])
		if p > 0 {
			copy(f.a.Data[i*f.a.Stride:], rowsA[i])
		}
	}
	return f, nil
}
