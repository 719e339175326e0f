package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestXiActivation(t *testing.T) {
	cmpimg.CheckPlot(ExampleXiActivation, t, "xi.png")
}
