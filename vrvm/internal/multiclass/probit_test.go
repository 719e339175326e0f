package multiclass

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// TestLnPhiRatio checks ln Φ and λ = N/Φ against direct formulas where
// those are accurate and against the asymptotic series in the far tail.
func TestLnPhiRatio(t *testing.T) {
	t.Parallel()
	for _, z := range []float64{-4.9, -2, -0.5, 0, 0.7, 3, 8} {
		lp, lam := lnPhiRatio(z)
		p := 0.5 * math.Erfc(-z/math.Sqrt2)
		n := math.Exp(-0.5*z*z) / math.Sqrt(2*math.Pi)
		if math.Abs(lp-math.Log(p)) > 1e-13*math.Max(1, math.Abs(lp)) || math.Abs(lam-n/p) > 1e-12*math.Max(1, lam) {
			t.Errorf("z=%g: ln Φ %v λ %v, want %v %v", z, lp, lam, math.Log(p), n/p)
		}
	}
	for _, z := range []float64{-5.1, -12, -40, -300} {
		lp, lam := lnPhiRatio(z)
		// Φ(z) ≈ N(z)/x (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸), x = −z.
		x := -z
		ser := 1 - 1/(x*x) + 3/math.Pow(x, 4) - 15/math.Pow(x, 6) + 105/math.Pow(x, 8)
		want := -0.5*z*z - 0.5*likelihood.Ln2Pi - math.Log(x) + math.Log(ser)
		tol := 2*945/math.Pow(x, 10) + 1e-13 // the truncated series' own error
		if math.Abs(lp-want) > tol*math.Abs(want) || math.Abs(lam-x/ser) > tol*x {
			t.Errorf("z=%g: ln Φ %v λ %v, series %v %v", z, lp, lam, want, x/ser)
		}
	}
	// Continuity at the switch between erfc and the continued fraction.
	a, la := lnPhiRatio(-5 + 1e-12)
	b, lb := lnPhiRatio(-5 - 1e-12)
	if math.Abs(a-b) > 1e-10 || math.Abs(la-lb) > 1e-10 {
		t.Errorf("discontinuity at −5: %v %v vs %v %v", a, la, b, lb)
	}
}

// TestProbitIntegral checks the adaptive quadrature (P4)–(P5), (P7)
// against a brute-force trapezoidal rule on a fine grid, including
// integrands whose mass lies far from u = 0.
func TestProbitIntegral(t *testing.T) {
	t.Parallel()
	for _, d := range [][]float64{{0.3}, {1, -2}, {-8, 3, 0.5}, {-30, -25}, {6, 7, 8, 9}, {-3, -3, -3, -3, -3, -3, -3, -3, -3}} {
		e, vv := make([]float64, len(d)), make([]float64, len(d))
		lnZ, vu := probitMoments(d, nil, e, vv)
		// Brute force in log space around the mode: ∫ over [−60, 60].
		const h = 1e-3
		var lg []float64
		hi := math.Inf(-1)
		for u := -60.0; u <= 60; u += h {
			g := -0.5*u*u - 0.5*likelihood.Ln2Pi
			for _, dl := range d {
				lp, _ := lnPhiRatio(u + dl)
				g += lp
			}
			lg = append(lg, g)
			hi = math.Max(hi, g)
		}
		var z, eu, eu2 float64
		el, el2, elz := make([]float64, len(d)), make([]float64, len(d)), make([]float64, len(d))
		for i, g := range lg {
			u := -60 + float64(i)*h
			w := math.Exp(g-hi) * h
			z += w
			eu += w * u
			eu2 += w * u * u
			for l, dl := range d {
				_, lam := lnPhiRatio(u + dl)
				el[l] += w * lam
				el2[l] += w * lam * lam
				elz[l] += w * lam * (u + dl + lam)
			}
		}
		bf := hi + math.Log(z)
		if math.Abs(bf-lnZ) > 1e-7*math.Max(1, math.Abs(bf)) {
			t.Errorf("d=%v: ln Z %v, brute force %v", d, lnZ, bf)
		}
		eu, eu2 = eu/z, eu2/z
		if math.Abs(vu-(eu2-eu*eu)) > 1e-6 {
			t.Errorf("d=%v: Var u %v, brute force %v", d, vu, eu2-eu*eu)
		}
		for l := range d {
			m := el[l] / z
			v := 1 - elz[l]/z + el2[l]/z - m*m
			if math.Abs(e[l]-m) > 1e-6*math.Max(1, m) || math.Abs(vv[l]-v) > 1e-6 {
				t.Errorf("d=%v, l=%d: E λ %v var %v, brute force %v %v", d, l, e[l], vv[l], m, v)
			}
		}
	}
}

