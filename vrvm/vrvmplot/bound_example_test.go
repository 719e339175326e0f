package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleBoundTrace draws the lower bound of the sinc fit of the paper's
// Figure 3, iteration by iteration.
func ExampleBoundTrace() {
	d, err := datasets.Sinc(50, 0.1, 2)
	if err != nil {
		log.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, MaxIter: 1000, Tol: 1e-10, ParamTol: 1e-6, PruneAlpha: 100, Method: vrvm.PaperSchedule{}}
	if err := r.Fit(d.X, d.T); err != nil {
		log.Fatal(err)
	}
	fig, err := vrvmplot.BoundTrace(r.BoundTrace())
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/bound.png"); err != nil {
		log.Fatal(err)
	}
}
