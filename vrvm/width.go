package vrvm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The default width of Regressor (a nil Kernel): the Gaussian width that
// maximises the evidence of the dense model, every kernel function kept
// with one shared weight precision (docs/design.md, "The default width", (W1)–(W4)),
// doubled while the sparse fit at it is crowded ((W5), fitWidened below).
//
// On m rows x₁ … xₘ with targets t, the dense model is
//
//	t = b1 + PKw + ε,   w ~ N(0, α⁻¹I),   ε ~ N(0, β⁻¹I),   Kᵢⱼ = K(xᵢ, xⱼ),   (W1)
//
// with P = I − 11ᵀ/m (each kernel function centred over the rows, as in
// Bayesian ridge regression with an intercept) and a flat prior on the
// bias b. Since 1 is an eigenvector of the marginal covariance
// β⁻¹I + α⁻¹PKKP, integrating b out leaves the density of the centred
// targets t̃ = Pt on the m − 1 directions orthogonal to 1. With
// PKKP = Σᵢ gᵢuᵢuᵢᵀ and zᵢ = uᵢᵀt̃,
//
//	ln p(t̃ | α, β, r) = −½ Σᵢ [ln 2π + ln cᵢ + zᵢ²/cᵢ] + ½ [ln 2π − ln β],
//	cᵢ = 1/β + gᵢ/α,                                                      (W2)
//
// the sum running over all m eigenvectors and the last term removing that
// of 1/√m (g = 0, z = 0), which need not be one of the uᵢ computed when
// PKKP has other zero eigenvalues. α and β
// take their type-II maximum (MacKay 1992), the fixed point of
//
//	α = γ/‖μ‖²,   β = (m − 1 − γ)/‖t̃ − PKμ‖²,   γ = Σᵢ βgᵢ/(α + βgᵢ),
//	‖μ‖² = Σᵢ β²gᵢzᵢ²/(α + βgᵢ)²,   ‖t̃ − PKμ‖² = Σᵢ α²zᵢ²/(α + βgᵢ)²,          (W3)
//
// each iteration O(m) once PKKP is decomposed. The width r maximises
//
//	E(r) = max_{α,β} ln p(t̃ | α, β, r)                                      (W4)
//
// over ln r, by doubling and halving from the inputs' MedianDistance until
// E falls on both sides, then successive parabolic interpolation (golden-section steps where
// the parabola fails) until the bracket on ln r is narrower than widthTol.
// The search halves up to 4 times and doubles up to 3 times: for a
// target nearly linear in the inputs E keeps rising with r, toward a
// global polynomial, and at widths of many times the MedianDistance every
// kernel function is nearly the bias plus a small linear term, collinear
// with the bias to within (d/r)². The sequential solver assembles such
// functions from the bias start (S8), which holds the bias at a nearly
// flat prior; without it, with the targets' mean 0, no function alone
// raised the bound and the fit ended at the mean. Measured on the
// robustness sweep's sets (vrvm fit with default settings, test RMSE; in
// parentheses at most one doubling with the former bias start, and ridge
// regression):
//
//	y = 3x₀ − 2x₁ + 0.1ε, 3 inputs, 280 rows         0.112, width 17.4 (0.123; 0.109)
//	integer inputs, 4 inputs, 350 rows                0.299, width 21.6 (0.332; 0.300)
//	linear in 10 of 50 inputs, 420 rows, noise sd 5   5.30, width 79.6 (185.7, the mean; 5.37)
//	heavy-tailed noise, Friedman #1 inputs            10.47, width 35.2 (10.57; 10.50)
//
// The sinc, Friedman #1 and diabetes widths (at most 1.3 times the
// MedianDistance) are unchanged. At 16 times the MedianDistance (width
// 159 on the 50-input set) the fit from the bias start ends below the
// mean's bound: 3 doublings is the limit.
//
// Since α = ∞ (every weight zero, the noise alone) is a limit of the
// model, E(r) is at least its value there, the same at every width:
//
//	E(r) ≥ E∞ = −½(m − 1)[ln 2π + ln(‖t̃‖²/(m − 1)) + 1],   β = (m − 1)/‖t̃‖²   (W6)
//
// and (W3) runs to it where the targets' projections zᵢ on the kernel's
// directions are no larger than noise: for large α it multiplies α by
// about Σgᵢ/(βΣgᵢzᵢ²), above 1 when Σgᵢ(βzᵢ² − 1) < 0. evidence stops
// the iteration once every ρᵢ = βgᵢ/(α + βgᵢ) is below widthNoSignal
// (E then differs from E∞ by O(ρ) per direction) and returns E∞
// with α = ∞; it returns E∞ too if the fixed point ends below it. Where
// E is E∞ at r0 and at both neighbours, the evidence gives the search no
// direction: it evaluates every width of its range (the halvings and
// doublings) and brackets the best, or keeps r0 if none is above E∞.
// This happens on targets with little signal on few distinct inputs,
// such as pure noise on 10 inputs each measured 5 times (repeated
// measurements are kept, (D1)); without (W6) the iteration would run α
// up until α² overflowed, β became 0 and the evidence NaN, or, on a
// plateau of E level to rounding, walk the search by rounding errors
// (TestDefaultWidthNoSignal).

