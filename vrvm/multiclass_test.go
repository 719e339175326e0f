package vrvm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// multiProblem is a seeded random K-class problem: K Gaussian blobs in
// d dimensions with some label noise.
func multiProblem(seed uint64) (x *mat.Dense, labels []string, k Kernel, prior Prior, bias bool) {
	rnd := rand.New(rand.NewPCG(seed, 18))
	nc := 2 + rnd.IntN(3)
	n := 3*nc + rnd.IntN(30)
	d := 1 + rnd.IntN(3)
	centres := make([][]float64, nc)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = 2 * rnd.NormFloat64()
		}
	}
	x = mat.NewDense(n, d, nil)
	labels = make([]string, n)
	for i := range n {
		c := i % nc
		for j := range d {
			x.Set(i, j, centres[c][j]+rnd.NormFloat64())
		}
		if rnd.Float64() < 0.1 && i >= 2*nc {
			c = rnd.IntN(nc)
		}
		labels[i] = fmt.Sprintf("c%d", c)
	}
	kernels := []Kernel{Gaussian{Width: 0.5 + 2*rnd.Float64()}, Polynomial{Degree: 1 + rnd.IntN(2), Scale: 1 / float64(d)}, Linear{}}
	priors := []Prior{{}, {A: 1e-3, B: 1e-3}, {A: 1, B: 0.1}}
	return x, labels, kernels[rnd.IntN(len(kernels))], priors[rnd.IntN(len(priors))], rnd.IntN(4) != 0
}

// TestMultiBoundMonotone checks, on 60 seeded problems and for both
// solvers, that the bound does not decrease after any single factor
// update ("w", "alpha", "psi", "add"); only a removal ("remove", or the
// pruning of the paper's schedule) and the bias's hold at a nearly flat
// prior in the first phase of the sequential solver ("hold", (M24)) may
// lower it.
func TestMultiBoundMonotone(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		x, labels, k, prior, bias := multiProblem(seed)
		for _, sc := range []struct {
			sol     Method
			noPrune bool
			lik     MultiLikelihood
		}{{Sequential{}, false, Probit}, {Sequential{}, true, Probit}, {PaperSchedule{}, false, Probit}, {PaperSchedule{}, true, Probit},
			{Sequential{}, false, Softmax}, {Sequential{}, true, Softmax}, {PaperSchedule{}, false, Softmax}, {PaperSchedule{}, true, Softmax},
			{Sequential{}, false, SoftmaxAdaptive}, {Sequential{}, true, SoftmaxAdaptive}, {PaperSchedule{}, false, SoftmaxAdaptive}, {PaperSchedule{}, true, SoftmaxAdaptive}} {
			sol, noPrune := sc.sol, sc.noPrune
			{
				name := fmt.Sprintf("seed=%d/%v/%v/noprune=%v", seed, sc.lik, sol, noPrune)
				c := &MultiClassifier{Kernel: k, Prior: prior, NoBias: !bias, Method: sol, NoPrune: noPrune, MaxIter: 60, Likelihood: sc.lik}
				prev := math.NaN()
				steps := 0
				hook := func(step string, bound func() float64) {
					if step == "restart" { // a new fit from the held bias (M24)
						prev = math.NaN()
						return
					}
					l := bound()
					if math.IsNaN(l) || math.IsInf(l, 0) {
						t.Fatalf("%s: bound %v after %s", name, l, step)
					}
					if step != "remove" && step != "hold" && !math.IsNaN(prev) && l < prev-monotoneTol*math.Max(1, math.Abs(l)) {
						t.Errorf("%s: bound fell by %g after step %d (%s)", name, prev-l, steps, step)
					}
					prev = l
					steps++
				}
				if sol == (PaperSchedule{}) {
					// The schedule's pruning happens between "psi" and "w":
					// compare "w" with the bound before pruning only when
					// nothing is pruned (NoPrune).
					if !noPrune {
						hook = func(step string, bound func() float64) {
							if l := bound(); math.IsNaN(l) {
								t.Fatalf("%s: NaN bound", name)
							}
						}
					}
				}
				if err := c.fit(context.Background(), x, labels, hook); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if steps == 0 && (sol == (Sequential{}) || noPrune) {
					t.Fatalf("%s: no step observed", name)
				}
			}
		}
	}
}

