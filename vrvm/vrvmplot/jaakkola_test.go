package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

func TestJaakkolaJordan(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleJaakkolaJordan, t, "jaakkola.png")
}
