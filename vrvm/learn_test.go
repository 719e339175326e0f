package vrvm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// gradTol is acceptance 1 of issue 17: the analytic gradient of the bound
// in the log kernel parameters agrees with central differences to this
// relative tolerance.
const gradTol = 1e-6

// learnProblem is a seeded problem in d inputs whose target depends on
// the first input only, fitted once with kernel k and pruning on, so that
// the full-model bound has both active and excluded functions.
func learnProblem(t *testing.T, seed uint64, d int, classify bool, k Kernel) (*problem, *solution) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 17))
	n := 30 + rnd.IntN(30)
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.Float64()*4-2)
		}
		f := math.Sin(2 * x.At(i, 0))
		if classify {
			if f+0.3*rnd.NormFloat64() > 0 {
				y[i] = 1
			}
		} else {
			y[i] = f + 0.1*rnd.NormFloat64()
		}
	}
	y[0], y[1] = 0, 1
	o := options{kernel: k, defPrune: defaultRegressionPrune}
	if classify {
		o.defPrune = defaultClassificationPrune
	}
	s, b, err := prepare(o, x, y, false)
	if err != nil {
		t.Fatal(err)
	}
	var lik likelihood = newGaussLik(y, s.prior, 1/variance(y))
	if classify {
		lik = newLogitLik(y, 1)
	}
	p := &problem{basis: b, x: x, lik: lik, set: s}
	sol, err := s.method.algorithm().fit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return p, sol
}

// TestLearnGradient checks the gradient (K5)–(K6) of the full-model bound
// in the log kernel parameters against central differences of (K3)–(K4)
// at the fixed Q, for Gaussian and ARD Gaussian kernels, regression and
// classification (acceptance 1 of issue 17).
func TestLearnGradient(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		for _, classify := range []bool{false, true} {
			d := 1 + int(seed%3)
			kernels := []Learnable{Gaussian{Width: 0.7 + 0.2*float64(seed)}, ARDGaussian{Scales: constant(d, 1)}.WithLogParams([]float64{0.1, -0.2, 0.3}[:d])}
			for _, k := range kernels {
				name := strconv.FormatUint(seed, 10) + "/" + kernelString(k)
				if classify {
					name += "/classify"
				}
				t.Run(name, func(t *testing.T) {
					p, sol := learnProblem(t, seed, d, classify, k)
					if len(sol.cols) == p.basis.size() {
						t.Fatalf("nothing pruned: the excluded terms are not tested")
					}
					q := newFixedQ(p, sol)
					u := k.LogParams()
					grad := make([]float64, len(u))
					q.eval(k, grad)
					for i := range u {
						// Central differences, Richardson-extrapolated:
						// truncation error O(h⁴).
						cd := func(h float64) float64 {
							up, dn := append([]float64(nil), u...), append([]float64(nil), u...)
							up[i] += h
							dn[i] -= h
							return (q.eval(k.WithLogParams(up), nil) - q.eval(k.WithLogParams(dn), nil)) / (2 * h)
						}
						const h = 1e-3
						num := (4*cd(h/2) - cd(h)) / 3
						if !scalar.EqualWithinRel(grad[i], num, gradTol) {
							t.Errorf("∂F/∂u%d = %.12g, central differences %.12g (relative error %.2g)", i, grad[i], num, math.Abs(grad[i]-num)/math.Abs(num))
						}
					}
				})
			}
		}
	}
}

// fullBoundAt evaluates, independently of fixedQ, the full-model bound at
// the Q of sol with the kernel k: the likelihood's terms and the weight
// terms of bound.go for the active functions, plus excludedBound.
func fullBoundAt(t *testing.T, p *problem, sol *solution, k Kernel) float64 {
	t.Helper()
	b := p.basis
	b.kernel = k
	phi, err := b.design(p.x, sol.cols)
	if err != nil {
		t.Fatal(err)
	}
	sigma := sol.sigma
	if sigma == nil {
		sigma = sol.sigmaOf()
	}
	n, m := phi.Dims()
	l := &latent{Mean: make([]float64, n), Vars: make([]float64, n)}
	var ps mat.Dense
	ps.Mul(phi, sigma)
	for i := range n {
		l.Mean[i] = mat.Dot(phi.RowView(i), mat.NewVecDense(m, sol.mu))
		l.Vars[i] = mat.Dot(phi.RowView(i), ps.RowView(i))
		l.SumVar += l.Vars[i]
	}
	p.lik.Observe(l)
	at := p.set.prior.A + 0.5
	bt, w2 := make([]float64, m), make([]float64, m)
	for i, a := range sol.alpha {
		bt[i] = at / a
		w2[i] = sol.mu[i]*sol.mu[i] + sigma.At(i, i)
	}
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		t.Fatal("Σ not positive definite")
	}
	full, err := b.full(p.x)
	if err != nil {
		t.Fatal(err)
	}
	return bound(p.set.prior, at, bt, w2, ch.LogDet(), p.lik.Terms()) +
		excludedBound(p.set.prior, likelihoodPrecisions(full, p.lik), sol.cols)
}

