package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestReliability(t *testing.T) {
	cmpimg.CheckPlot(ExampleReliability, t, "reliability.png")
}
