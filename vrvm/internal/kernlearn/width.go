package kernlearn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Settings of the width search (W4).
const (
	widthTol       = 0.05  // the search stops when the bracket on ln r is this narrow
	widthFixIter   = 500   // iterations of (W3), at most
	widthMaxSearch = 40    // evaluations of E inside the bracket, at most
	widthNoSignal  = 1e-12 // (W6): largest ρᵢ = βgᵢ/(α + βgᵢ) taken as α = ∞
)

// MaxSteps is the number of halvings of the width from the start of the
// search (W4), at most.
const MaxSteps = 4

// MaxUp is the number of doublings of the width from the start of the
// search (W4), at most; the vrvm package's doublings of a crowded fit
// (W5) use the same limit.
const MaxUp = 3

// ErrFlatTargets is returned by DenseWidth for targets without
// variation, which every width explains equally.
var ErrFlatTargets = errors.New("vrvm: the targets do not vary")

// Kernel is a kernel function of two rows; the vrvm package's kernels
// satisfy it.
type Kernel interface {
	Eval(x, y []float64) float64
}

// DenseWidth returns the width r of the Gaussian kernel gauss(r) that
// maximises E(r) (W4) on rows with targets t, starting from r0 > 0, and
// the evidence it reached; r0 where E is the noise alone's at every width
// (W6). It returns ErrFlatTargets if t does not vary, and an error
// wrapping the context's cause once ctx is done.
func DenseWidth(ctx context.Context, rows [][]float64, t []float64, r0 float64, gauss func(width float64) Kernel) (float64, float64, error) {
	d := NewDenseModel(rows, t, gauss)
	if d == nil {
		return r0, math.NaN(), ErrFlatTargets
	}
	calls := 0
	noise := false // the last E evaluated is the noise alone's (W6)
	e := func(u float64) (float64, error) {
		if err := stopped(ctx, calls); err != nil {
			return 0, err
		}
		calls++
		e, alpha, _, err := d.Evidence(math.Exp(u))
		noise = math.IsInf(alpha, 1)
		return e, err
	}
	// Bracket: step by ln 2 from u0 in the direction in which E rises.
	const h = math.Ln2
	u0 := math.Log(r0)
	f0, err := e(u0)
	if err != nil {
		return r0, f0, err
	}
	flat := noise
	fl, err := e(u0 - h)
	if err != nil {
		return r0, f0, err
	}
	flat = flat && noise
	fr, err := e(u0 + h)
	if err != nil {
		return r0, f0, err
	}
	flat = flat && noise
	a, b, c := u0-h, u0, u0+h
	fa, fb, fc := fl, f0, fr
	if flat {
		// E is the noise alone's at the three widths, which gives no
		// direction: every width of the range, and the best (W6).
		const lo, hi = -MaxSteps, MaxUp
		var f [hi - lo + 1]float64
		f[-1-lo], f[-lo], f[1-lo] = fl, f0, fr
		best := 0
		for k := lo; k <= hi; k++ {
			if k < -1 || k > 1 {
				if f[k-lo], err = e(u0 + float64(k)*h); err != nil {
					return math.Exp(u0 + float64(best)*h), f[best-lo], err
				}
			}
			if f[k-lo] > f[best-lo] {
				best = k
			}
		}
		b, fb = u0+float64(best)*h, f[best-lo]
		if best == lo || best == hi || best == 0 {
			return math.Exp(b), fb + d.shift, nil // the edge, or r0 where E is flat
		}
		a, c, fa, fc = b-h, b+h, f[best-1-lo], f[best+1-lo]
	} else {
		dir := 1.0
		if fl > f0 && fl >= fr {
			dir = -1
			a, c, fa, fc = c, a, fc, fa // walk toward smaller widths
		}
		steps := MaxSteps
		if dir > 0 {
			steps = MaxUp
		}
		for step := 1; fc > fb && step < steps; step++ {
			a, fa = b, fb
			b, fb = c, fc
			c = b + dir*h
			if fc, err = e(c); err != nil {
				return math.Exp(b), fb, err
			}
		}
		if fc > fb {
			return math.Exp(c), fc + d.shift, nil // still rising at the edge of the range
		}
	}
	b, fb, err = refinePeak(e, a, b, c, fa, fb, fc)
	if err != nil {
		return math.Exp(b), fb, err
	}
	return math.Exp(b), fb + d.shift, nil
}