// TestProbitMonteCarlo checks, independently of the implementation's
// algebra, the truncated-Gaussian expectations of Q(Y) (P4), (P5), (P7)
// and the likelihood terms of the bound (P6) on a tiny problem: yₙ is
// drawn from N(ψₙ, I) and kept if its largest entry is that of class tₙ
// (rejection sampling), so that Zₙ is the acceptance rate, ỹₙ and the
// variances the sample moments; and (P6) is the average over these
// samples and over Q(W) (each wₖ from N(μₖ, Σₖ)) of
// ln N(yₙ | Wᵀφₙ, I) − ln Q(yₙ).
func TestProbitMonteCarlo(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 18))
	const n, k, m, samples = 4, 3, 2, 400000
	phi, y := tinyMultiDesign(rnd, n, k, m)
	pr := newMCProblem(phi, y, k, Settings{Prior: bound.Prior{A: 1, B: 1}}, Probit)
	for i := range n {
		for j := range k {
			pr.psi.Set(i, j, 1.5*rnd.NormFloat64())
		}
	}
	p := pr.lik.(*probitLik)
	p.setY()
	// Q(Y) moments against rejection sampling.
	for i := range n {
		probitRowMC(t, rnd, p, pr.psi.RawRowView(i), i, y[i], samples)
	}
	probitBoundMC(t, rnd, p, phi, y)
}

// probitRowMC checks row i's Q(yᵢ) of the probit p at ψᵢ = ps, with
// label yi, against samples draws of rejection sampling: Zᵢ (P4), ỹᵢ
// (P5), the variances and I − Cov y (probitRow, probitRowCov).
func probitRowMC(t *testing.T, rnd *rand.Rand, p *probitLik, ps []float64, i, yi, samples int) {
	t.Helper()
	k := len(ps)
	var acc int
	sum, sum2 := make([]float64, k), make([]float64, k)
	cross := make([]float64, k*k)
	yy := make([]float64, k)
	for range samples {
		best := 0
		for j := range k {
			yy[j] = ps[j] + rnd.NormFloat64()
			if yy[j] > yy[best] {
				best = j
			}
		}
		if best != yi {
			continue
		}
		acc++
		for j := range k {
			sum[j] += yy[j]
			sum2[j] += yy[j] * yy[j]
			for l := range k {
				cross[j*k+l] += yy[j] * yy[l]
			}
		}
	}
	z := float64(acc) / float64(samples)
	if se := math.Sqrt(z * (1 - z) / float64(samples)); math.Abs(z-math.Exp(p.lnZ[i])) > 4*se {
		t.Errorf("row %d: Z %v, acceptance rate %v ± %v", i, math.Exp(p.lnZ[i]), z, se)
	}
	vr := make([]float64, k)
	probitRow(make([]float64, k), ps, yi, make([]float64, k-1), make([]float64, k-1), vr, make([]float64, k-1))
	hh := make([]float64, k*k)
	yc := make([]float64, k)
	probitRowCov(yc, ps, yi, hh)
	for j := range k {
		mean := sum[j] / float64(acc)
		v := sum2[j]/float64(acc) - mean*mean
		se := math.Sqrt(v / float64(acc))
		if math.Abs(mean-p.ytil.At(i, j)) > 4*se {
			t.Errorf("row %d class %d: ⟨y⟩ %v, Monte Carlo %v ± %v", i, j, p.ytil.At(i, j), mean, se)
		}
		if math.Abs(v-vr[j]) > 0.02*math.Max(v, 0.1) {
			t.Errorf("row %d class %d: Var y %v, Monte Carlo %v", i, j, vr[j], v)
		}
		if math.Abs(yc[j]-p.ytil.At(i, j)) > 1e-12 {
			t.Errorf("row %d class %d: probitRowCov ⟨y⟩ %v, probitRow %v", i, j, yc[j], p.ytil.At(i, j))
		}
		for l := range k {
			ml := sum[l] / float64(acc)
			cv := cross[j*k+l]/float64(acc) - mean*ml
			want := -cv
			if j == l {
				want = 1 - cv
			}
			// Standard error of a sample covariance ≈ √(2 vⱼvₗ/acc).
			vl := sum2[l]/float64(acc) - ml*ml
			if math.Abs(hh[j*k+l]-want) > 4*math.Sqrt(2*v*vl/float64(acc)) {
				t.Errorf("row %d: (I − Cov y)[%d,%d] %v, Monte Carlo %v", i, j, l, hh[j*k+l], want)
			}
		}
	}
}

