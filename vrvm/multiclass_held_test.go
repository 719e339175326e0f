package vrvm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// heldProblem returns n rows of d inputs in k balanced classes, each a
// Gaussian cluster of unit spread around a vertex of the hypercube
// [−sep, sep]^inf in the first inf inputs; the other inputs are standard
// normal noise (scikit-learn's make_classification without its
// redundant inputs).
func heldProblem(seed uint64, n, d, k, inf int, sep float64) (*mat.Dense, []string) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	centre := make([][]float64, k)
	for c := range centre {
		centre[c] = make([]float64, inf)
		for j := range inf {
			centre[c][j] = sep
			if rnd.IntN(2) == 0 {
				centre[c][j] = -sep
			}
		}
	}
	x := mat.NewDense(n, d, nil)
	labels := make([]string, n)
	for i := range n {
		c := i % k
		for j := range d {
			v := rnd.NormFloat64()
			if j < inf {
				v += centre[c][j]
			}
			x.Set(i, j, v)
		}
		labels[i] = fmt.Sprintf("c%d", c)
	}
	return x, labels
}

// fitHeld fits MultiClassifier{Kernel: k} to (x, labels) without and
// with the held restart (M24) and returns both fits and their training
// errors.
func fitHeld(t *testing.T, k Kernel, x *mat.Dense, labels []string) (off, on *MultiClassifier, eOff, eOn float64) {
	t.Helper()
	fit := func(held bool) (*MultiClassifier, float64) {
		c := &MultiClassifier{Kernel: k, NoAugment: true, ctl: controls{noMCHeldRestart: !held}} // the fit's own training error
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		e, err := c.ErrorRate(x, labels)
		if err != nil {
			t.Fatal(err)
		}
		return c, e
	}
	off, eOff = fit(false)
	on, eOn = fit(true)
	return off, on, eOff, eOn
}

// TestHeldRestart checks (M24): on inputs where every Gaussian kernel
// function at the median distance is nearly the same constant, the fit
// from the bias alone keeps the bias alone (a constant model), and the
// restart from the held bias keeps functions, at a higher full-model
// bound and a lower training error.
func TestHeldRestart(t *testing.T) {
	t.Parallel()
	x, labels := heldProblem(1, 300, 200, 4, 8, 1)
	width := MedianDistance(x)
	off, on, eOff, eOn := fitHeld(t, Gaussian{Width: width}, x, labels)
	t.Logf("width %.3g: first start %d functions, bound %.2f, training error %.3f; held restart %d, %.2f, %.3f",
		width, len(off.ActiveSet()), off.LowerBound(), eOff, len(on.ActiveSet()), on.LowerBound(), eOn)
	if n := len(off.RelevanceVectors()); n != 0 {
		t.Fatalf("the first start kept %d relevance vectors: the problem no longer shows the constant fit", n)
	}
	if len(on.RelevanceVectors()) == 0 {
		t.Fatal("the held restart kept no relevance vector")
	}
	if !(on.LowerBound() > off.LowerBound()+10) {
		t.Errorf("bound %.2f with the held restart, %.2f without", on.LowerBound(), off.LowerBound())
	}
	if !(eOn < eOff-0.1) {
		t.Errorf("training error %.3f with the held restart, %.3f without", eOn, eOff)
	}
}

// blobs returns n rows of k Gaussian clusters with standard deviation sd
// in two dimensions, centres uniform in [−10, 10]² (scikit-learn's
// make_blobs), standardised; row i is in cluster i mod k.
func blobs(seed uint64, n, k int, sd float64) (*mat.Dense, []string) {
	rnd := rand.New(rand.NewPCG(seed, 11))
	centre := make([][2]float64, k)
	for c := range centre {
		centre[c] = [2]float64{-10 + 20*rnd.Float64(), -10 + 20*rnd.Float64()}
	}
	x := mat.NewDense(n, 2, nil)
	labels := make([]string, n)
	for i := range n {
		c := i % k
		x.Set(i, 0, centre[c][0]+sd*rnd.NormFloat64())
		x.Set(i, 1, centre[c][1]+sd*rnd.NormFloat64())
		labels[i] = fmt.Sprintf("c%d", c)
	}
	standardise(x, mat.NewDense(1, 2, nil))
	return x, labels
}

// kernelFunctions returns the number of kernel functions (the bias not
// counted) with a non-zero weight in each class of a fitted model.
func kernelFunctions(c *MultiClassifier) []int {
	w := c.Mean()
	m, k := w.Dims()
	per := make([]int, k)
	for i := m - len(c.ActiveSet()); i < m; i++ { // the bias, if active, is row 0
		for j := range k {
			if w.At(i, j) != 0 {
				per[j]++
			}
		}
	}
	return per
}

// TestHeldRestartEmptyClass checks (M24) for one class: on six
// overlapping clusters (seed 8 of 30 seeded problems) the sequential fit
// leaves one class with the bias alone, a probability flat in x; the
// restart from the held bias gives every class a kernel function, at a
// higher full-model bound and a lower training error.
func TestHeldRestartEmptyClass(t *testing.T) {
	t.Parallel()
	x, labels := blobs(8, 300, 6, 2)
	off, on, eOff, eOn := fitHeld(t, nil, x, labels)
	pOff, pOn := kernelFunctions(off), kernelFunctions(on)
	t.Logf("first start: functions per class %v, bound %.2f, training error %.3f; held restart %v, %.2f, %.3f",
		pOff, off.LowerBound(), eOff, pOn, on.LowerBound(), eOn)
	if !slices.Contains(pOff, 0) {
		t.Fatalf("the first start gave every class a kernel function (%v): the problem no longer shows the empty class", pOff)
	}
	if slices.Contains(pOn, 0) {
		t.Errorf("with the held restart a class has no kernel function: %v", pOn)
	}
	if !(on.LowerBound() > off.LowerBound()) {
		t.Errorf("bound %.2f with the held restart, %.2f without", on.LowerBound(), off.LowerBound())
	}
	if !(eOn < eOff) {
		t.Errorf("training error %.3f with the held restart, %.3f without", eOn, eOff)
	}
}

// TestMultiRepeatedRows checks that the multi-class solver never adds a
// function whose column repeats an active one's (twin, as the binary
// models' sequential solver): with every training row of a three-class
// problem written three times, no two active functions share a centre,
// and the fit converges.
func TestMultiRepeatedRows(t *testing.T) {
	t.Parallel()
	x0, l0 := heldProblem(3, 150, 6, 3, 4, 1)
	n, d := x0.Dims()
	x := mat.NewDense(3*n, d, nil)
	labels := make([]string, 3*n)
	for i := range 3 * n {
		x.SetRow(i, x0.RawRowView(i%n))
		labels[i] = l0[i%n]
	}
	c := &MultiClassifier{Kernel: Gaussian{Width: 2}}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	act := c.ActiveSet()
	seen := map[int]bool{}
	for _, r := range act {
		if seen[r%n] {
			t.Errorf("rows %d and another copy of row %d are both active (active set %v)", r, r%n, act)
		}
		seen[r%n] = true
	}
	t.Logf("%d active functions, %d iterations, status %v, bound %.2f", len(act), c.Iterations(), c.Status(), c.LowerBound())
	if c.Status() != Converged {
		t.Errorf("status %v after %d iterations", c.Status(), c.Iterations())
	}
}
