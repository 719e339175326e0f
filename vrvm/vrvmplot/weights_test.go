package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestWeights(t *testing.T) {
	cmpimg.CheckPlot(ExampleWeights, t, "weights.png")
}

func TestAlphaHistogram(t *testing.T) {
	cmpimg.CheckPlot(ExampleAlphaHistogram, t, "alpha.png")
}
