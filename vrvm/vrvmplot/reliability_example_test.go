package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleReliability draws the reliability diagram of the classifier of
// the paper's Figure 6 (100 training points of Ripley's problem) on 1,000
// new points.
func ExampleReliability() {
	c, _ := ripleyModel()
	test, err := datasets.Ripley(1000, 2)
	if err != nil {
		log.Fatal(err)
	}
	fig, err := vrvmplot.Reliability(c, test.X, test.T, vrvmplot.ReliabilityOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/reliability.png"); err != nil {
		log.Fatal(err)
	}
}
