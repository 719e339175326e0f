package vrvm

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// mcLearnProblem fits a seeded multiProblem with kernel k (pruning on)
// and returns the target and fit of kernel learning.
func mcLearnProblem(t *testing.T, seed uint64, k Learnable, lik MultiLikelihood) (*mcTarget, *mcFit) {
	t.Helper()
	x, labels, _, prior, bias := multiProblem(seed)
	o := options{kernel: k, prior: prior, noBias: !bias, defPrune: defaultClassificationPrune, defTol: defaultMultiTol}
	s, b, classes, y := mcPrepared(t, o, x, labels)
	tg := &mcTarget{s: s, b: b, x: x, y: y, nk: len(classes), lik: lik}
	f, err := tg.fit(context.Background(), k, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg, f.(*mcFit)
}

// TestMultiLearnGradient checks the gradient (K10), (K6) of the
// multi-class full-model bound in the log kernel parameters against
// central differences of (K9) at the fixed Q, for Gaussian and ARD
// Gaussian kernels and every likelihood, on seeded problems with excluded
// functions.
func TestMultiLearnGradient(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 8; seed++ {
		for _, lik := range []MultiLikelihood{Softmax, Probit, SoftmaxAdaptive} {
			x, _, _, _, _ := multiProblem(seed)
			_, d := x.Dims()
			kernels := []Learnable{Gaussian{Width: 0.6 + 0.3*float64(seed%4)}, ARDGaussian{Scales: constant(d, 1)}.WithLogParams([]float64{0.2, -0.1, 0.4}[:d])}
			for _, k := range kernels {
				name := fmt.Sprintf("%d/%s/%v", seed, kernelString(k), lik)
				t.Run(name, func(t *testing.T) {
					tg, f := mcLearnProblem(t, seed, k, lik)
					excluded := false
					for _, c := range f.q.cls {
						if len(c.act) < tg.b.size() {
							excluded = true
						}
					}
					if !excluded {
						t.Fatal("nothing pruned: the excluded terms are not tested")
					}
					u := k.LogParams()
					grad := make([]float64, len(u))
					f.gradient(k, grad)
					for i := range u {
						cd := func(h float64) float64 {
							up, dn := append([]float64(nil), u...), append([]float64(nil), u...)
							up[i] += h
							dn[i] -= h
							return (f.q.eval(k.WithLogParams(up), nil) - f.q.eval(k.WithLogParams(dn), nil)) / (2 * h)
						}
						const h = 1e-3
						num := (4*cd(h/2) - cd(h)) / 3 // Richardson: O(h⁴)
						if !scalar.EqualWithinRel(grad[i], num, gradTol) {
							t.Errorf("∂F/∂u%d = %.12g, central differences %.12g (relative error %.2g)", i, grad[i], num, math.Abs(grad[i]-num)/math.Abs(num))
						}
					}
				})
			}
		}
	}
}

// TestMultiLearnObjectiveIsBound checks (K9) against the solver's own
// bound: at the fitted Q held fixed, F(θ) differs from the full-model
// bound that the solver computes with the design at θ (multiclass.Held.Bound)
// by a constant, at the fitted θ and at two others.
func TestMultiLearnObjectiveIsBound(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		for _, lik := range []MultiLikelihood{Softmax, Probit, SoftmaxAdaptive} {
			t.Run(fmt.Sprintf("%d/%v", seed, lik), func(t *testing.T) {
				k := Gaussian{Width: 1.2}
				x, labels, _, prior, bias := multiProblem(seed)
				c := &MultiClassifier{Kernel: k, Prior: prior, NoBias: !bias, Likelihood: lik}
				// Fit, holding the solver's Q at the end of the fit.
				s, b, classes, y := mcPrepared(t, c.options(), x, labels)
				nk := len(classes)
				sol, q, err := solveMulti(context.Background(), &b, x, y, nk, s, lik, true, nil)
				if err != nil {
					t.Fatal(err)
				}
				boundAt := func(kk Kernel) float64 {
					bb := b
					bb.kernel = kk
					ph, _ := bb.full(x)
					return sol.Held.Bound(ph, s.prior.weightPrior())
				}
				c0 := boundAt(k) - q.eval(k, nil)
				for _, w := range []float64{0.8, 1.7} {
					kk := Gaussian{Width: w}
					if got := boundAt(kk) - q.eval(kk, nil); !scalar.EqualWithinAbsOrRel(got, c0, 1e-8, 1e-10) {
						t.Errorf("width %g: bound − F = %.12g, at the fitted width %.12g", w, got, c0)
					}
				}
			})
		}
	}
}

