package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleMultiDecisionMap draws a multi-class VRVM fitted to 150 points
// of the three-class Ripley problem.
func ExampleMultiDecisionMap() {
	d, err := datasets.Ripley3(150, 1)
	if err != nil {
		log.Fatal(err)
	}
	labels, err := vrvm.IntLabels(d.T)
	if err != nil {
		log.Fatal(err)
	}
	c := &vrvm.MultiClassifier{Kernel: vrvm.Gaussian{Width: 0.5}, MaxIter: 200}
	if err := c.Fit(d.X, labels); err != nil {
		log.Fatal(err)
	}
	fig, err := vrvmplot.MultiDecisionMap(c, d.X, labels, vrvmplot.MapOptions{Points: 60})
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/multidecision.png"); err != nil {
		log.Fatal(err)
	}
}
