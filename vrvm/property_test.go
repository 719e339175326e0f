package vrvm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// monotoneTol is the relative decrease of the bound tolerated after a
// single factor update (rounding only).
const monotoneTol = 1e-9

// testProblem is a seeded random test problem.
type testProblem struct {
	name   string
	x      *mat.Dense
	t      []float64
	kernel Kernel
	prior  Prior
	bias   bool
}

func randomProblem(seed uint64, classify bool) testProblem {
	rnd := rand.New(rand.NewPCG(seed, 7))
	n := 10 + rnd.IntN(50)
	d := 1 + rnd.IntN(3)
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.Float64()*4-2)
		}
	}
	t := make([]float64, n)
	for i := range n {
		f := math.Sin(2*x.At(i, 0)) + 0.5*x.At(i, d-1)
		if classify {
			if f+0.3*rnd.NormFloat64() > 0 {
				t[i] = 1
			}
		} else {
			t[i] = f + 0.2*rnd.NormFloat64()
		}
	}
	if classify {
		t[0], t[1] = 0, 1 // both classes present
	}
	kernels := []Kernel{Gaussian{Width: 0.5 + rnd.Float64()*2}, Polynomial{Degree: 1 + rnd.IntN(3), Scale: 1 / float64(d)}, Linear{}}
	priors := []Prior{{}, {A: 1e-3, B: 1e-3, C: 1e-3, D: 1e-3}, {A: 1, B: 0.1, C: 2, D: 0.5}}
	k := kernels[rnd.IntN(len(kernels))]
	p := priors[rnd.IntN(len(priors))]
	return testProblem{name: fmt.Sprintf("seed=%d/n=%d/d=%d/%s", seed, n, d, kernelString(k)), x: x, t: t, kernel: k, prior: p, bias: rnd.IntN(4) != 0}
}

func (p testProblem) design(t *testing.T) (*mat.Dense, []int) {
	_, d := p.x.Dims()
	b := basis{kernel: p.kernel, bias: p.bias, centers: p.x, dim: d}
	cols := seq(b.size())
	phi, err := b.design(p.x, cols)
	if err != nil {
		t.Fatal(err)
	}
	return phi, cols
}

// checkStep fails if the bound decreased across one factor update.
func checkStep(t *testing.T, what string, prev *float64, now float64) {
	t.Helper()
	if now < *prev-monotoneTol*math.Max(1, math.Abs(*prev)) {
		t.Fatalf("bound decreased after the %s update: %.15g -> %.15g", what, *prev, now)
	}
	*prev = now
}

func TestRegressionBoundMonotone(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		p := randomProblem(seed, false)
		t.Run(p.name, func(t *testing.T) {
			pr, _ := p.prior.resolve()
			phi, cols := p.design(t)
			_ = cols
			s := newScheduleState(phi, newGaussLik(p.t, pr, 1/variance(p.t)), pr, 1)
			if err := s.updateW(1); err != nil {
				t.Fatal(err)
			}
			l := s.bound()
			for it := range 40 {
				s.updateAlpha()
				checkStep(t, "alpha", &l, s.bound())
				s.lik.Update()
				checkStep(t, "tau", &l, s.bound())
				if it%10 == 9 {
					s.prune(1e3)
					l = s.bound() // pruning changes the model, not a factor
				}
				if err := s.updateW(it + 2); err != nil {
					t.Fatal(err)
				}
				checkStep(t, "w", &l, s.bound())
			}
		})
	}
}

func TestClassificationBoundMonotone(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		p := randomProblem(seed, true)
		t.Run(p.name, func(t *testing.T) {
			pr, _ := p.prior.resolve()
			phi, cols := p.design(t)
			_ = cols
			s := newScheduleState(phi, newLogitLik(p.t, 1), pr, 1)
			if err := s.updateW(1); err != nil {
				t.Fatal(err)
			}
			l := s.bound()
			for it := range 40 {
				s.updateAlpha()
				checkStep(t, "alpha", &l, s.bound())
				s.lik.Update()
				checkStep(t, "xi", &l, s.bound())
				if err := s.updateW(it + 2); err != nil {
					t.Fatal(err)
				}
				checkStep(t, "w", &l, s.bound())
			}
		})
	}
}