// refinePeak maximises e on the bracket a, b, c (in either order, e(b)
// above both ends) by successive parabolic interpolation around b, with
// a golden-section step where the parabola's vertex is unusable, until
// the bracket is narrower than widthTol or after widthMaxSearch
// evaluations. It returns the best point and its value (the best so far
// with an error of e).
func refinePeak(e func(float64) (float64, error), a, b, c, fa, fb, fc float64) (float64, float64, error) {
	if a > c {
		a, c, fa, fc = c, a, fc, fa
	}
	const g = 0.3819660112501051 // (3 − √5)/2
	for it := 0; c-a > widthTol && it < widthMaxSearch; it++ {
		v := parabolaVertex(a, b, c, fa, fb, fc)
		if !(v > a+widthTol/4 && v < c-widthTol/4) || math.Abs(v-b) < widthTol/4 {
			if b-a > c-b {
				v = b - g*(b-a)
			} else {
				v = b + g*(c-b)
			}
		}
		fv, err := e(v)
		if err != nil {
			return b, fb, err
		}
		switch {
		case fv > fb && v < b:
			c, fc, b, fb = b, fb, v, fv
		case fv > fb:
			a, fa, b, fb = b, fb, v, fv
		case v < b:
			a, fa = v, fv
		default:
			c, fc = v, fv
		}
	}
	return b, fb, nil
}

// parabolaVertex returns the abscissa of the vertex of the parabola
// through (a, fa), (b, fb), (c, fc), or NaN if they are collinear.
func parabolaVertex(a, b, c, fa, fb, fc float64) float64 {
	p := (b-a)*(b-a)*(fb-fc) - (b-c)*(b-c)*(fb-fa)
	q := (b-a)*(fb-fc) - (b-c)*(fb-fa)
	if q == 0 {
		return math.NaN()
	}
	return b - p/(2*q)
}

// DenseModel holds the rows and centred targets of (W1).
type DenseModel struct {
	rows  [][]float64
	t     []float64 // t̃ = Pt, divided by max|t̃ₙ|
	shift float64   // ln p of the targets in their units minus that of t
	k     *mat.Dense
	gauss func(width float64) Kernel
}

// NewDenseModel returns the dense model of rows and targets t with the
// Gaussian kernel gauss(r) at width r, or nil if t does not vary (or its
// spread is not finite). The targets are centred and scaled by
// s = max|t̃ₙ|, which keeps (W2)–(W3) in range whatever their units and
// shifts E by (m − 1) ln s at every width (added back by DenseWidth).
// The model keeps rows, which it does not modify.
func NewDenseModel(rows [][]float64, t []float64, gauss func(width float64) Kernel) *DenseModel {
	if len(t) < 3 {
		return nil
	}
	var mean float64
	for i, v := range t {
		mean += (v - mean) / float64(i+1) // no overflow of a sum
	}
	tc := make([]float64, len(t))
	var scale float64
	for i, v := range t {
		tc[i] = v - mean
		scale = math.Max(scale, math.Abs(tc[i]))
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil
	}
	for i := range tc {
		tc[i] /= scale
	}
	return &DenseModel{rows: rows, t: tc, shift: -float64(len(t)-1) * math.Log(scale), gauss: gauss}
}

// Rows returns the rows of the model.
func (d *DenseModel) Rows() [][]float64 { return d.rows }

// Targets returns the centred targets t̃ = Pt of (W1), divided by
// max|t̃ₙ|; the model's own slice.
func (d *DenseModel) Targets() []float64 { return d.t }

