package vrvm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// scaledCopy returns x with column j multiplied by c[j].
func scaledCopy(x *mat.Dense, c []float64) *mat.Dense {
	out := mat.DenseCopyOf(x)
	n, m := out.Dims()
	for i := range n {
		for j := range m {
			out.Set(i, j, out.At(i, j)*c[j])
		}
	}
	return out
}

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestUnitScaleDesign fits FitDesign classifiers to a design whose
// columns have root mean square at least 1 and to the same design with
// each column multiplied by a factor from 1 to 10⁴: (U1) makes the two
// problems the same up to rounding, so the probabilities, the bound and
// the relevant columns agree, and ⟨αₘ⟩ scales by the factor squared (U2).
// Without (U1) the large columns' ⟨αₘ⟩ exceed PruneAlpha and they are
// pruned.
func TestUnitScaleDesign(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 11))
	n, m := 200, 6
	x := mat.NewDense(n, m, nil)
	y := make([]float64, n)
	for i := range n {
		x.Set(i, 0, 1)
		for j := 1; j < m; j++ {
			x.Set(i, j, 2*rnd.NormFloat64())
		}
		if 1.5*x.At(i, 1)-0.7*x.At(i, 3)+rnd.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	c := []float64{1, 1e4, 30, 1e3, 1, 7}
	xs := scaledCopy(x, c)
	var fits [2]*Classifier
	for k, d := range []*mat.Dense{x, xs} {
		fits[k] = &Classifier{}
		if err := fits[k].FitDesign(d, y); err != nil {
			t.Fatal(err)
		}
	}
	a, b := fits[0], fits[1]
	if !closeRel(a.LowerBound(), b.LowerBound(), 1e-8) {
		t.Errorf("bounds %v and %v differ", a.LowerBound(), b.LowerBound())
	}
	ra, rb := a.RelevanceVectors(), b.RelevanceVectors()
	if len(ra) != len(rb) {
		t.Fatalf("relevant columns %v and %v", ra, rb)
	}
	for i := range ra {
		if ra[i] != rb[i] {
			t.Fatalf("relevant columns %v and %v", ra, rb)
		}
	}
	if !containsInt(ra, 1) || !containsInt(ra, 3) {
		t.Errorf("relevant columns %v, want 1 and 3 among them", ra)
	}
	pa, _ := a.Predict(x)
	pb, _ := b.Predict(xs)
	for i := range pa {
		if !closeRel(pa[i], pb[i], 1e-7) {
			t.Fatalf("row %d: P = %v and %v", i, pa[i], pb[i])
		}
	}
	aa, ab := a.Alpha(), b.Alpha()
	for i, col := range a.ActiveSet() {
		if want := aa[i] * c[col] * c[col]; !closeRel(ab[i], want, 1e-6) {
			t.Errorf("column %d: ⟨α⟩ %v, want %v·%v² = %v", col, ab[i], aa[i], c[col], want)
		}
	}
}

// TestUnitScaleRegression checks that regression keeps its basis
// functions at their own scale (no (U1)): a linear-kernel fit reports
// ⟨αₘ⟩ in the kernel's units without divisors.
func TestUnitScaleRegression(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(4, 4))
	n, d := 100, 20
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.NormFloat64())
		}
		y[i] = x.At(i, 0) + 0.1*rnd.NormFloat64()
	}
	r := &Regressor{Kernel: Linear{}}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if r.unit != nil {
		t.Errorf("regression divisors %v, want none", r.unit)
	}
	if _, ok := r.FittedKernel().(Linear); !ok {
		t.Errorf("fitted kernel %v", r.FittedKernel())
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestUnitScaleKernel fits linear-kernel classifiers to inputs x and 10x
// in 30 dimensions, whose kernel values have root mean square about 5.5
// and 550: the solvers see the same functions (U1), so the probabilities
// agree; the fitted kernel is the one given, the model saved and loaded
// predicts the same, and ⟨αₘ⟩ of the kernel functions scale by 100².
func TestUnitScaleKernel(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 1))
	n, d := 200, 30
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			v := rnd.NormFloat64()
			x.Set(i, j, v)
			if j < 3 {
				s += v
			}
		}
		if s+0.5*rnd.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	x10 := scaledCopy(x, constant(d, 10))
	var fits [2]*Classifier
	for k, xi := range []*mat.Dense{x, x10} {
		fits[k] = &Classifier{Kernel: Linear{}}
		if err := fits[k].Fit(xi, y); err != nil {
			t.Fatal(err)
		}
		if _, ok := fits[k].FittedKernel().(Linear); !ok {
			t.Fatalf("fitted kernel %v, want Linear", fits[k].FittedKernel())
		}
		if len(fits[k].RelevanceVectors()) == 0 {
			t.Fatalf("fit %d: no relevance vector", k)
		}
	}
	pa, _ := fits[0].Predict(x)
	pb, _ := fits[1].Predict(x10)
	var errs int
	for i := range pa {
		if !closeRel(pa[i], pb[i], 1e-6) {
			t.Fatalf("row %d: P = %v and %v", i, pa[i], pb[i])
		}
		if (pa[i] > 0.5) != (y[i] == 1) {
			errs++
		}
	}
	if errs > n/10 {
		t.Errorf("%d training errors of %d", errs, n)
	}
	aa, ab := fits[0].Alpha(), fits[1].Alpha()
	for i, col := range fits[0].ActiveSet() {
		want := aa[i] * 1e4
		if col == 0 {
			want = aa[i] // the bias
		}
		if !closeRel(ab[i], want, 1e-5) {
			t.Errorf("function %d: ⟨α⟩ %v, want %v", col, ab[i], want)
		}
	}
	var buf bytes.Buffer
	if err := fits[1].Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := loaded.(*Classifier).Predict(x10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pl {
		if !closeRel(pl[i], pb[i], 1e-12) {
			t.Fatalf("row %d: loaded model P = %v, fitted %v", i, pl[i], pb[i])
		}
	}
}

