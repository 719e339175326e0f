package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestPredictedVsTrue(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExamplePredictedVsTrue, t, "predicted.png")
}
