package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExamplePredictedVsTrue draws the predictions of a fit to 50 noisy
// samples of sinc(x) for 40 new samples against their targets.
func ExamplePredictedVsTrue() {
	train, err := datasets.Sinc(50, 0.1, 2)
	if err != nil {
		log.Fatal(err)
	}
	test, err := datasets.Sinc(40, 0.1, 3)
	if err != nil {
		log.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, MaxIter: 1000, Tol: 1e-10, ParamTol: 1e-6, PruneAlpha: 100, NoAugment: true} // the paper's model
	if err := r.Fit(train.X, train.T); err != nil {
		log.Fatal(err)
	}
	fig, err := vrvmplot.PredictedVsTrue(r, test.X, test.T)
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/predicted.png"); err != nil {
		log.Fatal(err)
	}
}
