// Customkernel fits the sinc data of examples/sinc with a kernel defined in
// this program, the Cauchy kernel
//
//	K(x, x') = 1 / (1 + ‖x − x'‖² / r²),
//
// and compares the fit with that of the Gaussian kernel of the same width.
// Any type with a method Eval(x, y []float64) float64 is a vrvm.Kernel,
// also when the program is interpreted by "vrvm run" or in a notebook: the
// compiled library then calls back into the interpreted Eval.
//
//	go run ./examples/customkernel
//	vrvm run examples/customkernel/customkernel.go
package main

import (
	"flag"
	"fmt"
	"log"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// Cauchy is the kernel 1 / (1 + ‖x − x'‖² / Width²).
type Cauchy struct {
	Width float64
}

// Eval implements vrvm.Kernel.
func (k Cauchy) Eval(x, y []float64) float64 {
	var d2 float64
	for i := range x {
		d := x[i] - y[i]
		d2 += d * d
	}
	return 1 / (1 + d2/(k.Width*k.Width))
}

func main() {
	n := flag.Int("n", 100, "number of training points")
	seed := flag.Uint64("seed", 1, "seed of the data")
	width := flag.Float64("width", 3, "kernel width r")
	flag.Parse()

	data, err := datasets.Sinc(*n, 0.1, *seed)
	if err != nil {
		log.Fatal(err)
	}
	test := mat.NewDense(5, 1, []float64{-7.5, -2.5, 0, 2.5, 7.5})

	// The kernels are values of the interface type vrvm.Kernel before they
	// go into the Regressor: yaegi v0.16.1 does not convert a script value
	// written directly into a composite literal of a compiled struct, as
	// in vrvm.Regressor{Kernel: Cauchy{…}} (see "vrvm run -h").
	kernels := []vrvm.Kernel{Cauchy{Width: *width}, vrvm.Gaussian{Width: *width}}
	names := []string{"Cauchy (script)", "Gaussian (library)"}
	bounds := make([]float64, len(kernels))
	for i, k := range kernels {
		r := &vrvm.Regressor{Kernel: k}
		if err := r.Fit(data.X, data.T); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s kernel, r = %s: %v after %d iterations\n", names[i], g(*width), r.Status(), r.Iterations())
		bounds[i] = r.LowerBound()
		fmt.Printf("  lower bound %s, noise estimate %s\n", g(bounds[i]), g(r.NoiseSD()))
		fmt.Printf("  relevance vectors %v\n", r.RelevanceVectors())
		mean, _, err := r.Predict(test)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print("  predictions")
		for _, m := range mean {
			fmt.Print(" ", g(m))
		}
		fmt.Println()
	}
	// The lower bound approximates the log evidence ln p(t): the larger
	// bound marks the kernel the data support better.
	best := 0
	if bounds[1] > bounds[0] {
		best = 1
	}
	fmt.Printf("the lower bound prefers the %s kernel\n", names[best])
}

// g formats x with the fewest digits that represent it exactly.
func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