// With Q_α and Q_τ fixed at point masses (huge shapes), Q_w must equal the
// exact Gaussian posterior of w given α and τ: Σ = (A + τΦᵀΦ)⁻¹ by explicit
// inversion, μ = τΣΦᵀt.
func TestQwExactPosterior(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		p := randomProblem(seed, false)
		pr, _ := p.prior.resolve()
		phi, _ := p.design(t)
		_, m := phi.Dims()
		lik := newGaussLik(p.t, pr, 1)
		s := newScheduleState(phi, lik, pr, 1)
		rnd := rand.New(rand.NewPCG(seed, 99))
		alpha := make([]float64, m)
		for i := range alpha {
			alpha[i] = math.Exp(rnd.Float64()*6 - 3)
			s.alpha.bt[i] = s.alpha.at / alpha[i]
		}
		tau := 3.7
		ct := lik.Factor(nil)[0]
		lik.SetFactor([]float64{ct, ct / tau})
		if err := s.updateW(1); err != nil {
			t.Fatal(err)
		}
		var prec mat.Dense
		prec.Mul(phi.T(), phi)
		prec.Scale(tau, &prec)
		for i := range m {
			prec.Set(i, i, prec.At(i, i)+alpha[i])
		}
		var sigma mat.Dense
		if err := sigma.Inverse(&prec); err != nil {
			t.Fatal(err)
		}
		var mu mat.VecDense
		var phiT mat.VecDense
		phiT.MulVec(phi.T(), mat.NewVecDense(len(p.t), p.t))
		mu.MulVec(&sigma, &phiT)
		mu.ScaleVec(tau, &mu)
		got := s.q.sigma()
		for i := range m {
			if !scalar.EqualWithinAbsOrRel(s.q.Mu[i], mu.AtVec(i), 1e-8, 1e-6) {
				t.Errorf("seed %d: mu[%d] = %g, want %g", seed, i, s.q.Mu[i], mu.AtVec(i))
			}
			for j := range m {
				if !scalar.EqualWithinAbsOrRel(got.At(i, j), sigma.At(i, j), 1e-8, 1e-6) {
					t.Fatalf("seed %d: Sigma[%d,%d] = %g, want %g", seed, i, j, got.At(i, j), sigma.At(i, j))
				}
			}
		}
		// The cached expected squared error against its definition
		// Σₙ (tₙ − μᵀφₙ)² + φₙᵀΣφₙ.
		var ew float64
		for n := range len(p.t) {
			row := phi.RawRowView(n)
			var m1, v float64
			for i := range m {
				m1 += row[i] * mu.AtVec(i)
				for j := range m {
					v += row[i] * sigma.At(i, j) * row[j]
				}
			}
			ew += (p.t[n]-m1)*(p.t[n]-m1) + v
		}
		if !scalar.EqualWithinRel(lik.SqErr(), ew, 1e-7) {
			t.Errorf("seed %d: expected squared error %g, want %g", seed, lik.SqErr(), ew)
		}
	}
}

func TestJaakkolaJordanBound(t *testing.T) {
	t.Parallel()
	for _, xi := range []float64{0, 1e-6, 1e-3, 0.1, 0.5, 1, 2.5, 10, 40} {
		for z := -30.0; z <= 30; z += 0.25 {
			b, l := JJBound(z, xi), LogSigmoid(z)
			if b > l+1e-12*math.Max(1, math.Abs(l)) {
				t.Fatalf("JJBound(%g, %g) = %g > ln σ = %g", z, xi, b, l)
			}
		}
		for _, z := range []float64{xi, -xi} {
			if b, l := JJBound(z, xi), LogSigmoid(z); !scalar.EqualWithinAbsOrRel(b, l, 1e-14, 1e-12) {
				t.Errorf("JJBound(%g, %g) = %.17g, want equality with %.17g", z, xi, b, l)
			}
		}
	}
	for _, xi := range []float64{1e-8, 1e-5, 9.9e-5, 1e-4, 1e-3} {
		want := math.Tanh(xi/2) / (4 * xi)
		if got := Lambda(xi); !scalar.EqualWithinRel(got, want, 1e-14) {
			t.Errorf("Lambda(%g) = %.17g, want %.17g", xi, got, want)
		}
	}
	if Lambda(0) != 0.125 || Lambda(math.Inf(1)) != 0 || !math.IsNaN(Lambda(math.NaN())) {
		t.Error("Lambda special cases")
	}
}