// Settings of the width search.
const (
	widthTol       = 0.05  // the search stops when the bracket on ln r is this narrow
	widthMaxSteps  = 4     // halvings from the MedianDistance, at most
	widthMaxUp     = 3     // doublings from the MedianDistance, at most
	widthFixIter   = 500   // iterations of (W3), at most
	widthMaxSearch = 40    // evaluations of E inside the bracket, at most
	widthNoSignal  = 1e-12 // (W6): largest ρᵢ = βgᵢ/(α + βgᵢ) taken as α = ∞
)

// errFlatTargets is returned by denseEvidence for targets without
// variation, which every width explains equally.
var errFlatTargets = errors.New("vrvm: the targets do not vary")

// denseWidth returns the width r of the Gaussian kernel that maximises
// E(r) (W4) on the rows of x, starting from r0 > 0, and the evidence it
// reached; r0 where E is the noise alone's at every width (W6).
func denseWidth(ctx context.Context, x mat.Matrix, t []float64, r0 float64) (float64, float64, error) {
	d := newDenseModel(x, t)
	if d == nil {
		return r0, math.NaN(), errFlatTargets
	}
	calls := 0
	noise := false // the last E evaluated is the noise alone's (W6)
	e := func(u float64) (float64, error) {
		if err := stopped(ctx, calls); err != nil {
			return 0, err
		}
		calls++
		e, alpha, _, err := d.evidence(math.Exp(u))
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
		const lo, hi = -widthMaxSteps, widthMaxUp
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
		steps := widthMaxSteps
		if dir > 0 {
			steps = widthMaxUp
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

// denseModel holds the rows and centred targets of (W1).
type denseModel struct {
	rows  [][]float64
	t     []float64 // t̃ = Pt, divided by max|t̃ₙ|
	shift float64   // ln p of the targets in their units minus that of t
	k     *mat.Dense
}

// newDenseModel returns the dense model of x and t, or nil if t does not
// vary (or its spread is not finite). The targets are centred and scaled
// by s = max|t̃ₙ|, which keeps (W2)–(W3) in range whatever their units and
// shifts E by (m − 1) ln s at every width (added back by denseWidth).
func newDenseModel(x mat.Matrix, t []float64) *denseModel {
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
	return &denseModel{rows: rowsOf(x), t: tc, shift: -float64(len(t)-1) * math.Log(scale)}
}

// evidence returns E(r) (W4) and the α and β that reach it.
func (d *denseModel) evidence(r float64) (e, alpha, beta float64, err error) {
	m := len(d.rows)
	d.k = kernelMatrix(Gaussian{Width: r}, d.rows, d.k)
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

// widthCrowded is the largest effective number of parameters γ, as a
// fraction of the rows, of the fit at the default width (W5).
const widthCrowded = 0.5

// fitWidened fits p, the problem at the default width of (W4), and
// returns its fit unless the fit's effective number of parameters γ
// exceeds widthCrowded times the rows; then it fits again at twice the
// width, up to widthMaxUp times, and keeps the first fit that does not
// (W5), or the last. The sequential solver stops a fit as soon as its γ
// passes the limit, so that a crowded fit costs little; the other
// solvers are judged by their final fit. The Monitor sees every fit, each
// from iteration 1, and a fit it stops is the model. o holds the kernel of p; x and
// t are the training rows; v and newLik are as for fitVariational.
func (f *fitted) fitWidened(ctx context.Context, o options, x mat.Matrix, t []float64, p *problem, v variational,
	newLik func(settings, []float64) (likelihood, error)) (likelihood, error) {
	limit := widthCrowded * float64(len(t))
	userStop := false
	if user := p.set.monitor; user != nil {
		p.set.monitor = func(pr Progress) bool { userStop = user(pr); return userStop }
	}
	for {
		guard := !p.set.noWiden && f.widthDoublings < widthMaxUp
		if guard {
			p.set.gammaLimit = limit
		}
		sol, err := p.set.method.algorithm().fit(ctx, p)
		if !guard || userStop || err != nil || sol == nil || ctx != nil && ctx.Err() != nil ||
			!(effectiveParameters(sol) > limit) {
			return f.finish(p, sol, nil, v, err)
		}
		o.kernel = doubledKernel(o.kernel)
		f.widthDoublings++
		s, b, lik, err := prepareLik(o, x, t, false, newLik)
		if err != nil {
			return nil, err
		}
		s.monitor = p.set.monitor
		p = &problem{basis: b, x: x, lik: lik, set: s}
	}
}

// effectiveParameters returns γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) of the solution sol,
// whose Σ it computes if the solver left it to be computed on use.
func effectiveParameters(sol *solution) float64 {
	if sol.sigma == nil && sol.sigmaOf != nil {
		sol.sigma = sol.sigmaOf() // computed once, and recorded with the fit
	}
	if sol.sigma == nil {
		return 0
	}
	return effectiveParams(sol.alpha, sol.sigma)
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
