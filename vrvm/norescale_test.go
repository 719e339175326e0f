package vrvm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// paperClassifier is a plain implementation of the paper's binary VRVM
// (Bishop & Tipping 2000, section 5, with the settled equations of the
// errata), written for this test alone: the dense design of every one of
// the N kernel functions and the bias, the Jaakkola–Jordan bound with one
// ξₙ per row, Gamma priors Γ(a, b) on every αₘ, and the schedule
// "Q_w (54)–(55), then Q_α (57), then ξ (58)" from ⟨αₘ⟩ = 1, ξₙ = 1.
// It returns the bound (59*) after the first Q_w update and after each of
// iters iterations, and the final posterior mean.
func paperClassifier(phi *mat.Dense, t []float64, a, b float64, iters int) (trace, mu []float64) {
	n, m := phi.Dims()
	alpha := make([]float64, m)
	bt := make([]float64, m)
	at := a + 0.5
	for i := range alpha {
		alpha[i] = 1
		bt[i] = at / alpha[i]
	}
	xi := make([]float64, n)
	for i := range xi {
		xi[i] = 1
	}
	lambda := func(x float64) float64 {
		if x == 0 {
			return 0.125
		}
		return math.Tanh(x/2) / (4 * x)
	}
	var sigma mat.SymDense
	muV := mat.NewVecDense(m, nil)
	wStep := func() {
		// (54): Σ = (diag⟨α⟩ + 2 Σₙ λ(ξₙ) φₙφₙᵀ)⁻¹; (55): μ = Σ Σₙ (tₙ − ½) φₙ.
		prec := mat.NewSymDense(m, nil)
		h := mat.NewVecDense(m, nil)
		for r := range n {
			row := phi.RawRowView(r)
			l := 2 * lambda(xi[r])
			for i := range m {
				h.SetVec(i, h.AtVec(i)+(t[r]-0.5)*row[i])
				for j := i; j < m; j++ {
					prec.SetSym(i, j, prec.At(i, j)+l*row[i]*row[j])
				}
			}
		}
		for i := range m {
			prec.SetSym(i, i, prec.At(i, i)+at/bt[i])
		}
		var chol mat.Cholesky
		if !chol.Factorize(prec) {
			panic("paperClassifier: precision not positive definite")
		}
		if err := chol.InverseTo(&sigma); err != nil {
			panic(err)
		}
		muV.MulVec(&sigma, h)
	}
	// E[n] = φₙᵀ⟨wwᵀ⟩φₙ = (φₙᵀμ)² + φₙᵀΣφₙ.
	second := func() []float64 {
		e := make([]float64, n)
		for r := range n {
			row := mat.NewVecDense(m, phi.RawRowView(r))
			f := mat.Dot(row, muV)
			e[r] = f*f + mat.Inner(row, &sigma, row)
		}
		return e
	}
	bound := func() float64 {
		e := second()
		var l float64
		for r := range n {
			// (60): ln σ(ξ) + (t − ½) μᵀφ − ξ/2 − λ(ξ)(φᵀ⟨wwᵀ⟩φ − ξ²).
			f := mat.Dot(mat.NewVecDense(m, phi.RawRowView(r)), muV)
			l += -math.Log1p(math.Exp(-xi[r])) + (t[r]-0.5)*f - xi[r]/2 - lambda(xi[r])*(e[r]-xi[r]*xi[r])
		}
		lgA, _ := math.Lgamma(a)
		lgAt, _ := math.Lgamma(at)
		for i := range m {
			ea, ela := at/bt[i], mathext.Digamma(at)-math.Log(bt[i])
			w2 := muV.AtVec(i)*muV.AtVec(i) + sigma.At(i, i)
			l += -0.5*math.Log(2*math.Pi) + 0.5*ela - 0.5*ea*w2           // (41*)
			l += a*math.Log(b) + (a-1)*ela - b*ea - lgA                   // (42)
			l += lgAt - (at-1)*mathext.Digamma(at) - math.Log(bt[i]) + at // (45*)
		}
		var chol mat.Cholesky
		chol.Factorize(&sigma)
		l += float64(m)/2*(1+math.Log(2*math.Pi)) + 0.5*chol.LogDet() // (44)
		return l
	}
	wStep()
	trace = []float64{bound()}
	for k := 1; k <= iters; k++ {
		if k > 1 {
			wStep()
		}
		for i := range m { // (57)
			bt[i] = b + (muV.AtVec(i)*muV.AtVec(i)+sigma.At(i, i))/2
		}
		for r, e := range second() { // (58)
			xi[r] = math.Sqrt(e)
		}
		trace = append(trace, bound())
	}
	return trace, mat.Col(nil, 0, muV)
}