// TestLearnObjectiveIsBound checks that F (K3)–(K4) changes with the
// kernel exactly as the full-model bound of bound.go does at the fixed Q,
// and that at the fitted kernel that bound is the solver's FullModelBound.
func TestLearnObjectiveIsBound(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	for _, classify := range []bool{false, true} {
		k := ARDGaussian{Scales: []float64{0.8, 1.5}}
		p, sol := learnProblem(t, 3, 2, classify, k)
		q := newFixedQ(p, sol)
		k1 := ARDGaussian{Scales: []float64{0.6, 2.5}}
		dF := q.eval(k1, nil) - q.eval(k, nil)
		l0 := fullBoundAt(t, p, sol, k)
		if !scalar.EqualWithinAbsOrRel(l0, sol.full, 1e-6, 1e-6) {
			t.Errorf("classify=%v: full-model bound at the fit %.10g, solver reports %.10g", classify, l0, sol.full)
		}
		dL := fullBoundAt(t, p, sol, k1) - l0
		if !scalar.EqualWithinAbsOrRel(dF, dL, tol, tol) {
			t.Errorf("classify=%v: F changed by %.12g, the full-model bound by %.12g", classify, dF, dL)
		}
	}
}

// TestLearnRaisesBound checks that learning a Gaussian width ends at a
// full-model bound at least that of the fit at its starting width, that
// the trace of refits is recorded, and that the learned model saves and
// loads with its kernel.
func TestLearnRaisesBound(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(80, 5)
	fixed := &Regressor{Kernel: Gaussian{Width: 0.3}}
	if err := fixed.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	r := &Regressor{Kernel: Gaussian{Width: 0.3}, LearnKernel: true, ctl: controls{learnByBound: true}} // learnByBound: this tests learning by the bound (K1)–(K8); a Regressor's LearnKernel learns by the dense model's evidence (E2)–(E6) since issue 47
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	tr := r.LearnTrace()
	if len(tr) < 2 {
		t.Fatalf("learning made %d fits", len(tr))
	}
	if tr[0] != fixed.FullModelBound() {
		t.Errorf("first fit of learning has bound %.10g, the fit at the start width %.10g", tr[0], fixed.FullModelBound())
	}
	if !(r.FullModelBound() > fixed.FullModelBound()) {
		t.Errorf("learned bound %.6g not above the start's %.6g", r.FullModelBound(), fixed.FullModelBound())
	}
	w := r.FittedKernel().(Gaussian).Width
	if w == 0.3 {
		t.Errorf("width did not move from 0.3")
	}
	if r.Kernel.(Gaussian).Width != 0.3 {
		t.Errorf("Fit modified the Kernel option")
	}
	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	e, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.(*Regressor).FittedKernel().(Gaussian).Width; got != w {
		t.Errorf("loaded width %g, saved %g", got, w)
	}
}