// probitBoundMC checks (P6) of the probit p, with design phi and labels
// y, against Monte Carlo draws of W from a random Gaussian Q(W) per class
// and of Y from Q(Y) by rejection sampling.
func probitBoundMC(t *testing.T, rnd *rand.Rand, p *probitLik, phi *mat.Dense, y []int) {
	t.Helper()
	n, m := phi.Dims()
	k := p.p.k
	ybar, vs := mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
	mus := make([][]float64, k)
	chols := make([]mat.Cholesky, k)
	for c := range k {
		sigma := randomCov(rnd, m, 0.2)
		chols[c].Factorize(sigma)
		mus[c] = []float64{rnd.NormFloat64(), rnd.NormFloat64()}
		for i := range n {
			row := phi.RawRowView(i)
			ybar.Set(i, c, vec.Dot(row, mus[c]))
			var sv mat.VecDense
			sv.MulVec(sigma, mat.NewVecDense(m, append([]float64(nil), row...)))
			vs.Set(i, c, vec.Dot(row, sv.RawVector().Data))
		}
	}
	analytic := p.terms(ybar, vs)
	var sumL, sumL2 float64
	const draws = 200000
	yy := make([]float64, k)
	lc := make([]mat.TriDense, k)
	for c := range k {
		chols[c].LTo(&lc[c])
	}
	for range draws {
		var l float64
		w := make([][]float64, k)
		for c := range k {
			zz := mat.NewVecDense(m, []float64{rnd.NormFloat64(), rnd.NormFloat64()})
			var d mat.VecDense
			d.MulVec(&lc[c], zz)
			w[c] = []float64{mus[c][0] + d.AtVec(0), mus[c][1] + d.AtVec(1)}
		}
		for i := range n {
			ps := p.p.psi.RawRowView(i)
			for {
				best := 0
				for j := range k {
					yy[j] = ps[j] + rnd.NormFloat64()
					if yy[j] > yy[best] {
						best = j
					}
				}
				if best == y[i] {
					break
				}
			}
			for j := range k {
				a := vec.Dot(phi.RawRowView(i), w[j])
				// ln N(y | Wᵀφ, I) − ln Q(y), Q(y) = N(y | ψ, I)/Z
				l += -0.5*(yy[j]-a)*(yy[j]-a) + 0.5*(yy[j]-ps[j])*(yy[j]-ps[j])
			}
			l += p.lnZ[i]
		}
		sumL += l
		sumL2 += l * l
	}
	mean := sumL / draws
	se := math.Sqrt((sumL2/draws - mean*mean) / draws)
	if math.Abs(mean-analytic) > 4*se {
		t.Errorf("(P6): Monte Carlo %.5f ± %.5f, analytic %.5f", mean, se, analytic)
	}
	t.Logf("(P6): Monte Carlo %.5f ± %.5f, analytic %.5f", mean, se, analytic)
}

// meanStepProblem is a seeded shared-α probit problem with every
// function active, 2–4 classes and Q(W) fresh: the problems of the mean
// step tests.
func meanStepProblem(t *testing.T, seed uint64) *mcProblem {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 81))
	n, k, m := 20+rnd.IntN(20), 2+rnd.IntN(3), 2+rnd.IntN(4)
	phi := mat.NewDense(n, m, nil)
	y := make([]int, n)
	for i := range n {
		y[i] = rnd.IntN(k)
		for j := range m {
			phi.Set(i, j, rnd.NormFloat64()+float64(y[i]*j%3))
		}
	}
	p := newMCProblem(phi, y, k, Settings{Prior: bound.Prior{A: 1e-3, B: 1e-3}}, Probit)
	c := &mcBlock{mcActive: mcActive{act: subset.Seq(m), alpha: vec.Constant(m, 0.01+rnd.Float64()), del: map[int]int{}}, q: k}
	p.cls = []*mcBlock{c}
	if err := p.fresh(0, 0, false); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProbitBlockStep checks that (P8) with each class's block of the
// Hessian alone (blockStep, for large MK) raises the bound, on the
// problems of TestProbitMeanStep.
func TestProbitBlockStep(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		p := meanStepProblem(t, seed)
		p.set.ProbitBlockStep = true
		before := p.bound()
		p.lik.means(200)
		after := p.bound()
		if !(after > before) {
			t.Errorf("seed %d: block (P8) did not raise the bound: %v to %v", seed, before, after)
		}
	}
}

// TestProbitMeanStep checks that the joint mean step (P8) raises the
// bound and ends at the maximum of F: at a fixed point of the EM update
// of the means, μₖ = ΣΦᵀỹₖ (P3) with ỹ at those means.
func TestProbitMeanStep(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		p := meanStepProblem(t, seed)
		m, k := len(p.cls[0].act), p.k
		before := p.bound()
		p.lik.means(200)
		after := p.bound()
		if after < before-1e-9*math.Abs(before) {
			t.Errorf("seed %d: (P8) lowered the bound from %v to %v", seed, before, after)
		}
		fixed := p.cls[0].mean()
		if err := p.fresh(0, 0, false); err != nil {
			t.Fatal(err)
		}
		em := p.cls[0].mean()
		emBound := p.bound()
		if emBound < after-1e-9*math.Abs(after) {
			t.Errorf("seed %d: (P3) after (P8) lowered the bound", seed)
		}
		// Near the maximum: the EM update gains little, and moves the
		// means little.
		if emBound-after > 1e-9*math.Abs(after) {
			t.Errorf("seed %d: the EM update after (P8) raised the bound from %v to %v", seed, after, emBound)
		}
		var d, norm float64
		for i := range m {
			for c := range k {
				d += (em.At(i, c) - fixed.At(i, c)) * (em.At(i, c) - fixed.At(i, c))
				norm += em.At(i, c) * em.At(i, c)
			}
		}
		if math.Sqrt(d) > 1e-5*math.Max(1, math.Sqrt(norm)) {
			t.Errorf("seed %d: Newton means %v, EM update %v", seed, mat.Formatted(fixed), mat.Formatted(em))
		}
	}
}
