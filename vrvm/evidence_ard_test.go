package vrvm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"

	"gonum.org/v1/gonum/mat"
)

// TestDenseARDGradient checks the gradient (E3) of the dense model's
// evidence against central differences, for one width and for ARD, and
// the value (E2) against the eigendecomposition of (W2).
func TestDenseARDGradient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const m, d = 30, 3
	x := mat.NewDense(m, d, nil)
	y := make([]float64, m)
	for i := range m {
		for k := range d {
			x.Set(i, k, rng.NormFloat64())
		}
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64() + 3
	}
	for _, tied := range []bool{true, false} {
		q := kernlearn.NewEvidence(context.Background(), rowsOf(x), y, tied, 1.5, KernelLearning{ScaleShape: 2, ScaleRate: 0.5}.scalePrior, gaussianAt)
		np := d
		if tied {
			np = 1
		}
		v := make([]float64, np+2)
		for k := range np {
			v[k] = 0.1 * float64(k+1)
		}
		v[np], v[np+1] = math.Log(0.7), math.Log(20)
		g := make([]float64, len(v))
		if _, err := q.Objective(v, g); err != nil {
			t.Fatal(err)
		}
		for i := range v {
			const h = 1e-5
			vp := append([]float64(nil), v...)
			vm := append([]float64(nil), v...)
			vp[i] += h
			vm[i] -= h
			fp, _ := q.Objective(vp, make([]float64, len(v)))
			fm, _ := q.Objective(vm, make([]float64, len(v)))
			num := (fp - fm) / (2 * h)
			if math.Abs(num-g[i]) > 1e-5*(1+math.Abs(num)) {
				t.Errorf("tied=%v: ∂/∂v[%d] = %g, central difference %g", tied, i, g[i], num)
			}
		}
		if tied {
			// (E2) at one width against (W2) through the eigendecomposition,
			// without the priors.
			q := kernlearn.NewEvidence(context.Background(), rowsOf(x), y, tied, 1.5, nil, gaussianAt)
			f0, _ := q.Objective(v, g)
			lr := math.Log(1.5)
			f0 += (v[0] - lr) * (v[0] - lr) / (2 * kernlearn.PriorSD * kernlearn.PriorSD)
			w2 := eigenEvidence(q.Base(), math.Exp(v[0]), math.Exp(v[1]), math.Exp(v[2]))
			if math.Abs(f0-w2) > 1e-8*math.Abs(w2) {
				t.Errorf("(E2) %g, (W2) %g", f0, w2)
			}
		}
	}
}

// eigenEvidence returns (W2) at width r, α and β by the eigendecomposition.
func eigenEvidence(d *kernlearn.DenseModel, r, alpha, beta float64) float64 {
	m := len(d.Rows())
	k := kernelMatrix(Gaussian{Width: r}, d.Rows(), nil)
	for j := range m {
		var s float64
		for i := range m {
			s += k.At(i, j)
		}
		for i := range m {
			k.Set(i, j, k.At(i, j)-s/float64(m))
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, k)
	var eig mat.EigenSym
	eig.Factorize(&g, true)
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	var z mat.VecDense
	z.MulVec(u.T(), mat.NewVecDense(m, d.Targets()))
	e := 0.5 * (math.Log(2*math.Pi) - math.Log(beta))
	for i := range m {
		c := 1/beta + math.Max(vals[i], 0)/alpha
		e -= 0.5 * (math.Log(2*math.Pi) + math.Log(c) + z.AtVec(i)*z.AtVec(i)/c)
	}
	return e
}

// guardSet returns n rows of d inputs uniform on [−2, 2] and targets
// f(x) + 0.1ε.
func guardSet(n, d int, seed uint64, f func([]float64) float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for k := range d {
			x.Set(i, k, 4*rng.Float64()-2)
		}
		y[i] = f(x.RawRowView(i)) + 0.1*rng.NormFloat64()
	}
	return x, y
}