// Evidence returns E(r) (W4) of the centred, scaled targets and the α and
// β that reach it; α = ∞ where E is the noise alone's (W6).
func (d *DenseModel) Evidence(r float64) (e, alpha, beta float64, err error) {
	m := len(d.rows)
	d.k = KernelMatrix(d.gauss(r), d.rows, d.k)
	// PK: centre every column of K.
	pk := d.k
	centreColumns(pk)
	var g mat.SymDense
	g.SymOuterK(1, pk) // PKKP
	var eig mat.EigenSym
	if !eig.Factorize(&g, true) {
		return math.Inf(-1), 0, 0, fmt.Errorf("vrvm: default width: the eigendecomposition of the kernel matrix at width %g failed", r)
	}
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	// zᵢ = uᵢᵀt̃.
	z := make([]float64, m)
	var tv mat.VecDense
	tv.MulVec(u.T(), mat.NewVecDense(m, d.t))
	var zz, gs float64
	for i := range m {
		z[i] = tv.AtVec(i)
		zz += z[i] * z[i]
		vals[i] = math.Max(vals[i], 0)
		gs += vals[i]
	}
	n := float64(m - 1)
	// (W3) from α = 1/(prior variance of Kw ≈ var t̃), β = 10/var t̃, in
	// terms of ρᵢ = βgᵢ/(α + βgᵢ) ∈ [0, 1), which do not overflow as α
	// grows: γ = Σρᵢ, α‖μ‖² = βΣρᵢ(1 − ρᵢ)zᵢ², ‖t̃ − PKμ‖² = Σ(1 − ρᵢ)²zᵢ².
	// Where the fixed point runs to α = ∞ (the targets' projections on the
	// kernel's directions no larger than noise), it stops once every ρᵢ is
	// below widthNoSignal, and E is its limit, that of the noise alone (W6).
	beta = 10 * n / zz
	alpha = gs / zz
	var gmax float64
	for _, v := range vals {
		gmax = math.Max(gmax, v)
	}
	noSignal := !(gmax > 0)
	for range widthFixIter {
		if beta*gmax/(alpha+beta*gmax) < widthNoSignal {
			noSignal = true
			break
		}
		var gamma, amu2, rss float64
		for i := range m {
			rho := beta * vals[i] / (alpha + beta*vals[i])
			gamma += rho
			amu2 += beta * rho * (1 - rho) * z[i] * z[i]
			rss += (1 - rho) * (1 - rho) * z[i] * z[i]
		}
		if !(amu2 > 0) || !(rss > 0) || gamma >= n {
			break
		}
		na, nb := alpha*(gamma/amu2), (n-gamma)/rss
		done := math.Abs(math.Log(na/alpha)) < 1e-9 && math.Abs(math.Log(nb/beta)) < 1e-9
		alpha, beta = na, nb
		if done {
			break
		}
	}
	// (W6): the limit α = ∞, cᵢ = 1/β on the m − 1 directions orthogonal
	// to 1 with β = (m − 1)/‖t̃‖², the same at every width; E(r) is at
	// least this.
	var tt float64
	for _, v := range d.t {
		tt += v * v
	}
	eNoise := -0.5 * n * (math.Log(2*math.Pi) + math.Log(tt/n) + 1)
	if !noSignal {
		e = 0.5 * (math.Log(2*math.Pi) - math.Log(beta))
		for i := range m {
			c := 1/beta + vals[i]/alpha // (W2)
			e -= 0.5 * (math.Log(2*math.Pi) + math.Log(c) + z[i]*z[i]/c)
		}
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return math.Inf(-1), 0, 0, fmt.Errorf("vrvm: default width: the evidence at width %g is %v", r, e)
		}
		if e > eNoise {
			return e, alpha, beta, nil
		}
	}
	return eNoise, math.Inf(1), n / tt, nil
}

// centreColumns subtracts from every column of a its mean, in place.
func centreColumns(a *mat.Dense) {
	r, c := a.Dims()
	for j := range c {
		var s float64
		for i := range r {
			s += a.At(i, j)
		}
		s /= float64(r)
		for i := range r {
			a.Set(i, j, a.At(i, j)-s)
		}
	}
}

// KernelMatrix returns the kernel matrix Kᵢⱼ = k(rows[i], rows[j]) in
// dst, which it allocates if nil; dst must be len(rows) × len(rows).
func KernelMatrix(k Kernel, rows [][]float64, dst *mat.Dense) *mat.Dense {
	n := len(rows)
	if dst == nil {
		dst = mat.NewDense(n, n, nil)
	}
	kd := dst.RawMatrix().Data
	for i := range n {
		kd[i*n+i] = k.Eval(rows[i], rows[i])
		for j := i + 1; j < n; j++ {
			v := k.Eval(rows[i], rows[j])
			kd[i*n+j], kd[j*n+i] = v, v
		}
	}
	return dst
}

// stopped returns a non-nil error, wrapping the context's cause (so that
// errors.Is(err, context.Canceled) holds), once ctx is done; the text is
// that of the vrvm package's fits.
func stopped(ctx context.Context, iters int) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("vrvm: fit stopped after %d iterations: %w", iters, context.Cause(ctx))
}
