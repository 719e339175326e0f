package vrvmplot_test

import (
	"log"
	"math"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ripleyModel is a classifier like the paper's Figure 6: 100 points of
// Ripley's synthetic problem, a Gaussian kernel of width 0.5, and an
// iteration limit so that the figure does not depend on the solver's
// default convergence settings.
func ripleyModel() (*vrvm.Classifier, *datasets.Dataset) {
	d, err := datasets.Ripley(100, 1)
	if err != nil {
		log.Fatal(err)
	}
	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 0.5}, MaxIter: 2000, Tol: 1e-10, ParamTol: 1e-6, PruneAlpha: 10, NoAugment: true} // the paper's model
	if err := c.Fit(d.X, d.T); err != nil {
		log.Fatal(err)
	}
	return c, d
}

// ExampleDecisionMap draws the paper's Figure 6, with the Bayes decision
// boundary of Ripley's problem for comparison.
func ExampleDecisionMap() {
	c, d := ripleyModel()
	bayes := func(x1, x2 float64) float64 {
		// Equal class priors: the boundary is where the class densities
		// are equal.
		return math.Log(datasets.RipleyDensity(x1, x2, 1) / datasets.RipleyDensity(x1, x2, 0))
	}
	fig, err := vrvmplot.DecisionMap(c, d.X, d.T, vrvmplot.MapOptions{Reference: bayes, ReferenceLabel: "Bayes boundary"})
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/decision.png"); err != nil {
		log.Fatal(err)
	}
}