// TestEvidenceGuard checks the guard (E6) of ARD learning by the dense
// model's evidence: a target of one input of four keeps the learned
// length scales, the irrelevant ones long; a target that depends on
// every input alike (a radial function) keeps the width of (W4) as equal
// length scales; a single learned width is never below (W4)'s evidence.
func TestEvidenceGuard(t *testing.T) {
	t.Parallel()
	one := func(x []float64) float64 { return math.Sin(2 * x[0]) }
	radial := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return math.Exp(-s / 4)
	}
	x, y := guardSet(150, 4, 1, one)
	r := &Regressor{Kernel: ARDGaussian{}, LearnKernel: true}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	tr := r.LearnTrace()
	s := r.FittedKernel().(ARDGaussian).Scales
	if len(tr) != 2 || !(tr[1]-tr[0] > 3) {
		t.Fatalf("one relevant input: evidence %v, want the learned one more than d − 1 = 3 above (W4)'s", tr)
	}
	if !(slices.Min(s[1:]) > 10*s[0]) || !strings.Contains(r.String(), "kept ARDGaussian") {
		t.Errorf("one relevant input: scales %.4g, want inputs 2–4 at least 10× input 1's and the scales kept; summary:\n%v", s, r)
	}
	if slices.Min(s[1:]) != slices.Max(s[1:]) {
		t.Errorf("one relevant input: scales %.4g, want inputs 2–4 switched off, at the wall of (E4) (E6)", s)
	}
	x, y = guardSet(150, 4, 2, radial)
	r = &Regressor{Kernel: ARDGaussian{}, LearnKernel: true}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	tr = r.LearnTrace()
	s = r.FittedKernel().(ARDGaussian).Scales
	if len(tr) != 2 || tr[1]-tr[0] > 3 || slices.Min(s) != slices.Max(s) || !strings.Contains(r.String(), "kept the width of (W4)") {
		t.Errorf("radial target: evidence %v, scales %.4g; want at most 3 nats gained and (W4)'s width kept; summary:\n%v", tr, s, r)
	}
	w := &Regressor{LearnKernel: true}
	if err := w.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if tr := w.LearnTrace(); len(tr) != 2 || tr[1] < tr[0] {
		t.Errorf("one width: evidence %v, want the learned width's at least (W4)'s", tr)
	}
	if _, ok := w.FittedKernel().(Gaussian); !ok {
		t.Errorf("one width: fitted %v", w.FittedKernel())
	}
}

