package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestBoundTrace(t *testing.T) {
	cmpimg.CheckPlot(ExampleBoundTrace, t, "bound.png")
}
