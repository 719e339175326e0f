package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleMarginalPrior draws the paper's Figure 1: the Student-t marginal
// of the hierarchical prior with a = b = 1 against a Laplace prior of the
// same density at zero.
func ExampleMarginalPrior() {
	fig, err := vrvmplot.MarginalPrior(1, 1, 0)
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/prior.png"); err != nil {
		log.Fatal(err)
	}
}