// TestLearnOptionErrors checks the errors of kernel learning's options.
func TestLearnOptionErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	y := []float64{0, 1, 1, 0}
	var oe *OptionError
	for name, r := range map[string]*Regressor{
		"polynomial":    {Kernel: Polynomial{Degree: 2}, LearnKernel: true},
		"negative refs": {LearnKernel: true, Learning: KernelLearning{MaxRefits: -1}},
		"NaN shape":     {LearnKernel: true, Learning: KernelLearning{ScaleShape: math.NaN()}},
		"negative rate": {LearnKernel: true, Learning: KernelLearning{ScaleRate: -1}},
		"NaN spread":    {LearnKernel: true, Learning: KernelLearning{ScaleSpread: math.NaN()}},
	} {
		if err := r.Fit(x, y); !errors.As(err, &oe) {
			t.Errorf("%s: got %v, want an *OptionError", name, err)
		}
	}
	if err := (&Regressor{LearnKernel: true}).FitDesign(x, y); !errors.As(err, &oe) {
		t.Errorf("FitDesign with LearnKernel: got %v, want an *OptionError", err)
	}
	var de *DimensionError
	if err := (&Regressor{Kernel: ARDGaussian{Scales: []float64{1, 2, 3}}}).Fit(x, y); !errors.As(err, &de) {
		t.Errorf("ARD scales of the wrong length: got %v, want a *DimensionError", err)
	}
	same := mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1})
	if err := (&Regressor{LearnKernel: true}).Fit(same, []float64{0, 1, 2}); !errors.As(err, &oe) {
		t.Errorf("identical rows: got %v, want an *OptionError", err)
	}
}

// TestDefaultKernelLearned checks that a nil Kernel of Regressor takes
// the width of the dense model's evidence (W4) and of Classifier learns a
// Gaussian width from the median distance by the bound (the defaults),
// that the summary says so before the fit, and that FitDesign with a nil
// Kernel learns nothing.
func TestDefaultKernelLearned(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(60, 8)
	r := &Regressor{}
	if s := r.String(); !strings.Contains(s, "width learned") {
		t.Errorf("summary before the fit: %q", s)
	}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	want, _, err := denseWidth(context.Background(), x, y, MedianDistance(x))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := r.FittedKernel().(Gaussian)
	if !ok || g.Width != want || r.LearnTrace() != nil {
		t.Fatalf("nil Kernel: fitted kernel %v (learning trace %v), want Gaussian width %v from (W4)", r.FittedKernel(), r.LearnTrace(), want)
	}
	if !strings.Contains(r.String(), "evidence of the dense model") {
		t.Errorf("summary after the fit does not say how the width was chosen: %q", r.String())
	}
	if !strings.Contains(r.String(), fmt.Sprintf("width=%v", g.Width)) {
		t.Errorf("summary after the fit does not name the learned width %v: %q", g.Width, r.String())
	}
	lab := make([]float64, len(y))
	for i := range y {
		if x.At(i, 0) > 0 {
			lab[i] = 1
		}
	}
	c := &Classifier{}
	if err := c.Fit(x, lab); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.FittedKernel().(Gaussian); !ok || c.LearnTrace() == nil {
		t.Errorf("Classifier with a nil Kernel: fitted kernel %v, trace %v", c.FittedKernel(), c.LearnTrace())
	}
	d := &Regressor{}
	if err := d.FitDesign(x, y); err != nil {
		t.Fatal(err)
	}
	if d.LearnTrace() != nil || d.FittedKernel() != nil {
		t.Errorf("FitDesign with a nil Kernel learned %v", d.FittedKernel())
	}
}

// TestLearnMaxRows checks that with more rows than MaxRows the kernel is
// learned on MaxRows of them and the model is the fit of every row at
// the learned kernel.
func TestLearnMaxRows(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(150, 9)
	r := &Regressor{LearnKernel: true, Learning: KernelLearning{MaxRows: 50}, ctl: controls{learnByBound: true}} // learnByBound: this tests learning by the bound (K1)–(K8); a Regressor's LearnKernel learns by the dense model's evidence (E2)–(E6) since issue 47
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	k := r.FittedKernel()
	sub := spread(150, 50)
	onSub := &Regressor{LearnKernel: true, ctl: controls{learnByBound: true}} // the start (C2) is the evidence's width on the same rows
	if err := onSub.Fit(selectRows(x, sub), selectVec(y, sub)); err != nil {
		t.Fatal(err)
	}
	if k != onSub.FittedKernel() || !slices.Equal(r.LearnTrace(), onSub.LearnTrace()) {
		t.Errorf("MaxRows 50: learned %v (trace %v), learning on the 50 rows alone %v (trace %v)", k, r.LearnTrace(), onSub.FittedKernel(), onSub.LearnTrace())
	}
	all := &Regressor{Kernel: k}
	if err := all.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if all.FullModelBound() != r.FullModelBound() || len(r.Inputs().RawMatrix().Data) == 0 {
		t.Errorf("the model is not the fit of every row at the learned kernel: bound %g, want %g", r.FullModelBound(), all.FullModelBound())
	}
	// Every row: learning's best fit is the model.
	r2 := &Regressor{LearnKernel: true, Learning: KernelLearning{MaxRows: -1}, ctl: controls{learnByBound: true}}
	if err := r2.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	tr := r2.LearnTrace()
	if r2.FullModelBound() != slices.Max(tr) {
		t.Errorf("MaxRows −1: model bound %g, best of the trace %g", r2.FullModelBound(), slices.Max(tr))
	}
}

