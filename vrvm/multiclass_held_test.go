package vrvm

import (
	"fmt"
	"math/rand/v2"
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

// TestHeldRestart checks (M24): on inputs where every Gaussian kernel
// function at the median distance is nearly the same constant, the fit
// from the bias alone keeps the bias alone (a constant model), and the
// restart from the held bias keeps functions, at a higher full-model
// bound and a lower training error.
func TestHeldRestart(t *testing.T) {
	x, labels := heldProblem(1, 300, 200, 4, 8, 1)
	width := MedianDistance(x)
	fit := func(on bool) *MultiClassifier {
		defer func(v bool) { mcHeldRestart = v }(mcHeldRestart)
		mcHeldRestart = on
		c := &MultiClassifier{Kernel: Gaussian{Width: width}}
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		return c
	}
	off, on := fit(false), fit(true)
	eOff, _ := off.ErrorRate(x, labels)
	eOn, _ := on.ErrorRate(x, labels)
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
