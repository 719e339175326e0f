package vrvmplot_test

import (
	"log"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// ExampleJaakkolaJordan draws the bound (50) for three values of ξ.
func ExampleJaakkolaJordan() {
	fig, err := vrvmplot.JaakkolaJordan([]float64{0.5, 2, 4})
	if err != nil {
		log.Fatal(err)
	}
	if err := fig.Save("testdata/jaakkola.png"); err != nil {
		log.Fatal(err)
	}
}