// TestMultiLearnKernel checks the learned default of MultiClassifier: a
// nil Kernel learns a Gaussian width (the learning trace's best value is
// the bound of the fit kept, or below it by what the second start (M23)
// at the learned width gains: equal to it without the second start),
// LearnKernel with ARDGaussian learns length
// scales and raises the bound above the start, and a learned kernel
// survives Save and Load.
func TestMultiLearnKernel(t *testing.T) {
	t.Parallel()
	x, labels, _, _, _ := multiProblem(3)
	c := &MultiClassifier{}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	g, ok := c.FittedKernel().(Gaussian)
	if !ok || !(g.Width > 0) {
		t.Fatalf("default kernel %v, want a learned Gaussian", c.FittedKernel())
	}
	tr := c.LearnTrace()
	if len(tr) < 2 {
		t.Fatalf("learning trace %v: fewer than two fits", tr)
	}
	best := math.Inf(-1)
	for _, v := range tr {
		best = math.Max(best, v)
	}
	if c.LowerBound() < best-1e-9*math.Max(1, math.Abs(best)) {
		t.Errorf("best of learning trace %v above the bound of the fit %v", best, c.LowerBound())
	}
	first := &MultiClassifier{ctl: controls{noMCRestart: true}}
	if err := first.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if fb := first.LowerBound(); !scalar.EqualWithinAbsOrRel(best, fb, 1e-9, 1e-9) {
		t.Errorf("without the second start: best of learning trace %v, bound of the fit %v", best, fb)
	}
	start := &MultiClassifier{Kernel: Gaussian{Width: MedianDistance(x)}}
	if err := start.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if c.LowerBound() < start.LowerBound()-1e-9 {
		t.Errorf("learned width %v: bound %v below the start's %v", g.Width, c.LowerBound(), start.LowerBound())
	}
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadMultiClassifier(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.FittedKernel() != c.FittedKernel() {
		t.Errorf("loaded kernel %v, saved %v", back.FittedKernel(), c.FittedKernel())
	}
	p1, _ := c.Prob(x)
	p2, _ := back.Prob(x)
	if !mat.Equal(p1, p2) {
		t.Error("loaded model predicts differently")
	}

	_, d := x.Dims()
	a := &MultiClassifier{Kernel: ARDGaussian{}, LearnKernel: true, Likelihood: Probit}
	if err := a.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	ak, ok := a.FittedKernel().(ARDGaussian)
	if !ok || len(ak.Scales) != d {
		t.Fatalf("ARD kernel %v", a.FittedKernel())
	}
	if tr := a.LearnTrace(); a.LowerBound() < tr[0]-1e-9 {
		t.Errorf("ARD learning ended at %v, below its start %v", a.LowerBound(), tr[0])
	}
	if err := (&MultiClassifier{Kernel: Linear{}, LearnKernel: true}).Fit(x, labels); err == nil {
		t.Error("learning a linear kernel: no error")
	}
}

// TestMultiSecondStart checks the second start (M23) on 40 seeded
// problems: the fit kept has a full-model bound at least that of the
// first start alone, the Monitor's last report is the bound kept, and
// when the second start is kept it is one iteration after the first
// start's.
func TestMultiSecondStart(t *testing.T) {
	t.Parallel()
	taken := 0
	for seed := uint64(1); seed <= 40; seed++ {
		x, labels, k, prior, bias := multiProblem(seed)
		first := &MultiClassifier{Kernel: k, Prior: prior, NoBias: !bias, ctl: controls{noMCRestart: true}}
		if err := first.Fit(x, labels); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		last := math.Inf(-1)
		c := &MultiClassifier{Kernel: k, Prior: prior, NoBias: !bias, Monitor: func(p Progress) bool {
			last = p.Bound
			return false
		}}
		if err := c.Fit(x, labels); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		lb, fb := c.LowerBound(), first.LowerBound()
		if last != lb {
			t.Errorf("seed %d: last reported bound %v, bound of the fit %v", seed, last, lb)
		}
		switch {
		case lb < fb-1e-9*math.Max(1, math.Abs(fb)):
			t.Errorf("seed %d: bound %v below the first start's %v", seed, lb, fb)
		case lb > fb:
			taken++
			if c.Iterations() != first.Iterations()+1 {
				t.Errorf("seed %d: second start kept after %d iterations (first %d)", seed, c.Iterations(), first.Iterations())
			}
		}
	}
	t.Logf("second start kept on %d of 40 problems", taken)
}
