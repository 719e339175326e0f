package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestRegressionFit(t *testing.T) {
	cmpimg.CheckPlot(ExampleRegressionFit, t, "regression.png")
}
