package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestRegressionFit(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleRegressionFit, t, "regression.png")
}
