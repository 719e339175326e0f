package vrvmplot_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/cmpimg"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

func TestWeights(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleWeights, t, "weights.png")
}

func TestAlphaHistogram(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleAlphaHistogram, t, "alpha.png")
}

// TestWeightsDividedKernel draws the weights of a linear-kernel classifier
// on inputs in the thousands, whose kernel the solver divides by the root
// mean square of its values (U1 in the vrvm package documentation): the
// weights in the kernel's units are then far below RelevanceThreshold,
// and the figure must still count and fill the relevance vectors the
// model reports (before, it drew none).
func TestWeightsDividedKernel(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(4, 9))
	const n, d = 150, 20
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, 1000*rnd.NormFloat64())
		}
		if x.At(i, 0)-x.At(i, 1)+500*rnd.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	c := &vrvm.Classifier{Kernel: vrvm.Linear{}}
	if err := c.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	rv := c.RelevanceVectors()
	if len(rv) == 0 {
		t.Fatal("no relevance vector")
	}
	fig, err := vrvmplot.Weights(c, x)
	if err != nil {
		t.Fatal(err)
	}
	title := fig.Panels[0].Title.Text
	if want := fmt.Sprintf("%d relevance vectors", len(rv)); !strings.Contains(title, want) {
		t.Errorf("title %q, want %q", title, want)
	}
}
