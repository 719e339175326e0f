package vrvm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"

	"github.com/vrvm/vrvm/vrvm/internal/testgen"
)

// Named tolerances of the Newton and sequential solvers' tests.
const (
	// fastMonotoneTol is the relative decrease of the bound tolerated
	// between accepted points of the Newton solver: the rounding error of
	// F (roundF) only.
	fastMonotoneTol = 1e-12
	// factorTolTest bounds the elementwise error of the factored design.
	factorTolTest = 1e-11
	// denseAgreeTol is the relative difference allowed between the bound
	// computed in the factored form and by the dense updates.
	denseAgreeTol = 1e-10
)

func TestNewtonRegressionFixture(t *testing.T) {
	t.Parallel()
	f, x, xt := loadFixture(t, "sinc50_gauss.json")
	r := &Regressor{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, Tol: 1e-14, ParamTol: 1e-11, Method: Newton{}, NoAugment: true}
	if err := r.Fit(x, f.T); err != nil {
		t.Fatal(err)
	}
	t.Logf("status %v after %d iterations (paper schedule: %d)", r.Status(), r.Iterations(), f.Convergence.NIter)
	if r.Status() != Converged {
		t.Errorf("status %v, want converged", r.Status())
	}
	if e := relErr(r.LowerBound(), f.LowerBound); e > boundTol {
		t.Errorf("lower bound %.12g, want %.12g (rel %.2g)", r.LowerBound(), f.LowerBound, e)
	}
	if e := relErr((r.ct / r.dt), f.TauMean); e > predTol {
		t.Errorf("<tau> %.12g, want %.12g (rel %.2g)", (r.ct / r.dt), f.TauMean, e)
	}
	mean, variance, err := r.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "predictive mean", mean, f.PredMean, predTol)
	checkClose(t, "predictive variance", variance, f.PredVar, predTol)
	checkClose(t, "mu", r.Mean(), f.Mu, predTol)
	checkClose(t, "<alpha>", r.Alpha(), f.AlphaMean, predTol)
}

func TestNewtonClassificationFixture(t *testing.T) {
	t.Parallel()
	f, x, xt := loadFixture(t, "binary60_gauss.json")
	c := &Classifier{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, Tol: 1e-14, ParamTol: 1e-11, Method: Newton{}, NoAugment: true}
	if err := c.Fit(x, f.T); err != nil {
		t.Fatal(err)
	}
	t.Logf("status %v after %d iterations (paper schedule: %d)", c.Status(), c.Iterations(), f.Convergence.NIter)
	if c.Status() != Converged {
		t.Errorf("status %v, want converged", c.Status())
	}
	if e := relErr(c.LowerBound(), f.LowerBound); e > boundTol {
		t.Errorf("lower bound %.12g, want %.12g (rel %.2g)", c.LowerBound(), f.LowerBound, e)
	}
	m, v, err := c.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "activation mean", m, f.ActMean, predTol)
	checkClose(t, "activation variance", v, f.ActVar, predTol)
	pp, _ := c.ProbPlugin(xt)
	checkClose(t, "plug-in", pp, f.ProbPlugin, predTol)
	pm, _ := c.ProbModerated(xt)
	checkClose(t, "moderated", pm, f.ProbModerated, predTol)
	checkClose(t, "xi", c.Xi(), f.Xi, predTol)
	checkClose(t, "<alpha>", c.Alpha(), f.AlphaMean, predTol)
}

// laplace is a kernel without a PSD method, so the Newton and sequential
// solvers factorise its design exactly by QR instead of by pivoted
// Cholesky.
type laplace struct{ width float64 }

func (k laplace) Eval(x, y []float64) float64 {
	var d float64
	for i, v := range x {
		d += math.Abs(v - y[i])
	}
	return math.Exp(-d / k.width)
}

// fastProblem is a seeded random problem: N = 10–80 points in 1–3
// dimensions, one of four kernels, one of three priors, with or without
// the bias.
type fastProblem struct {
	name     string
	x        *mat.Dense
	t        []float64
	b        basis
	prior    Prior
	classify bool
}