// mcPrepared prepares the problem (x, labels) under the options o as
// MultiClassifier.fit does (ParamTol at the multi-class default): the
// settings, the basis, the classes and each row's class index.
func mcPrepared(t *testing.T, o options, x *mat.Dense, labels []string) (settings, basis, []string, []int) {
	t.Helper()
	if o.paramTol == 0 {
		o.paramTol = defaultMultiParamTol
	}
	n, _ := x.Dims()
	s, b, err := prepare(o, x, make([]float64, n), false)
	if err != nil {
		t.Fatal(err)
	}
	classes, y, err := classIndex(labels)
	if err != nil {
		t.Fatal(err)
	}
	return s, b, classes, y
}

// TestBohningBound checks (M3) against the exact log-softmax: below it
// everywhere, equal at y = ψ and at y = ψ + c1.
func TestBohningBound(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 18))
	for range 2000 {
		k := 2 + rnd.IntN(5)
		y, psi := make([]float64, k), make([]float64, k)
		for j := range k {
			y[j], psi[j] = 4*rnd.NormFloat64(), 4*rnd.NormFloat64()
		}
		c := rnd.IntN(k)
		exact := y[c] - multiclass.LogSumExp(y)
		if b := BohningBound(y, psi, c); b > exact+1e-12 {
			t.Fatalf("bound %v above ln softmax %v (y %v, ψ %v)", b, exact, y, psi)
		}
		shift := append([]float64(nil), psi...)
		for j := range shift {
			shift[j] += 1.5
		}
		at := psi[c] - multiclass.LogSumExp(psi)
		if b := BohningBound(psi, psi, c); !scalar.EqualWithinAbsOrRel(b, at, 1e-12, 1e-12) {
			t.Fatalf("bound at y = ψ: %v, want %v", b, at)
		}
		if b := BohningBound(shift, psi, c); !scalar.EqualWithinAbsOrRel(b, at, 1e-12, 1e-12) {
			t.Fatalf("bound at y = ψ + c1: %v, want %v", b, at)
		}
	}
}

// jcBoundOrder is JCBound with the classes taken in increasing order of
// ψₖ if asc.
func jcBoundOrder(y, psi []float64, k int, asc bool) float64 {
	kk := len(psi)
	return multiclass.JCRow(make([]float64, kk*kk), make([]int, kk), make([]float64, kk), y, psi, k, nil, asc)
}

// TestJCBound checks (M19) against the exact log-softmax, for both
// orders of the classes: below it everywhere, equal at y = ψ and at
// y = ψ + c1; and its curvature against the brute-force Hessian of lse
// for two classes, where it is the Jaakkola–Jordan curvature.
func TestJCBound(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(4, 18))
	for it := range 4000 {
		k := 2 + rnd.IntN(6)
		y, psi := make([]float64, k), make([]float64, k)
		scale := []float64{0.1, 1, 4, 15}[it%4]
		for j := range k {
			y[j], psi[j] = scale*rnd.NormFloat64(), scale*rnd.NormFloat64()
		}
		if it%7 == 0 {
			psi[1] = psi[0] // ties
		}
		c := rnd.IntN(k)
		exact := y[c] - multiclass.LogSumExp(y)
		at := psi[c] - multiclass.LogSumExp(psi)
		shift := append([]float64(nil), psi...)
		for j := range shift {
			shift[j] -= 2.5
		}
		for _, asc := range []bool{false, true} {
			if b := jcBoundOrder(y, psi, c, asc); b > exact+1e-12*math.Max(1, math.Abs(exact)) {
				t.Fatalf("asc=%v: bound %v above ln softmax %v (y %v, ψ %v)", asc, b, exact, y, psi)
			}
			if b := jcBoundOrder(psi, psi, c, asc); !scalar.EqualWithinAbsOrRel(b, at, 1e-12, 1e-12) {
				t.Fatalf("asc=%v: bound at y = ψ: %v, want %v", asc, b, at)
			}
			if b := jcBoundOrder(shift, psi, c, asc); !scalar.EqualWithinAbsOrRel(b, at, 1e-10, 1e-10) {
				t.Fatalf("asc=%v: bound at y = ψ + c1: %v, want %v", asc, b, at)
			}
		}
		if b := JCBound(y, psi, c); b != jcBoundOrder(y, psi, c, false) {
			t.Fatalf("JCBound %v differs from the decreasing order's %v", b, jcBoundOrder(y, psi, c, false))
		}
	}
	// K = 2: A = 2λ(ψ₁ − ψ₂)[1 −1; −1 1], the Jaakkola–Jordan bound (50)
	// at ξ = ψ₁ − ψ₂.
	for _, d := range []float64{0, 1e-6, 0.3, 2, 9} {
		a := make([]float64, 4)
		multiclass.JCCurvature(a, make([]int, 2), []float64{d, 0}, false)
		want := 2 * Lambda(d)
		for i, v := range []float64{want, -want, -want, want} {
			if !scalar.EqualWithinAbsOrRel(a[i], v, 1e-14, 1e-12) {
				t.Fatalf("ψ₁ − ψ₂ = %v: A %v, want ±%v", d, a, want)
			}
		}
	}
}