// TestNoRescalePaperModel checks that a Classifier with NoRescale fits
// the paper's model with the kernel as given: on a seeded two-class
// problem with a cubic polynomial kernel (root mean square far above 1),
// the paper's schedule without pruning follows paperClassifier's bound
// iteration by iteration and reaches its posterior mean, while the
// default (the kernel divided to unit root mean square, (U1)) fits a
// different model.
func TestNoRescalePaperModel(t *testing.T) {
	t.Parallel()
	const (
		n, iters = 40, 300
		boundTol = 1e-8 // relative
		muTol    = 1e-6 // relative to max |μ|
	)
	rng := rand.New(rand.NewPCG(44, 7))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(i % 2)
		x.Set(i, 0, 1.5*rng.NormFloat64()+y[i])
		x.Set(i, 1, 1.5*rng.NormFloat64()-y[i])
	}
	k := Polynomial{Degree: 3}
	phi := mat.NewDense(n, n+1, nil)
	for i := range n {
		phi.Set(i, 0, 1)
		for j := range n {
			p := 1 + x.At(i, 0)*x.At(j, 0) + x.At(i, 1)*x.At(j, 1)
			phi.Set(i, j+1, p*p*p)
		}
	}
	if s := design.RMS(phi.Slice(0, n, 1, n+1).(*mat.Dense).RawMatrix().Data); s < 10 {
		t.Fatalf("kernel root mean square %g: the problem does not exercise (U1)", s)
	}
	wantTrace, wantMu := paperClassifier(phi, y, DefaultPrior, DefaultPrior, iters)

	fit := func(noRescale bool) *Classifier {
		c := &Classifier{Kernel: k, Method: PaperSchedule{}, NoPrune: true, MaxIter: iters, Tol: 1e-300, ParamTol: 1e-300, NoRescale: noRescale}
		if err := c.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := fit(true)
	got := c.BoundTrace()
	if len(got) != len(wantTrace) {
		t.Fatalf("trace length %d, want %d", len(got), len(wantTrace))
	}
	var worst float64
	for i, w := range wantTrace {
		d := math.Abs(got[i]-w) / math.Abs(w)
		worst = math.Max(worst, d)
		if !(d <= boundTol) {
			t.Errorf("bound after iteration %d: %.12g, reference %.12g (relative %.2g)", i, got[i], w, d)
		}
	}
	mu := c.Mean()
	if len(mu) != n+1 || !c.HasBias() {
		t.Fatalf("%d weights, bias %v: want all %d functions", len(mu), c.HasBias(), n+1)
	}
	var scale float64
	for _, v := range wantMu {
		scale = math.Max(scale, math.Abs(v))
	}
	for i, w := range wantMu {
		if d := math.Abs(mu[i]-w) / scale; !(d <= muTol) {
			t.Errorf("μ[%d] = %.10g, reference %.10g", i, mu[i], w)
		}
	}
	// The default divides the kernel: another model, another bound.
	d := fit(false)
	l, w := d.LowerBound(), wantTrace[len(wantTrace)-1]
	r := math.Abs(l-w) / math.Abs(w)
	t.Logf("NoRescale: largest relative bound difference %.2g over %d iterations; default: %.2g at the end", worst, iters, r)
	if r < 1e-6 {
		t.Errorf("default (divided kernel) bound %.12g equals the paper's model's %.12g: the test does not tell them apart", l, w)
	}
}

// TestNoRescaleGaussianFixture: a Gaussian kernel is never divided, so
// with NoRescale a Classifier still reaches the shared classification
// fixture (the paper's model with a Gaussian kernel), to the fixture
// tolerances, with the bound of the default to the bit.
func TestNoRescaleGaussianFixture(t *testing.T) {
	t.Parallel()
	f, x, xt := loadFixture(t, "binary60_gauss.json")
	fit := func(noRescale bool) *Classifier {
		c := &Classifier{Kernel: Gaussian{Width: f.Kernel.R}, NoPrune: true, Tol: 1e-14, ParamTol: 1e-11, Method: Newton{}, NoAugment: true, NoRescale: noRescale}
		if err := c.Fit(x, f.T); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := fit(true)
	if e := relErr(c.LowerBound(), f.LowerBound); e > boundTol {
		t.Errorf("lower bound %.12g, want %.12g (rel %.2g)", c.LowerBound(), f.LowerBound, e)
	}
	m, v, err := c.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "activation mean", m, f.ActMean, predTol)
	checkClose(t, "activation variance", v, f.ActVar, predTol)
	checkClose(t, "<alpha>", c.Alpha(), f.AlphaMean, predTol)
	if d := fit(false); d.LowerBound() != c.LowerBound() {
		t.Errorf("NoRescale changed a Gaussian kernel's bound: %.15g, %.15g", d.LowerBound(), c.LowerBound())
	}
}

// TestNoRescaleMultiClassifier: NoRescale reaches the MultiClassifier's
// fit. With a cubic polynomial kernel of root mean square far above 1 the
// default fits the divided kernel (U1) and NoRescale the kernel as given,
// two different models; a Gaussian kernel is never divided, so its fit is
// the same to the bit.
func TestNoRescaleMultiClassifier(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(44, 8))
	const n = 45
	x := mat.NewDense(n, 2, nil)
	labels := make([]string, n)
	for i := range n {
		k := i % 3
		labels[i] = string(rune('a' + k))
		x.Set(i, 0, 1.5*rng.NormFloat64()+float64(k))
		x.Set(i, 1, 1.5*rng.NormFloat64()-float64(k))
	}
	bound := func(k Kernel, noRescale bool) float64 {
		c := &MultiClassifier{Kernel: k, Method: PaperSchedule{}, NoPrune: true, MaxIter: 50, NoRescale: noRescale}
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		return c.LowerBound()
	}
	p := Polynomial{Degree: 3}
	if a, b := bound(p, false), bound(p, true); !(math.Abs(a-b) > 1e-6*math.Abs(a)) {
		t.Errorf("polynomial kernel: bound %.12g with NoRescale, %.12g without: want different models", b, a)
	}
	g := Gaussian{Width: 1}
	if a, b := bound(g, false), bound(g, true); a != b {
		t.Errorf("Gaussian kernel: bound %.15g with NoRescale, %.15g without", b, a)
	}
}
