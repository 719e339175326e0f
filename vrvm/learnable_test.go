package vrvm_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// laplace is a user's kernel, K(x, y) = exp(−‖x − y‖₁ / Scale), that
// implements vrvm.Learnable: u = ln Scale, ∂K/∂u = K‖x − y‖₁ / Scale.
type laplace struct{ Scale float64 }

func (k laplace) Eval(x, y []float64) float64 { return math.Exp(-l1(x, y) / k.Scale) }

func (k laplace) LogParams() []float64 { return []float64{math.Log(k.Scale)} }

func (k laplace) WithLogParams(u []float64) vrvm.Learnable { return laplace{Scale: math.Exp(u[0])} }

func (k laplace) AddLogGrad(dst, x, y []float64, kv, w float64) {
	dst[0] += w * kv * l1(x, y) / k.Scale
}

func l1(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += math.Abs(x[i] - y[i])
	}
	return s
}

// userLearnData is a seeded smooth problem in two inputs: regression
// targets and binary labels.
func userLearnData(seed uint64, n int) (*mat.Dense, []float64, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 44))
	x := mat.NewDense(n, 2, nil)
	t, y := make([]float64, n), make([]float64, n)
	for i := range n {
		a, b := rnd.Float64()*4-2, rnd.Float64()*4-2
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		f := math.Sin(1.5*a) + 0.5*b
		t[i] = f + 0.1*rnd.NormFloat64()
		if f+0.3*rnd.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	return x, t, y
}

// TestUserKernelGradient checks the test kernel's AddLogGrad against a
// central difference of Eval, so that the learning test below learns
// with a correct gradient.
func TestUserKernelGradient(t *testing.T) {
	t.Parallel()
	k := laplace{Scale: 0.8}
	x, y := []float64{0.3, -1}, []float64{-0.2, 0.4}
	g := []float64{0}
	k.AddLogGrad(g, x, y, k.Eval(x, y), 1)
	const h = 1e-6
	up := k.WithLogParams([]float64{math.Log(0.8) + h})
	dn := k.WithLogParams([]float64{math.Log(0.8) - h})
	fd := (up.Eval(x, y) - dn.Eval(x, y)) / (2 * h)
	if math.Abs(g[0]-fd) > 1e-7*math.Abs(fd) {
		t.Fatalf("AddLogGrad %g, central difference %g", g[0], fd)
	}
}

// TestUserKernelLearned fits the estimators that learn by the full-model
// bound with a user's Learnable kernel started from a poor scale: the
// kernel returned is the user's type at a learned scale, and the bound
// it reached is above the bound at the start.
func TestUserKernelLearned(t *testing.T) {
	t.Parallel()
	x, tr, labels := userLearnData(3, 80)
	const start = 0.1
	type learner interface {
		FittedKernel() vrvm.Kernel
		LearnTrace() []float64
	}
	for _, c := range []struct {
		name string
		e    learner
		fit  func() error
	}{
		{name: "Regressor"},
		{name: "Classifier"},
		{name: "MultiClassifier"},
	} {
		switch c.name {
		case "Regressor":
			// Learned by the bound: the evidence is for Gaussian kernels.
			r := &vrvm.Regressor{Kernel: laplace{Scale: start}, LearnKernel: true}
			c.e, c.fit = r, func() error { return r.Fit(x, tr) }
		case "Classifier":
			cl := &vrvm.Classifier{Kernel: laplace{Scale: start}, LearnKernel: true}
			c.e, c.fit = cl, func() error { return cl.Fit(x, labels) }
		case "MultiClassifier":
			names := make([]string, len(labels))
			for i, v := range labels {
				names[i] = []string{"no", "yes"}[int(v)]
			}
			mc := &vrvm.MultiClassifier{Kernel: laplace{Scale: start}, LearnKernel: true}
			c.e, c.fit = mc, func() error { return mc.Fit(x, names) }
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := c.fit(); err != nil {
				t.Fatal(err)
			}
			k, ok := c.e.FittedKernel().(laplace)
			if !ok {
				t.Fatalf("FittedKernel %T, want laplace", c.e.FittedKernel())
			}
			tr := c.e.LearnTrace()
			if len(tr) < 2 {
				t.Fatalf("LearnTrace %v: fewer than two fits", tr)
			}
			best := math.Inf(-1)
			for _, v := range tr {
				best = math.Max(best, v)
			}
			if !(k.Scale > 2*start) || !(best > tr[0]+1) {
				t.Errorf("learned scale %g from %g, bound %g from %g: not learned", k.Scale, start, best, tr[0])
			}
		})
	}
}

// TestUserKernelNotLearnable: a kernel without the Learnable methods is
// reported, naming the interface.
func TestUserKernelNotLearnable(t *testing.T) {
	t.Parallel()
	x, _, labels := userLearnData(4, 30)
	c := &vrvm.Classifier{Kernel: vrvm.Polynomial{Degree: 2}, LearnKernel: true}
	err := c.Fit(x, labels)
	if err == nil || !strings.Contains(err.Error(), "Learnable") {
		t.Fatalf("error %v, want one naming Learnable", err)
	}
}

// TestNamedLearnedKernelSaved learns a named user kernel, saves the
// model and loads it with a Loader holding the kernel at its start: the
// file carries the learned scale, and the loaded model predicts exactly
// as the fitted one.
func TestNamedLearnedKernelSaved(t *testing.T) {
	t.Parallel()
	x, _, labels := userLearnData(5, 60)
	c := &vrvm.Classifier{Kernel: vrvm.NamedKernel("laplace", laplace{Scale: 0.3}), LearnKernel: true, Learning: vrvm.KernelLearning{MaxRefits: 4}}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	e, err := vrvm.Loader{Kernels: map[string]vrvm.Kernel{"laplace": laplace{Scale: 0.3}}}.Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	learned := c.FittedKernel().(vrvm.Learnable).LogParams()[0]
	if got := e.(*vrvm.Classifier).FittedKernel().(vrvm.Learnable).LogParams()[0]; got != learned || learned == math.Log(0.3) {
		t.Errorf("loaded log scale %v, learned %v from %v", got, learned, math.Log(0.3))
	}
	p1, err1 := c.ProbModerated(x)
	p2, err2 := e.(*vrvm.Classifier).ProbModerated(x)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("row %d: loaded model predicts %v, fitted %v", i, p2[i], p1[i])
		}
	}
}