// TestBoundTermsIndependent recomputes each term of the regression bound
// by an independent route: Gamma expectations by numerical quadrature
// against gonum's distuv.Gamma, entropies from distuv, the Gaussian terms
// from an explicit Σ.
func TestBoundTermsIndependent(t *testing.T) {
	t.Parallel()
	f, x, _ := loadFixture(t, "sinc50_gauss.json")
	r := &Regressor{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 200}
	_, d := x.Dims()
	b := basis{kernel: r.Kernel, bias: true, centers: x, dim: d}
	cols := seq(b.size())
	phi, _ := b.design(x, cols)
	pr, _ := Prior{}.resolve()
	_ = cols
	lik := newGaussLik(f.T, pr, 5)
	s := newScheduleState(phi, lik, pr, 1)
	for it := range 30 {
		if err := s.updateW(it + 1); err != nil {
			t.Fatal(err)
		}
		s.updateAlpha()
		s.lik.Update()
	}
	got := termsOf(s, lik)
	n := float64(len(f.T))
	qf := lik.Factor(nil) // c̃, d̃
	qTau := distuv.Gamma{Alpha: qf[0], Beta: qf[1]}
	// ⟨ln τ⟩ by quadrature over Q_τ.
	lnTau := quad.Fixed(func(v float64) float64 { return math.Log(v) * qTau.Prob(v) }, 0, math.Inf(1), 2000, nil, 0)
	want := n/2*lnTau - n/2*ln2Pi - qTau.Mean()/2*lik.SqErr()
	if !scalar.EqualWithinRel(got.LnPt, want, 1e-6) {
		t.Errorf("<ln p(t|w,tau)> = %.12g, independent %.12g", got.LnPt, want)
	}
	pTau := distuv.Gamma{Alpha: pr.C, Beta: pr.D}
	if want := pTau.LogProb(qTau.Mean()) + (pr.C-1)*(lnTau-math.Log(qTau.Mean())); !scalar.EqualWithinRel(got.LnPtau, want, 1e-6) {
		t.Errorf("<ln p(tau)> = %.12g, independent %.12g", got.LnPtau, want)
	}
	// H[Q_τ] = −∫ q ln q by quadrature.
	hTau := quad.Fixed(func(v float64) float64 {
		if p := qTau.Prob(v); p > 0 {
			return -p * qTau.LogProb(v)
		}
		return 0
	}, 0, math.Inf(1), 2000, nil, 0)
	if !scalar.EqualWithinAbsOrRel(got.Htau, hTau, 1e-7, 1e-7) {
		t.Errorf("H[Q_tau] = %.12g, quadrature %.12g", got.Htau, hTau)
	}
	var hAlpha, lnPalpha, lnPw float64
	sigma := s.q.sigma()
	for m := range s.alpha.bt {
		qa := distuv.Gamma{Alpha: s.alpha.at, Beta: s.alpha.bt[m]}
		pa := distuv.Gamma{Alpha: pr.A, Beta: pr.B}
		// ⟨ln Γ(αₘ|a,b)⟩ is linear in ⟨α⟩ and ⟨ln α⟩, so it equals the
		// log density at the mean plus (a−1)(⟨ln α⟩ − ln⟨α⟩); the same
		// holds for −H[Q_α]. The log densities come from distuv.
		lnA := mathext.Digamma(s.alpha.at) - math.Log(s.alpha.bt[m])
		hAlpha -= qa.LogProb(qa.Mean()) + (qa.Alpha-1)*(lnA-math.Log(qa.Mean()))
		lnPalpha += pa.LogProb(qa.Mean()) + (pr.A-1)*(lnA-math.Log(qa.Mean()))
		w2 := s.q.Mu[m]*s.q.Mu[m] + sigma.At(m, m)
		lnPw += -0.5*ln2Pi + 0.5*lnA - 0.5*qa.Mean()*w2
	}
	if !scalar.EqualWithinRel(got.Halpha, hAlpha, 1e-10) {
		t.Errorf("H[Q_alpha] = %.12g, distuv %.12g", got.Halpha, hAlpha)
	}
	if !scalar.EqualWithinRel(got.LnPalpha, lnPalpha, 1e-10) {
		t.Errorf("<ln p(alpha)> = %.12g, independent %.12g", got.LnPalpha, lnPalpha)
	}
	if !scalar.EqualWithinRel(got.LnPw, lnPw, 1e-9) {
		t.Errorf("<ln p(w|alpha)> = %.12g, independent %.12g", got.LnPw, lnPw)
	}
	// H[Q_w] from the eigenvalues of Σ.
	var eig mat.EigenSym
	if !eig.Factorize(sigma, false) {
		t.Fatal("eigen decomposition failed")
	}
	var logDet float64
	for _, v := range eig.Values(nil) {
		logDet += math.Log(v)
	}
	m := float64(len(s.q.Mu))
	if want := m/2*(1+ln2Pi) + logDet/2; !scalar.EqualWithinRel(got.Hw, want, 1e-8) {
		t.Errorf("H[Q_w] = %.12g, from eigenvalues %.12g", got.Hw, want)
	}
}

