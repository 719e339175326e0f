package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestBoundTrace(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleBoundTrace, t, "bound.png")
}
