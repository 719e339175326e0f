// Ripley classifies Ripley's synthetic two-class data with the variational
// relevance vector machine (Bishop & Tipping 2000, section 5.2), prints the
// relevance vectors and the test error, and draws the map of P(t = 1 | x)
// with the decision boundary P = ½ and the Bayes boundary into an image file
// (PNG, or the format its extension names).
//
// It is a standalone program: run it compiled or interpreted,
//
//	go run ./examples/ripley [flags] map.png
//	vrvm run examples/ripley/ripley.go [flags] map.png
//
// By default the data are drawn with datasets.Ripley (250 training and 1000
// test points); -files reads Ripley's own training and test sets from the
// data directory instead (see datasets.Dir).
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

func main() {
	width := flag.Float64("width", 0.5, "width r of the Gaussian kernel exp(-‖x-x'‖²/r²)")
	seed := flag.Uint64("seed", 1, "seed of the generated training set (the test set uses seed+1)")
	files := flag.Bool("files", false, "use Ripley's training and test files instead of generated data")
	grid := flag.Int("grid", 0, "grid points per axis of the map (0: vrvmplot's default)")
	maxIter := flag.Int("maxiter", 0, "iteration limit of the fit (0: the library's default)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: ripley [flags] map.png")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	out := flag.Arg(0)

	var train, test *datasets.Dataset
	var err error
	if *files {
		train, test, err = datasets.LoadRipley()
	} else {
		if train, err = datasets.Ripley(250, *seed); err == nil {
			test, err = datasets.Ripley(1000, *seed+1)
		}
	}
	if err != nil {
		log.Fatal(err)
	}

	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: *width}, MaxIter: *maxIter}
	if err := c.Fit(train.X, train.T); err != nil {
		log.Fatal(err)
	}
	n, _ := train.X.Dims()
	fmt.Printf("ripley: N = %d, Gaussian kernel r = %s\n", n, g(*width))
	fmt.Printf("status %v after %d iterations\n", c.Status(), c.Iterations())
	fmt.Printf("lower bound %s\n", g(c.LowerBound()))
	rv := c.RelevanceVectors()
	fmt.Printf("%d relevance vectors:\n", len(rv))
	for _, row := range rv {
		fmt.Printf("  x[%d] = (%s, %s)  class %s\n", row, g(train.X.At(row, 0)), g(train.X.At(row, 1)), g(train.T[row]))
	}

	p, err := c.ProbModerated(test.X)
	if err != nil {
		log.Fatal(err)
	}
	wrong := 0
	for i, pi := range p {
		if (pi > 0.5) != (test.T[i] == 1) {
			wrong++
		}
	}
	fmt.Printf("test error %d/%d = %s%%\n", wrong, len(p), g(100*float64(wrong)/float64(len(p))))
	fmt.Println("P(t = 1 | x) at the first test points (x, plug-in, moderated):")
	plugin, err := c.ProbPlugin(test.X.Slice(0, 5, 0, 2))
	if err != nil {
		log.Fatal(err)
	}
	for i := range plugin {
		fmt.Printf("  (%s, %s) %s %s\n", g(test.X.At(i, 0)), g(test.X.At(i, 1)), g(plugin[i]), g(p[i]))
	}

	// The figure of package vrvmplot (the paper's Figure 6), with the
	// Bayes boundary of the generating densities drawn for reference.
	fig, err := vrvmplot.DecisionMap(c, train.X, train.T, vrvmplot.MapOptions{
		Points:         *grid,
		Reference:      bayes,
		ReferenceLabel: "Bayes boundary",
	})
	if err != nil {
		log.Fatal(err)
	}
	fig.Panels[0].Title.Text = "VRVM on Ripley's data: P(t = 1 | x)"
	if err := fig.Save(out); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("decision map written to %s\n", filepath.Base(out))
}

// bayes is positive where the Bayes classifier of Ripley's problem, with
// equal class priors, chooses class 1: the log ratio of the class densities.
func bayes(x1, x2 float64) float64 {
	return math.Log(datasets.RipleyDensity(x1, x2, 1) / datasets.RipleyDensity(x1, x2, 0))
}

// g formats x with the fewest digits that represent it exactly.
func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