// TestEvidenceLearnBadInput checks the errors and edge cases of learning
// a regression's kernel by the evidence: too many rows for (E2),
// constant targets, a kernel that cannot be learned, bad scales or
// options, a NaN target.
func TestEvidenceLearnBadInput(t *testing.T) {
	t.Parallel()
	x, y := guardSet(2100, 2, 3, func(x []float64) float64 { return x[0] })
	var oe *OptionError
	err := (&Regressor{LearnKernel: true, Learning: KernelLearning{MaxRows: -1}}).Fit(x, y)
	if !errors.As(err, &oe) || oe.Field != "Learning.MaxRows" {
		t.Errorf("MaxRows −1 on 2,100 rows: %v, want an *OptionError on Learning.MaxRows", err)
	}
	xs, _ := guardSet(40, 2, 4, func([]float64) float64 { return 0 })
	flat := make([]float64, 40)
	for i := range flat {
		flat[i] = 3
	}
	if err := (&Regressor{Kernel: ARDGaussian{}, LearnKernel: true}).Fit(xs, flat); err == nil {
		t.Error("constant targets: no error") // as without learning: nothing to fit
	}
	for name, r := range map[string]*Regressor{
		"polynomial":   {Kernel: Polynomial{Degree: 2}, LearnKernel: true},
		"NaN spread":   {Kernel: ARDGaussian{}, LearnKernel: true, Learning: KernelLearning{ScaleSpread: math.NaN()}},
		"wrong scales": {Kernel: ARDGaussian{Scales: []float64{1}}, LearnKernel: true},
		"zero scale":   {Kernel: ARDGaussian{Scales: []float64{1, 0}}, LearnKernel: true},
	} {
		if err := r.Fit(xs, xs.RawMatrix().Data[:40]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	nan := append([]float64(nil), xs.RawMatrix().Data[:40]...)
	nan[5] = math.NaN()
	if err := (&Regressor{Kernel: ARDGaussian{}, LearnKernel: true}).Fit(xs, nan); err == nil {
		t.Error("NaN target: no error")
	}
}

// TestClassifierARDGuard checks the guard (E7) of a binary Classifier's
// ARD learning: labels of one input of four keep the learned length
// scales; labels of a radial function of all four keep the width
// learned by the bound, which the summary says.
func TestClassifierARDGuard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		f    func([]float64) float64
		ard  bool
	}{
		{"one input", func(x []float64) float64 { return x[0] }, true},
		{"radial", func(x []float64) float64 { return mat.Norm(mat.NewVecDense(len(x), x), 2) - 2.2 }, false},
	} {
		x, y := guardSet(160, 4, 5, c.f)
		for i, v := range y {
			y[i] = 0
			if v > 0 {
				y[i] = 1
			}
		}
		m := &Classifier{Kernel: ARDGaussian{}, LearnKernel: true}
		if err := m.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		_, isARD := m.FittedKernel().(ARDGaussian)
		kept := strings.Contains(m.String(), "kept the length scales")
		if isARD != c.ard || kept != c.ard || !strings.Contains(m.String(), "(E7)") {
			t.Errorf("%s: fitted %v, want ARD %v; summary:\n%v", c.name, m.FittedKernel(), c.ard, m)
		}
	}
}

// TestSwitchOff checks the switch-off step of (E6): from learned
// parameters with the irrelevant inputs' scales stopped in the flat part
// of (E4) (at 30r and 300r), those scales move to the wall 10⁴r for less
// than a nat each; the relevant input's scale, above r here, stays, its
// removal costing far more; and the value returned is the objective at
// the returned parameters.
func TestSwitchOff(t *testing.T) {
	t.Parallel()
	x, y := guardSet(120, 3, 3, func(x []float64) float64 { return math.Sin(x[0]) })
	r := MedianDistance(x)
	q := kernlearn.NewEvidence(context.Background(), rowsOf(x), y, false, r, KernelLearning{}.scalePrior, gaussianAt)
	// α and β at their best near the learned scales, then the relevant
	// scale at least 1.2r (a candidate) and the others in the flat part.
	v, _ := q.Maximise([]float64{math.Log(r), math.Log(r), math.Log(r), 0, 0})
	v[0] = math.Max(v[0], math.Log(1.2*r))
	v[1], v[2] = math.Log(30*r), math.Log(300*r)
	g := make([]float64, len(v))
	f0, err := q.Objective(v, g)
	if err != nil {
		t.Fatal(err)
	}
	w, f := q.SwitchOff(append([]float64(nil), v...), f0)
	wall := math.Log(r) + kernlearn.Wall
	if w[1] != wall || w[2] != wall {
		t.Errorf("irrelevant scales %.4g, %.4g after switchOff, want both at the wall %.4g", math.Exp(w[1]), math.Exp(w[2]), math.Exp(wall))
	}
	if w[0] != v[0] {
		t.Errorf("relevant scale moved from %.4g to %.4g", math.Exp(v[0]), math.Exp(w[0]))
	}
	if fw, _ := q.Objective(w, g); fw != f || !(f > f0-2*kernlearn.ScalePrice) {
		t.Errorf("switchOff value %.6g, objective there %.6g, before %.6g: want equal, and less than 2 nats lost", f, fw, f0)
	}
}