// TestMultiBadInput checks the errors for bad labels.
func TestMultiBadInput(t *testing.T) {
	t.Parallel()
	for _, lik := range []MultiLikelihood{Softmax, Probit, SoftmaxAdaptive} {
		t.Run(lik.String(), func(t *testing.T) { multiBadInput(t, lik) })
	}
}

func multiBadInput(t *testing.T, lik MultiLikelihood) {
	x := mat.NewDense(7, 1, []float64{0, 0.1, 1, 1.1, 2, 2.1, 3})
	c := &MultiClassifier{Likelihood: lik}
	var se *LabelError
	if err := c.Fit(x, []string{"a", "a", "b", "b", "c", "c", "d"}); !errors.As(err, &se) || se.Label != "d" || se.Row != 6 {
		t.Errorf("class with one member: got %v, want a *LabelError for d at row 6", err)
	} else if !strings.Contains(err.Error(), `"d"`) {
		t.Errorf("message %q does not name the class", err)
	}
	if err := c.Fit(x, []string{"a", "a", "a", "a", "a", "a", "a"}); !errors.Is(err, ErrSingleClass) {
		t.Errorf("one class: got %v", err)
	}
	var de *DimensionError
	if err := c.Fit(x, []string{"a", "b"}); !errors.As(err, &de) {
		t.Errorf("too few labels: got %v", err)
	}
	var le *LabelError
	if _, err := IntLabels([]float64{0, 1, 2.5, 1}); !errors.As(err, &le) || le.Row != 2 {
		t.Errorf("IntLabels(2.5): got %v, want a *LabelError at row 2", err)
	} else if !strings.Contains(err.Error(), "2.5") || !strings.Contains(err.Error(), "integer") {
		t.Errorf("message %q does not name the value and the problem", err)
	}
	var ne *NonFiniteError
	if _, err := IntLabels([]float64{0, math.NaN()}); !errors.As(err, &ne) {
		t.Errorf("IntLabels(NaN): got %v", err)
	}
	if l, err := IntLabels([]float64{-1, 0, 2, 10}); err != nil || strings.Join(l, ",") != "-1,0,2,10" {
		t.Errorf("IntLabels: got %v, %v", l, err)
	}
	if err := c.Fit(x, []string{"a", "a", "b", "b", "c", "c", "c"}); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() (float64, error){
		"ErrorRate": func() (float64, error) { return c.ErrorRate(x, []string{"a", "a", "b", "b", "c", "z", "c"}) },
		"LogLoss":   func() (float64, error) { return c.LogLoss(x, []string{"a", "a", "b", "b", "c", "z", "c"}) },
	} {
		if _, err := f(); !errors.As(err, &le) || le.Row != 5 || le.Label != "z" {
			t.Errorf("%s with unseen label: got %v, want a *LabelError for z at row 5", name, err)
		} else if !strings.Contains(err.Error(), "a, b, c") {
			t.Errorf("%s: message %q does not list the classes", name, err)
		}
	}
	if _, err := c.ErrorRate(x, []string{"a"}); !errors.As(err, &de) {
		t.Errorf("ErrorRate with too few labels: got %v", err)
	}
	u := MultiClassifier{Likelihood: lik}
	if _, err := u.Prob(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Prob before fit: got %v", err)
	}
	if err := u.Save(&bytes.Buffer{}); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Save before fit: got %v", err)
	}
	bad := mat.NewDense(7, 1, []float64{0, 0.1, math.Inf(1), 1.1, 2, 2.1, 3})
	if err := u.Fit(bad, []string{"a", "a", "b", "b", "c", "c", "c"}); !errors.As(err, &ne) || ne.Row != 2 {
		t.Errorf("Inf input: got %v", err)
	}
}