func newFastProblem(seed uint64, classify bool) fastProblem {
	x, t, rnd := testgen.Problem(seed, classify)
	n, d := x.Dims()
	kernels := []Kernel{Gaussian{Width: 0.5 + 2*rnd.Float64()}, Polynomial{Degree: 1 + rnd.IntN(3), Scale: 1 / float64(d)}, Linear{}, laplace{width: 1 + rnd.Float64()}}
	priors := []Prior{{}, {A: 1e-3, B: 1e-3, C: 1e-3, D: 1e-3}, {A: 1, B: 0.1, C: 2, D: 0.5}}
	k := kernels[rnd.IntN(len(kernels))]
	p, _ := priors[rnd.IntN(len(priors))].resolve()
	b := basis{kernel: k, bias: rnd.IntN(4) != 0, centers: x, dim: d}
	return fastProblem{name: fmt.Sprintf("seed=%d/n=%d/d=%d/%s/bias=%v", seed, n, d, kernelString(k), b.bias), x: x, t: t, b: b, prior: p, classify: classify}
}

// lik returns the likelihood of p at ⟨τ⟩ = 1/var(t) or ξ = 1.
func (p fastProblem) lik() likelihood {
	if p.classify {
		return newLogitLik(p.t, 1)
	}
	return newGaussLik(p.t, p.prior, 1/variance(p.t))
}

// model returns the Newton solver's model of p and its initial parameters
// (⟨α⟩ = 1, ⟨τ⟩ = 1/var(t) or ξ = 1).
func (p fastProblem) model(t *testing.T) (*collapsed, []float64) {
	f, err := newDesignFactor(context.Background(), p.b, p.x)
	if err != nil {
		t.Fatal(err)
	}
	lik := p.lik()
	return newCollapsed(f, lik, p.prior), lik.LogParams(make([]float64, len(f.Cols)))
}

// denseBound evaluates L at the parameters x of the fast model with the
// package's dense updates: Q_w from a Cholesky factorisation of the full
// M × M precision, the bound from the terms (39)–(46) or (59)–(64).
func (p fastProblem) denseBound(t *testing.T, x []float64) float64 {
	phi, err := p.b.design(p.x, seq(p.b.size()))
	if err != nil {
		t.Fatal(err)
	}
	_, m := phi.Dims()
	at := p.prior.A + 0.5
	lik := p.lik()
	lik.SetLogParams(append([]float64(nil), x[m:]...))
	s := newScheduleState(phi, lik, p.prior, 1)
	for i := range m {
		s.alpha.bt[i] = at / math.Exp(x[i])
	}
	if err := s.updateW(1); err != nil {
		t.Fatal(err)
	}
	return s.bound()
}

// TestNewtonMonotone checks on 60 seeded problems (30 regression, 30
// classification; Gaussian, polynomial, linear and a non-PSD-declared
// kernel; three priors; N = 10–80) that the bound never decreases from one
// accepted point of the Newton solver to the next, that the fit ends at a
// fixed point of the paper's schedule, and that the bound the solver
// computes in factored form equals the one the dense updates give.
func TestNewtonMonotone(t *testing.T) {
	t.Parallel()
	for _, classify := range []bool{false, true} {
		for seed := range uint64(30) {
			p := newFastProblem(seed+1, classify)
			t.Run(p.name, func(t *testing.T) {
				model, x0 := p.model(t)
				c, err := options{maxIter: 2000, tol: 1e-13, paramTol: 1e-9, noPrune: true}.resolve()
				if err != nil {
					t.Fatal(err)
				}
				prev := math.Inf(-1)
				steps := 0
				hook := func(step string, f float64) {
					steps++
					if f < prev-fastMonotoneTol*math.Max(1, math.Abs(prev)) {
						t.Errorf("bound decreased at a %s step: %.15g -> %.15g", step, prev, f)
					}
					prev = math.Max(prev, f)
				}
				fr, status, err := runNewton(context.Background(), model, c, x0, hook)
				if err != nil {
					t.Fatal(err)
				}
				if status != Converged {
					t.Errorf("status %v after %d iterations", status, fr.iters)
				}
				var pc float64
				for i, v := range fr.next {
					pc = math.Max(pc, math.Abs(v-fr.x[i]))
				}
				if pc > 1e-8 {
					t.Errorf("not a fixed point of the schedule: parameters move by %.3g", pc)
				}
				if d := p.denseBound(t, fr.x); relErr(fr.f, d) > denseAgreeTol {
					t.Errorf("factored bound %.15g, dense %.15g", fr.f, d)
				}
				t.Logf("%d accepted points, %d iterations, L = %.10g", steps, fr.iters, fr.f)
			})
		}
	}
}