// TestWarmStart checks that the Sequential solver started from a fit's
// active set, ⟨α⟩ and likelihood factor at the same kernel ends at a
// full-model bound no lower than that fit's, and that kernel learning's
// trace never falls below its first fit.
func TestWarmStart(t *testing.T) {
	t.Parallel()
	for _, classify := range []bool{false, true} {
		for seed := uint64(1); seed <= 4; seed++ {
			p, sol := learnProblem(t, seed, 2, classify, Gaussian{Width: 1})
			lik := p.lik.Start() // at p.lik's factor
			pw := &problem{basis: p.basis, x: p.x, lik: lik, set: p.set, warm: &sequential.Warm{Cols: sol.cols, Alpha: sol.alpha}}
			sw, err := p.set.method.algorithm().fit(context.Background(), pw)
			if err != nil {
				t.Fatal(err)
			}
			if sw.full < sol.full-1e-6*math.Abs(sol.full) {
				t.Errorf("classify=%v seed %d: warm start ends at %.8g, below the fit it started from, %.8g", classify, seed, sw.full, sol.full)
			}
		}
	}
}

// TestARDFriedman checks acceptance 2 of issue 17: on Friedman #1
// (N = 1,000, d = 10, noise sd 1) the learned length scales of the five
// irrelevant inputs are each at least 10× the largest of the five
// relevant ones, and the error against the noise-free function is at
// most 0.9× that of the width-1 fit.
func TestARDFriedman(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fits Friedman #1 with N = 1,000")
	}
	tr, err := datasets.Friedman1(1000, 10, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	te, _ := datasets.Friedman1(1000, 10, 0, 2)
	rms := func(r *Regressor) float64 { return predictRMS(t, r, te.X, te.T) }
	ard := &Regressor{Kernel: ARDGaussian{}, LearnKernel: true}
	if err := ard.Fit(tr.X, tr.T); err != nil {
		t.Fatal(err)
	}
	w1 := &Regressor{Kernel: Gaussian{Width: 1}}
	if err := w1.Fit(tr.X, tr.T); err != nil {
		t.Fatal(err)
	}
	s := ard.FittedKernel().(ARDGaussian).Scales
	relevant := slices.Max(s[:5])
	if irrelevant := slices.Min(s[5:]); irrelevant < 10*relevant {
		t.Errorf("smallest irrelevant length scale %.4g is %.3g× the largest relevant %.4g, want ≥ 10× (scales %.4g)", irrelevant, irrelevant/relevant, relevant, s)
	}
	if a, b := rms(ard), rms(w1); a > 0.9*b {
		t.Errorf("ARD RMSE %.4f, width 1 %.4f: want at most 0.9×", a, b)
	}
}

// TestSpreadPrior checks the hierarchical prior of (K11): its value is
// the maximum over the common ū of Σₖ ln N(uₖ | ū, s²) (up to the
// constant), its gradient agrees with central differences of that
// profiled value, and it is zero for a single width.
func TestSpreadPrior(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, s := range []float64{0.3, 1, 2.5} {
		o := KernelLearning{ScaleSpread: s}
		u := make([]float64, 7)
		for i := range u {
			u[i] = 2 * rnd.NormFloat64()
		}
		grad := make([]float64, len(u))
		lp := o.scalePrior(u, grad)
		// The maximum over ū: the objective is quadratic in ū, so its
		// values at three points fix the vertex.
		at := func(ub float64) float64 {
			var v float64
			for _, x := range u {
				v -= (x - ub) * (x - ub) / (2 * s * s)
			}
			return v
		}
		a, b, c := at(-1), at(0), at(1) // quadratic: vertex from three values
		ub := (a - c) / (2 * (a - 2*b + c))
		if want := at(ub); !scalar.EqualWithinAbsOrRel(lp, want, 1e-12, 1e-12) {
			t.Errorf("s = %g: prior %.15g, maximum over the common scale %.15g", s, lp, want)
		}
		for i := range u {
			const h = 1e-4
			up, dn := append([]float64(nil), u...), append([]float64(nil), u...)
			up[i] += h
			dn[i] -= h
			num := (o.scalePrior(up, nil) - o.scalePrior(dn, nil)) / (2 * h)
			if !scalar.EqualWithinAbsOrRel(grad[i], num, 1e-8, gradTol) {
				t.Errorf("s = %g: ∂/∂u%d = %.12g, central differences %.12g", s, i, grad[i], num)
			}
		}
		if v := o.scalePrior([]float64{0.7}, nil); v != 0 {
			t.Errorf("s = %g: prior of a single width %g, want 0", s, v)
		}
	}
}