// TestUnitScaleMulti fits the multi-class model with a linear kernel to
// three classes in 40 standardised dimensions, where the kernel's values
// have root mean square about 6: before (U1) every kernel function's
// ⟨αₘ⟩ exceeded PruneAlpha and the model kept none, predicting a
// constant (as on the digits split). Now it keeps some, predicts better
// than chance (2/3 error), and fits the inputs times 10 to the same
// probabilities. (The sparse linear-kernel model is weak here: 43% test
// error with 6 functions, 19% with the paper's schedule; docs/design.md,
// "Pruning and convergence".)
func TestUnitScaleMulti(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(8, 2))
	n, d, k := 300, 40, 3
	x := mat.NewDense(2*n, d, nil)
	labels := make([]string, 2*n)
	w := mat.NewDense(k, d, nil)
	for c := range k {
		for j := range 4 {
			w.Set(c, 4*c+j, 1)
		}
	}
	for i := range 2 * n {
		for j := range d {
			x.Set(i, j, rnd.NormFloat64())
		}
		best, bv := 0, math.Inf(-1)
		for c := range k {
			v := mat.Dot(w.RowView(c), x.RowView(i)) + 0.3*rnd.NormFloat64()
			if v > bv {
				best, bv = c, v
			}
		}
		labels[i] = strconv.Itoa(best)
	}
	xtr, xte := x.Slice(0, n, 0, d).(*mat.Dense), x.Slice(n, 2*n, 0, d).(*mat.Dense)
	c := &MultiClassifier{Kernel: Linear{}}
	if err := c.Fit(xtr, labels[:n]); err != nil {
		t.Fatal(err)
	}
	if c.Status() == InterceptOnly || len(c.RelevanceVectors()) == 0 {
		t.Fatalf("status %v with %d relevance vectors", c.Status(), len(c.RelevanceVectors()))
	}
	er, err := c.ErrorRate(xte, labels[n:])
	if err != nil {
		t.Fatal(err)
	}
	if er > 0.5 {
		t.Errorf("test error %.3f, want at most 0.5", er)
	}
	if _, ok := c.FittedKernel().(Linear); !ok {
		t.Errorf("fitted kernel %v, want Linear", c.FittedKernel())
	}
	c10 := &MultiClassifier{Kernel: Linear{}}
	if err := c10.Fit(scaledCopy(xtr, constant(d, 10)), labels[:n]); err != nil {
		t.Fatal(err)
	}
	p, _ := c.Prob(xte)
	p10, _ := c10.Prob(scaledCopy(xte, constant(d, 10)))
	if !mat.EqualApprox(p, p10, 1e-6) {
		t.Errorf("probabilities differ for the inputs times 10")
	}
	var buf bytes.Buffer
	if err := c10.Save(&buf); err != nil {
		t.Fatal(err)
	}
	l, err := LoadMultiClassifier(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := l.RelevanceVectors(), c10.RelevanceVectors(); len(a) != len(b) || len(a) != len(c.RelevanceVectors()) {
		t.Errorf("relevance vectors: loaded %v, fitted %v, at the original scale %v", a, b, c.RelevanceVectors())
	}
}