// TestNewtonDerivatives compares the gradient and Hessian of the collapsed
// bound with central differences at random parameters.
func TestNewtonDerivatives(t *testing.T) {
	t.Parallel()
	const h, tol = 1e-5, 1e-6
	for _, classify := range []bool{false, true} {
		p := newFastProblem(3, classify)
		p.b.kernel = Gaussian{Width: 1.5}
		model, x0 := p.model(t)
		rnd := rand.New(rand.NewPCG(5, 5))
		for i := range x0 {
			x0[i] += rnd.NormFloat64()
		}
		model.eval(append([]float64(nil), x0...))
		g, hess, ok := model.newton(newtonMax)
		if !ok {
			t.Fatal("no Newton derivatives")
		}
		for j := range x0 {
			xp := append([]float64(nil), x0...)
			xm := append([]float64(nil), x0...)
			xp[j] += h
			xm[j] -= h
			_, fp, _ := model.eval(xp)
			gp, _, _ := model.newton(newtonMax)
			_, fm, _ := model.eval(xm)
			gm, _, _ := model.newton(newtonMax)
			if d := (fp - fm) / (2 * h); math.Abs(d-g[j]) > tol*(1+math.Abs(g[j])) {
				t.Errorf("%s: dF/dx[%d] = %.10g, central difference %.10g", p.name, j, g[j], d)
			}
			for i := range x0 {
				d := (gp[i] - gm[i]) / (2 * h)
				if want := hess.At(i, j); math.Abs(d-want) > tol*(1+math.Abs(want)) {
					t.Errorf("%s: H[%d][%d] = %.10g, central difference %.10g", p.name, i, j, want, d)
				}
			}
		}
	}
}

// TestDesignFactor checks that the factored design reproduces the design
// matrix and that U has orthonormal columns.
func TestDesignFactor(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 2))
	for _, tc := range []struct {
		n, d int
		k    Kernel
		bias bool
	}{
		{300, 1, Gaussian{Width: 3}, true},
		{300, 1, Gaussian{Width: 0.3}, false},
		{200, 2, Gaussian{Width: 0.5}, true},
		{100, 3, Polynomial{Degree: 3, Scale: 0.3}, true},
		{50, 4, Linear{}, false},
		{40, 2, laplace{width: 1}, true},
	} {
		x := mat.NewDense(tc.n, tc.d, nil)
		for i := range tc.n {
			for j := range tc.d {
				x.Set(i, j, 4*rnd.Float64()-2)
			}
		}
		b := basis{kernel: tc.k, bias: tc.bias, centers: x, dim: tc.d}
		f, err := newDesignFactor(context.Background(), b, x)
		if err != nil {
			t.Fatal(err)
		}
		phi, _ := b.design(x, seq(b.size()))
		var got mat.Dense
		got.Mul(f.U, f.B.T())
		var worst float64
		rows, cols := phi.Dims()
		for i := range rows {
			for j := range cols {
				worst = math.Max(worst, math.Abs(got.At(i, j)-phi.At(i, j)))
			}
		}
		var utu mat.Dense
		utu.Mul(f.U.T(), f.U)
		_, r := f.U.Dims()
		var orth float64
		for i := range r {
			for j := range r {
				want := 0.0
				if i == j {
					want = 1
				}
				orth = math.Max(orth, math.Abs(utu.At(i, j)-want))
			}
		}
		t.Logf("%s n=%d: rank %d, max |Φ − UBᵀ| = %.2g, max |UᵀU − I| = %.2g", kernelString(tc.k), tc.n, r, worst, orth)
		if worst > factorTolTest || orth > factorTolTest {
			t.Errorf("%s: factorisation error %.3g, orthogonality %.3g", kernelString(tc.k), worst, orth)
		}
	}
}

