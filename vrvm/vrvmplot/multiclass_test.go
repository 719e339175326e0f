package vrvmplot_test

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/cmpimg"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

func TestMultiDecisionMap(t *testing.T) {
	t.Parallel()
	cmpimg.CheckPlot(ExampleMultiDecisionMap, t, "multidecision.png")
}

func TestMultiDecisionMapBadInput(t *testing.T) {
	t.Parallel()
	var unfitted vrvm.MultiClassifier
	x := mat.NewDense(6, 2, []float64{0, 0, 0.1, 0, 1, 1, 1.1, 1, 2, 0, 2.1, 0})
	labels := []string{"a", "a", "b", "b", "c", "c"}
	if _, err := vrvmplot.MultiDecisionMap(&unfitted, x, labels, vrvmplot.MapOptions{}); !errors.Is(err, vrvm.ErrNotFitted) {
		t.Errorf("unfitted: got %v", err)
	}
	c := &vrvm.MultiClassifier{}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if _, err := vrvmplot.MultiDecisionMap(c, x, []string{"a", "a", "b", "b", "c", "z"}, vrvmplot.MapOptions{}); err == nil || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("unknown label: got %v", err)
	}
	if _, err := vrvmplot.MultiDecisionMap(c, x, labels, vrvmplot.MapOptions{Points: 1}); err == nil {
		t.Error("Points = 1: no error")
	}
	if _, err := vrvmplot.MultiDecisionMap(c, x, labels[:3], vrvmplot.MapOptions{}); err == nil {
		t.Error("too few labels: no error")
	}
	if _, err := vrvmplot.MultiDecisionMap(c, x, labels, vrvmplot.MapOptions{Points: 20}); err != nil {
		t.Errorf("valid map: %v", err)
	}
}