// TestFixtureTerms compares each bound term with the fixture at convergence.
func TestFixtureTerms(t *testing.T) {
	t.Parallel()
	f, x, _ := loadFixture(t, "sinc50_gauss.json")
	r := &Regressor{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, MaxIter: 100000, Tol: 1e-14, ParamTol: 1e-11}
	_, d := x.Dims()
	b := basis{kernel: r.Kernel, bias: true, centers: x, dim: d}
	cols := seq(b.size())
	phi, _ := b.design(x, cols)
	c, _ := r.options().resolve()
	pr := c.prior
	_ = cols
	lik := newGaussLik(f.T, pr, 1/variance(f.T))
	s := newScheduleState(phi, lik, pr, 1)
	if _, _, st, err := s.run(context.Background(), c); err != nil || st != Converged {
		t.Fatalf("status %v, err %v", st, err)
	}
	got := termsOf(s, lik)
	for name, v := range map[string]float64{"lnP_t": got.LnPt, "lnP_w": got.LnPw, "lnP_alpha": got.LnPalpha, "H_w": got.Hw, "H_alpha": got.Halpha, "lnP_tau": got.LnPtau, "H_tau": got.Htau} {
		if want := f.Terms[name]; !scalar.EqualWithinAbsOrRel(v, want, 1e-6, 1e-7) {
			t.Errorf("%s = %.12g, fixture %.12g", name, v, want)
		}
	}
}

// boundTerms are the seven terms of the regression bound (39)–(46).
type boundTerms struct {
	LnPt, LnPw, LnPalpha, LnPtau float64 // ⟨ln p(t|w,τ)⟩, ⟨ln p(w|α)⟩, ⟨ln p(α)⟩, ⟨ln p(τ)⟩
	Hw, Halpha, Htau             float64 // entropies of Q_w, Q_α, Q_τ
}

// termsOf returns the terms of the bound of a regression schedule state.
func termsOf(s *scheduleState, lik *gaussLik) boundTerms {
	var b boundTerms
	b.LnPw, b.LnPalpha, b.Hw, b.Halpha = weightTerms(s.prior, s.alpha.at, s.alpha.bt, s.q.SecondMoments(), s.q.LogDet)
	tm := lik.Terms()
	b.LnPt, b.LnPtau, b.Htau = tm[0], tm[1], tm[2]
	return b
}