// TestAlphaRoot checks the exact coordinate optimum against the limit of
// the fixed-point iteration (25) on one coordinate, and that it is the
// global maximiser of f on a fine grid.
func TestAlphaRoot(t *testing.T) {
	t.Parallel()
	p, _ := Prior{}.resolve()
	at := p.A + 0.5
	f := func(a, s, q2 float64) float64 { return at*math.Log(a) - p.B*a - 0.5*math.Log(a+s) + 0.5*q2/(a+s) }
	for _, c := range []struct{ s, q float64 }{{1e-6, 1e-6}, {10, 30}, {0.1, 1}, {10, 3}, {100, 5}, {1e4, 50}, {1e3, 0}} {
		got := alphaRoot(p.A, p.B, c.s, c.q*c.q)
		a := 1.0
		for range 1000000 {
			u := a + c.s
			a = at / (p.B + (c.q*c.q/(u*u)+1/u)/2)
		}
		// The iteration converges slowly where its rate is near 1 (in
		// the first case it is still 1% away after 10⁶ steps); compare
		// loosely with it and strictly with the grid.
		if c.s > 1e-3 && relErr(got, a) > 1e-2 {
			t.Errorf("s=%g q=%g: root %.10g, iteration %.10g", c.s, c.q, got, a)
		}
		fg := f(got, c.s, c.q*c.q)
		for e := -8.0; e <= 6; e += 0.01 {
			if v := f(math.Pow(10, e)*(1+1e-9), c.s, c.q*c.q); v > fg+1e-12*math.Abs(fg) {
				t.Errorf("s=%g q=%g: f(%.6g) = %.15g exceeds f(root %.6g) = %.15g", c.s, c.q, math.Pow(10, e), v, got, fg)
				break
			}
		}
	}
}

// TestExcludedTerm checks the closed form of an excluded function's bound
// contribution against a direct maximisation of its terms over the
// variance v of Q(wₘ) = N(0, v) and the mean α of Q_αₘ = Γ(ã, ã/α).
func TestExcludedTerm(t *testing.T) {
	t.Parallel()
	for _, p := range []Prior{{A: 1e-6, B: 1e-6}, {A: 1e-3, B: 1e-3}, {A: 1, B: 0.1}} {
		at := p.A + 0.5
		lgA, _ := math.Lgamma(p.A)
		lgAt, _ := math.Lgamma(at)
		psi := digamma(at)
		terms := func(alpha, v, s float64) float64 {
			bt := at / alpha
			lnA := psi - math.Log(bt)
			return -0.5*ln2Pi + 0.5*lnA - 0.5*alpha*v + // (41*)
				p.A*math.Log(p.B) + (p.A-1)*lnA - p.B*alpha - lgA + // (42)
				0.5*(1+ln2Pi) + 0.5*math.Log(v) + // (44)
				lgAt - (at-1)*psi - math.Log(bt) + at + // (45*)
				-0.5*s*v // the likelihood term
		}
		for _, s := range []float64{0.01, 1, 100, 1e5} {
			best := math.Inf(-1)
			for e := -6.0; e <= 7; e += 0.001 {
				a := math.Pow(10, e)
				best = math.Max(best, terms(a, 1/(a+s), s)) // v = 1/(α + s) is optimal for fixed α
			}
			got := excludedTerm(p, s)
			// The grid's relative step of 0.23% in α leaves its maximum
			// below the true one by up to about 1e-5 relative.
			if got < best-1e-12*math.Abs(best) || got > best+1e-5*math.Abs(best) {
				t.Errorf("prior %+v, s=%g: closed form %.12g, grid maximum %.12g", p, s, got, best)
			}
		}
	}
}

