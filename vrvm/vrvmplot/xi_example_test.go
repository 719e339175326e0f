package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleXiActivation draws the variational parameters of the classifier
// of the paper's Figure 6 against its activations.
func ExampleXiActivation() {
	c, d := ripleyModel()
	fig, err := vrvmplot.XiActivation(c, d.X)
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/xi.png"); err != nil {
		log.Fatal(err)
	}
}