// TestMultiPredict checks that the probabilities sum to one, that the
// decision is the plug-in argmax, that the classes come back in numeric
// order, and that a saved model predicts as the original.
func TestMultiPredict(t *testing.T) {
	t.Parallel()
	x, labels, _, _, _ := multiProblem(4)
	for i, l := range labels {
		labels[i] = strings.TrimPrefix(l, "c") + "0" // numeric labels: 00, 10, 20…
	}
	for _, sc := range []struct {
		sol Method
		lik MultiLikelihood
	}{{Sequential{}, Probit}, {PaperSchedule{}, Probit}, {Sequential{}, Softmax}, {PaperSchedule{}, Softmax}, {Sequential{}, SoftmaxAdaptive}, {PaperSchedule{}, SoftmaxAdaptive}} {
		sol := sc.sol
		c := &MultiClassifier{Kernel: Gaussian{Width: 1}, Method: sol, Likelihood: sc.lik}
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		cl := c.Classes()
		for i := 1; i < len(cl); i++ {
			a, _ := strconv.Atoi(cl[i-1])
			b, _ := strconv.Atoi(cl[i])
			if a >= b {
				t.Errorf("classes %v not in numeric order", cl)
			}
		}
		pm := checkMultiDecision(t, c, x, sc.lik == Probit)
		checkMultiFile(t, c, x, pm)
	}
	var bin Classifier
	tt := make([]float64, len(labels))
	for i := range tt {
		tt[i] = float64(i % 2)
	}
	if err := bin.Fit(x, tt); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bin.Save(&buf); err != nil {
		t.Fatal(err)
	}
	var mfe *ModelFileError
	if _, err := LoadMultiClassifier(&buf); !errors.As(err, &mfe) {
		t.Errorf("LoadMultiClassifier of a binary model: got %v", err)
	}
}

// checkMultiDecision checks that the fitted c's probabilities at x sum
// to one and that its decision is the plug-in argmax for the softmax, the
// predictive one for the probit; it returns the probabilities.
func checkMultiDecision(t *testing.T, c *MultiClassifier, x *mat.Dense, probit bool) *mat.Dense {
	t.Helper()
	cl := c.Classes()
	pm, err := c.Prob(x)
	if err != nil {
		t.Fatal(err)
	}
	pp, _ := c.ProbPlugin(x)
	idx, _ := c.PredictIndex(x)
	pred, _ := c.Predict(x)
	n, k := pm.Dims()
	for i := range n {
		var s, sp float64
		best := 0
		// The decision: the plug-in argmax for the softmax, the
		// predictive one for the probit.
		dec := pp
		if probit {
			dec = pm
		}
		for j := range k {
			s += pm.At(i, j)
			sp += pp.At(i, j)
			if dec.At(i, j) > dec.At(i, best) {
				best = j
			}
		}
		if math.Abs(s-1) > 1e-12 || math.Abs(sp-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %v (moderated), %v (plug-in)", i, s, sp)
		}
		if idx[i] != best || pred[i] != cl[best] {
			t.Fatalf("row %d: decision %d (%s), plug-in argmax %d", i, idx[i], pred[i], best)
		}
	}
	return pm
}

