package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// fig4Model is the model of the paper's Figure 4: the sinc fit of
// Figure 3 without pruning, so that all 51 weights are kept. The fit stops
// after 1000 iterations, long before the irrelevant precisions converge.
func fig4Model() (*vrvm.Regressor, *datasets.Dataset) {
	d, err := datasets.Sinc(50, 0.1, 2)
	if err != nil {
		log.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, NoPrune: true, MaxIter: 1000, Tol: 1e-10, ParamTol: 1e-6}
	if err := r.Fit(d.X, d.T); err != nil {
		log.Fatal(err)
	}
	return r, d
}

// ExampleWeights draws the 51 mean weights of the paper's Figure 4
// (right) against the centres of their kernel functions.
func ExampleWeights() {
	r, d := fig4Model()
	fig, err := vrvmplot.Weights(r, d.X)
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/weights.png"); err != nil {
		log.Fatal(err)
	}
}

// ExampleAlphaHistogram draws the histogram of the mean precisions of the
// paper's Figure 4 (left).
func ExampleAlphaHistogram() {
	r, _ := fig4Model()
	fig, err := vrvmplot.AlphaHistogram(r, 0)
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/alpha.png"); err != nil {
		log.Fatal(err)
	}
}
