package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestMarginalPrior(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleMarginalPrior, t, "prior.png")
}