// checkMultiFile checks that c, whose probabilities at x are pm, saves
// and loads (with metadata, covered by the checksum), that Load refuses
// its file and that a truncated or altered file is an error.
func checkMultiFile(t *testing.T, c *MultiClassifier, x *mat.Dense, pm *mat.Dense) {
	t.Helper()
	sol, cl := c.Method, c.Classes()
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	l, err := LoadMultiClassifier(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := l.Prob(x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(pl, pm) || l.LowerBound() != c.LowerBound() || strings.Join(l.Classes(), ",") != strings.Join(cl, ",") || l.Likelihood != c.Likelihood {
		t.Errorf("%v: the loaded model predicts differently", sol)
	}
	var mfe *ModelFileError
	if _, err := Load(bytes.NewReader(data)); !errors.As(err, &mfe) || !strings.Contains(err.Error(), "LoadMultiClassifier") {
		t.Errorf("Load of a multi-class file: got %v", err)
	}
	if _, err := LoadMultiClassifier(bytes.NewReader(data[:len(data)/2])); !errors.As(err, &mfe) {
		t.Errorf("truncated file: got %v", err)
	}
	// Metadata: read back by LoadMultiClassifierMeta, covered by the
	// checksum.
	type meta struct{ Columns []string }
	buf.Reset()
	if err := c.SaveMeta(&buf, meta{Columns: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	var got meta
	lm, err := LoadMultiClassifierMeta(bytes.NewReader(buf.Bytes()), &got)
	if err != nil {
		t.Fatal(err)
	}
	if pl, err := lm.Prob(x); err != nil || !mat.Equal(pl, pm) || strings.Join(got.Columns, ",") != "a,b" {
		t.Errorf("%v: SaveMeta/LoadMultiClassifierMeta: metadata %v, err %v", sol, got, err)
	}
	altered := bytes.Replace(buf.Bytes(), []byte(`"a"`), []byte(`"z"`), 1)
	if _, err := LoadMultiClassifierMeta(bytes.NewReader(altered), &got); !errors.As(err, &mfe) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("altered metadata: got %v", err)
	}
}

// uncertainLine fits a MultiClassifier with likelihood lik to three
// overlapping classes on a line, few points, so that the weights are
// uncertain, and returns it with n points evenly spaced over [−4, 4].
func uncertainLine(t *testing.T, lik MultiLikelihood, n int) (*MultiClassifier, *mat.Dense) {
	return uncertainLineWith(t, &MultiClassifier{Kernel: Gaussian{Width: 1}, Likelihood: lik}, n)
}

// uncertainLineWith fits c to the twelve points of uncertainLine.
func uncertainLineWith(t *testing.T, c *MultiClassifier, n int) (*MultiClassifier, *mat.Dense) {
	t.Helper()
	xt := mat.NewDense(12, 1, []float64{-2, -1.5, -1, -0.2, 0, 0.3, 0.5, 1, 1.2, 1.6, 2, -0.5})
	labels := []string{"a", "a", "a", "b", "b", "a", "b", "c", "c", "b", "c", "b"}
	if err := c.Fit(xt, labels); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, -4+8*float64(i)/float64(n-1))
	}
	return c, x
}

// TestMultiModeration checks the moderated probabilities (M17) against a
// Monte Carlo average of the softmax over the weights' posterior: closer
// than the plug-in probabilities on average.
func TestMultiModeration(t *testing.T) {
	t.Parallel()
	c, x := uncertainLine(t, Softmax, 41)
	ybar, v, err := c.Latent(x)
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := c.Prob(x)
	pp, _ := c.ProbPlugin(x)
	n, k := ybar.Dims()
	rnd := rand.New(rand.NewPCG(5, 18))
	var dMod, dPlug float64
	z, g := make([]float64, k), make([]float64, k)
	for i := range n {
		mc := make([]float64, k)
		const draws = 20000
		for range draws {
			// independent activations ȳₖ + √vₖ ε (M5)
			for j := range k {
				z[j] = ybar.At(i, j) + math.Sqrt(v.At(i, j))*rnd.NormFloat64()
			}
			multiclass.SoftmaxTo(g, z)
			for j := range k {
				mc[j] += g[j] / draws
			}
		}
		for j := range k {
			dMod += math.Abs(pm.At(i, j) - mc[j])
			dPlug += math.Abs(pp.At(i, j) - mc[j])
		}
	}
	if dMod >= dPlug {
		t.Errorf("moderated probabilities are %g from Monte Carlo, plug-in %g", dMod/float64(n*k), dPlug/float64(n*k))
	}
	t.Logf("mean |p − p_MC|: moderated %.4f, plug-in %.4f (largest v %.3g)", dMod/float64(n*k), dPlug/float64(n*k), mat.Max(v))
}
