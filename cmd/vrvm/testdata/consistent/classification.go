// Classification prints the complete fitted state of a classification fit
// with every digit. TestConsistent runs it compiled and interpreted and
// requires the two outputs to be identical.
package main

import (
	"fmt"
	"log"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func main() {
	train, err := datasets.Ripley(120, 3)
	if err != nil {
		log.Fatal(err)
	}
	test, err := datasets.Ripley(200, 4)
	if err != nil {
		log.Fatal(err)
	}
	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 0.5}, MaxIter: 3000}
	if err := c.Fit(train.X, train.T); err != nil {
		log.Fatal(err)
	}
	fmt.Println("status", c.Status(), "iterations", c.Iterations())
	fmt.Println("lower bound", g(c.LowerBound()))
	trace := c.BoundTrace()
	fmt.Println("trace length", len(trace), "first", g(trace[0]), "last", g(trace[len(trace)-1]))
	fmt.Println("trace", gs(trace))
	fmt.Println("bias", c.HasBias(), "active", c.ActiveSet(), "relevance", c.RelevanceVectors())
	fmt.Println("mean", gs(c.Mean()))
	fmt.Println("alpha", gs(c.Alpha()))
	fmt.Println("xi", gs(c.Xi()))
	cov := c.Covariance()
	for i := 0; i < cov.SymmetricDim(); i++ {
		fmt.Println("covariance", i, gs(mat.Row(nil, i, cov)))
	}

	am, av, err := c.Latent(test.X)
	if err != nil {
		log.Fatal(err)
	}
	plugin, err := c.ProbPlugin(test.X)
	if err != nil {
		log.Fatal(err)
	}
	moderated, err := c.ProbModerated(test.X)
	if err != nil {
		log.Fatal(err)
	}
	labels, err := c.Predict(test.X)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("activation mean", gs(am))
	fmt.Println("activation variance", gs(av))
	fmt.Println("plug-in", gs(plugin))
	fmt.Println("moderated", gs(moderated))
	wrong := 0
	for i, l := range labels {
		if l != test.T[i] {
			wrong++
		}
	}
	fmt.Println("labels", gs(labels))
	fmt.Println("test errors", wrong, "of", len(labels))

	// Labels outside {0, 1} are an error of the library's type.
	err = (&vrvm.Classifier{}).Fit(mat.NewDense(2, 1, []float64{1, 2}), []float64{0, 2})
	_, isLabel := err.(*vrvm.LabelError)
	fmt.Printf("bad label: %v (LabelError %t)\n", err, isLabel)
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func gs(x []float64) string {
	s := ""
	for i, v := range x {
		if i > 0 {
			s += " "
		}
		s += g(v)
	}
	return s
}
