package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestXiActivation(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleXiActivation, t, "xi.png")
}
