package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleRegressionFit draws the paper's Figure 3: a fit to 50 noisy
// samples of sinc(x) with a Gaussian kernel of width 3.
func ExampleRegressionFit() {
	d, err := datasets.Sinc(50, 0.1, 2)
	if err != nil {
		log.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, MaxIter: 1000, Tol: 1e-10, ParamTol: 1e-6, PruneAlpha: 100, NoAugment: true} // the paper's model
	if err := r.Fit(d.X, d.T); err != nil {
		log.Fatal(err)
	}
	fig, err := vrvmplot.RegressionFit(r, d.X, d.T, vrvmplot.FitOptions{True: datasets.SincTrue, TrueLabel: "sinc(x)", Latent: true})
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/regression.png"); err != nil {
		log.Fatal(err)
	}
}
