package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestReliability(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleReliability, t, "reliability.png")
}