// TestSpreadPriorShrinks checks that learning ARD length scales under a
// tight hierarchical prior (K11) keeps them close together, where
// without it the scale of an input the target ignores grows away from
// the others.
func TestSpreadPriorShrinks(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 3))
	const n, d = 80, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.Float64()*4-2)
		}
		y[i] = math.Sin(2*x.At(i, 0)) + 0.1*rnd.NormFloat64()
	}
	spreadOf := func(o KernelLearning) float64 {
		r := &Regressor{Kernel: ARDGaussian{}, LearnKernel: true, Learning: o, ctl: controls{noHeldout: true}} // the scales learned, not (E8)'s choice
		if err := r.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		s := r.FittedKernel().(ARDGaussian).Scales
		return math.Log(slices.Max(s) / slices.Min(s))
	}
	free, tight := spreadOf(KernelLearning{}), spreadOf(KernelLearning{ScaleSpread: 0.05})
	if !(tight < 0.5 && free > 5) {
		t.Errorf("ln(max/min) of the learned scales: %.3g with ScaleSpread 0.05 (want < 0.5), %.3g without (want > 5)", tight, free)
	}
}

// TestDefaultKernelEdges checks the default (learned) kernel where
// learning on every row is not possible: above the default number of
// centres it learns on Learning.MaxRows rows and fits every row with the
// centre subset, and on inputs whose rows are all equal (no distance to
// start from, and every width gives the same model) it fits at width 1.
// Learning on every row with a centre subset is an *OptionError.
func TestDefaultKernelEdges(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fits 6,000 rows")
	}
	x, y := benchSinc(design.DefaultMaxCentres+1000, 5)
	r := &Regressor{}
	if err := r.Fit(x, y); err != nil {
		t.Fatalf("default kernel, %d rows: %v", len(y), err)
	}
	if _, ok := r.FittedKernel().(Gaussian); !ok || r.widthEvidence == 0 {
		t.Errorf("default kernel, %d rows: fitted kernel %v, evidence %v", len(y), r.FittedKernel(), r.widthEvidence)
	}
	if rms := predictRMS(t, r, x, y); !(rms < 0.12) {
		t.Errorf("default kernel, %d rows: training RMS error %g, want below 0.12 (noise sd 0.1)", len(y), rms)
	}
	var oe *OptionError
	all := &Regressor{LearnKernel: true, Learning: KernelLearning{MaxRows: -1}, ctl: controls{learnByBound: true}} // learnByBound: this tests learning by the bound (K1)–(K8); a Regressor's LearnKernel learns by the dense model's evidence (E2)–(E6) since issue 47
	if err := all.Fit(x, y); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("learning on every row with a centre subset: got %v, want an *OptionError on Centres", err)
	}

	same := mat.NewDense(40, 2, nil)
	for i := range 40 {
		same.Set(i, 0, 3)
		same.Set(i, 1, -1)
	}
	c := &Regressor{}
	if err := c.Fit(same, y[:40]); err != nil {
		t.Fatalf("default kernel, identical rows: %v", err)
	}
	if k, ok := c.FittedKernel().(Gaussian); !ok || k.Width != 1 || c.LearnTrace() != nil {
		t.Errorf("default kernel, identical rows: fitted kernel %v, learning trace %v; want Gaussian width 1, not learned", c.FittedKernel(), c.LearnTrace())
	}
}