// TestMethodOption checks the Method values: invalid Newton fields and
// Newton for the estimators without it are *OptionErrors, and the names.
func TestMethodOption(t *testing.T) {
	t.Parallel()
	x, tt := mat.NewDense(4, 1, []float64{0, 1, 2, 3}), []float64{0, 1, 0.5, 1}
	for _, c := range []struct {
		m     Method
		field string
	}{{Newton{MaxParams: -1}, "Method.MaxParams"}, {Newton{SwitchTol: -1}, "Method.SwitchTol"}, {Newton{SwitchTol: math.NaN()}, "Method.SwitchTol"}} {
		var oe *OptionError
		if err := (&Regressor{Method: c.m}).Fit(x, tt); !errorsAs(err, &oe) || oe.Field != c.field {
			t.Errorf("%#v: got %v, want an OptionError for %s", c.m, err, c.field)
		}
	}
	labels := []float64{0, 1, 0, 1}
	for name, fit := range map[string]func() error{
		"RVMRegressor":    func() error { return (&RVMRegressor{Method: Newton{}}).Fit(x, tt) },
		"RVMClassifier":   func() error { return (&RVMClassifier{Method: Newton{}}).Fit(x, labels) },
		"MultiClassifier": func() error { return (&MultiClassifier{Method: Newton{}}).Fit(x, []string{"a", "b", "a", "b"}) },
	} {
		var oe *OptionError
		if err := fit(); !errorsAs(err, &oe) || oe.Field != "Method" || oe.Text != "newton" {
			t.Errorf("%s with Newton: got %v, want an OptionError for Method = newton", name, err)
		}
	}
	if (Sequential{}).String() != "sequential" || (PaperSchedule{}).String() != "paper schedule" || (Newton{MaxParams: 9}).String() != "newton" || methodName(nil) != "sequential" {
		t.Error("Method names")
	}
	if got := (&Regressor{}).String(); !strings.Contains(got, "sequential") {
		t.Errorf("Regressor{}.String() = %q, want the method sequential", got)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func digamma(x float64) float64 { return mathext.Digamma(x) }

// TestFullModelBound checks, for every solver, that with pruning
// FullModelBound is the bound L(Q) of the full model for a valid
// factorised Q: the fitted
// posterior over the active weights, and for every excluded function
// Q(wₘ) = N(0, vₘ) independent of the rest with Q_αₘ and vₘ at their
// optimum. L(Q) is recomputed here with the dense design of all N + 1
// functions and the terms (39)–(46) or (59)–(64).
func TestFullModelBound(t *testing.T) {
	t.Parallel()
	for _, solver := range []Method{Sequential{}, PaperSchedule{}, Newton{}} {
		for _, classify := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/classify=%v", solver, classify), func(t *testing.T) { checkFullModelBound(t, solver, classify) })
		}
	}
}

func checkFullModelBound(t *testing.T, solver Method, classify bool) {
	x, tt, k := fullBoundData(classify)
	var reported float64
	var active []int
	var mu []float64
	var cov *mat.SymDense
	var alpha []float64
	var hasBias bool
	reg := &Regressor{Kernel: k, Method: solver}
	cls := &Classifier{Kernel: k, Method: solver}
	if classify {
		if err := cls.Fit(x, tt); err != nil {
			t.Fatal(err)
		}
		reported, active, mu, cov, alpha, hasBias = cls.FullModelBound(), cls.ActiveSet(), cls.Mean(), cls.Covariance(), cls.Alpha(), cls.HasBias()
	} else {
		if err := reg.Fit(x, tt); err != nil {
			t.Fatal(err)
		}
		reported, active, mu, cov, alpha, hasBias = reg.FullModelBound(), reg.ActiveSet(), reg.Mean(), reg.Covariance(), reg.Alpha(), reg.HasBias()
	}
	n, d := x.Dims()
	b := basis{kernel: k, bias: true, centers: x, dim: d}
	phi, _ := b.design(x, seq(b.size()))
	m := b.size()
	var cols []int // active functions, indices into the full basis
	if hasBias {
		cols = append(cols, 0)
	}
	for _, r := range active {
		cols = append(cols, r+1)
	}
	if len(cols) == m {
		t.Fatalf("classify=%v: nothing was pruned", classify)
	}
	p, _ := Prior{}.resolve()
	at := p.A + 0.5
	// Likelihood precision for the excluded functions' factors.
	prec := make([]float64, n)
	if classify {
		for i, xi := range cls.Xi() {
			prec[i] = 2 * Lambda(xi)
		}
	} else {
		for i := range prec {
			prec[i] = (reg.ct / reg.dt)
		}
	}
	muF, sig, bt, logDet := fullQ(t, p, phi, cols, mu, cov, alpha, prec)
	diag := make([]float64, m)
	for i := range m {
		diag[i] = sig.At(i, i)
	}
	w2 := make([]float64, m)
	for i := range m {
		w2[i] = muF[i]*muF[i] + diag[i]
	}
	// φₙᵀ⟨wwᵀ⟩φₙ and Σₙ⟨(tₙ − wᵀφₙ)²⟩ with the full Q.
	act := make([]float64, n)
	e := make([]float64, n)
	var ew float64
	var ps mat.Dense
	ps.Mul(phi, sig)
	for i := range n {
		act[i] = mat.Dot(phi.RowView(i), mat.NewVecDense(m, muF))
		e[i] = act[i]*act[i] + mat.Dot(ps.RowView(i), phi.RowView(i))
		r := tt[i] - act[i]
		ew += r*r + mat.Dot(ps.RowView(i), phi.RowView(i))
	}
	var lik likelihood
	if classify {
		l := newLogitLik(tt, 1)
		l.SetFactor(cls.Xi())
		v := make([]float64, n)
		for i := range v {
			v[i] = e[i] - act[i]*act[i]
		}
		l.Observe(&latent{Mean: act, Vars: v})
		lik = l
	} else {
		ct, dt := reg.TauPosterior()
		g := newGaussLikRows(nil, len(tt), p, 1)
		g.SetFactor([]float64{ct, dt})
		g.Observe(&latent{SqResid: ew}) // Σₙ⟨(tₙ − wᵀφₙ)²⟩
		lik = g
	}
	want := bound(p, at, bt, w2, logDet, lik.Terms())
	t.Logf("classify=%v: %d of %d functions active, reported %.12g, L(Q) %.12g", classify, len(cols), m, reported, want)
	if relErr(reported, want) > denseAgreeTol {
		t.Errorf("classify=%v: reported bound %.12g, L(Q) of the full model %.12g", classify, reported, want)
	}
}

// fullBoundData is checkFullModelBound's problem: a classification
// problem, or 120 sinc rows, and its kernel.
func fullBoundData(classify bool) (*mat.Dense, []float64, Kernel) {
	if classify {
		p := newFastProblem(7, true)
		return p.x, p.t, Gaussian{Width: 1}
	}
	x, tt := mat.NewDense(120, 1, nil), make([]float64, 120)
	rnd := rand.New(rand.NewPCG(3, 3))
	for i := range 120 {
		v := 20*rnd.Float64() - 10
		x.Set(i, 0, v)
		tt[i] = math.Sin(v)/v + 0.1*rnd.NormFloat64()
	}
	return x, tt, Gaussian{Width: 3}
}

// fullQ returns the Q of the full model on the design phi: the active
// functions cols with means mu, covariance cov and ⟨α⟩ alpha, and every
// excluded function with Q(wₘ) = N(0, vₘ) independent of the rest, Q_αₘ
// and vₘ at their optimum for the likelihood's precisions prec: the
// means, the block-diagonal covariance, the rates b̃ of Q_α and ln|Σ|.
func fullQ(t *testing.T, p Prior, phi *mat.Dense, cols []int, mu []float64, cov *mat.SymDense, alpha, prec []float64) (muF []float64, sig *mat.SymDense, bt []float64, logDet float64) {
	t.Helper()
	n, m := phi.Dims()
	at := p.A + 0.5
	muF = make([]float64, m)
	sig = mat.NewSymDense(m, nil)
	bt = make([]float64, m)
	in := make([]bool, m)
	for i, c := range cols {
		in[c] = true
		muF[c] = mu[i]
		bt[c] = at / alpha[i]
		for j, c2 := range cols {
			sig.SetSym(c, c2, cov.At(i, j))
		}
	}
	var ch mat.Cholesky
	ca := mat.NewSymDense(len(cols), nil)
	for i := range cols {
		for j := i; j < len(cols); j++ {
			ca.SetSym(i, j, cov.At(i, j))
		}
	}
	if !ch.Factorize(ca) {
		t.Fatal("covariance not positive definite")
	}
	logDet = ch.LogDet()
	for c := range m {
		if in[c] {
			continue
		}
		var s float64
		for i := range n {
			s += prec[i] * phi.At(i, c) * phi.At(i, c)
		}
		a := alphaRoot(p.A, p.B, s, 0)
		v := 1 / (a + s)
		sig.SetSym(c, c, v)
		bt[c] = at / a
		logDet += math.Log(v)
	}
	return muF, sig, bt, logDet
}
