package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestDecisionMap(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleDecisionMap, t, "decision.png")
}
