// Sinc fits the variational relevance vector machine to noisy samples of
// sin(x)/x, the regression problem of Bishop & Tipping (2000), section 5.1,
// and prints the relevance vectors, the noise estimate and a few
// predictions.
//
// It is a standalone program: run it compiled or interpreted,
//
//	go run ./examples/sinc [-n 100] [-noise 0.1] [-seed 1] [-width 3]
//	vrvm run examples/sinc/sinc.go [-n 100] …
//
// Numbers are printed with every digit, so the two outputs can be compared
// exactly.
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

func main() {
	n := flag.Int("n", 100, "number of training points")
	noise := flag.Float64("noise", 0.1, "standard deviation of the noise")
	seed := flag.Uint64("seed", 1, "seed of the data")
	width := flag.Float64("width", 3, "width r of the Gaussian kernel exp(-‖x-x'‖²/r²)")
	flag.Parse()

	data, err := datasets.Sinc(*n, *noise, *seed)
	if err != nil {
		log.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: *width}}
	if err := r.Fit(data.X, data.T); err != nil {
		log.Fatal(err)
	}

	fmt.Printf("sinc: N = %d, noise σ = %s, Gaussian kernel r = %s\n", *n, g(*noise), g(*width))
	fmt.Printf("status %v after %d iterations\n", r.Status(), r.Iterations())
	fmt.Printf("lower bound %s\n", g(r.LowerBound()))
	fmt.Printf("noise estimate 1/√⟨τ⟩ = %s (true %s)\n", g(r.NoiseSD()), g(*noise))

	// The weights of Mean are the bias (if active) followed by one per
	// entry of ActiveSet; RelevanceVectors is the part of ActiveSet with
	// a non-negligible weight.
	w := r.Mean()
	off := 0
	if r.HasBias() {
		fmt.Printf("bias weight %s\n", g(w[0]))
		off = 1
	}
	weight := map[int]float64{}
	for k, row := range r.ActiveSet() {
		weight[row] = w[off+k]
	}
	rv := r.RelevanceVectors()
	fmt.Printf("%d relevance vectors:\n", len(rv))
	for _, row := range rv {
		fmt.Printf("  x[%d] = %s  w = %s\n", row, g(data.X.At(row, 0)), g(weight[row]))
	}

	xs := []float64{-7.5, -2.5, 0, 2.5, 7.5}
	mean, variance, err := r.Predict(mat.NewDense(len(xs), 1, xs))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("predictions (x, mean, variance, sinc(x)):")
	for i, x := range xs {
		fmt.Printf("  %s %s %s %s\n", g(x), g(mean[i]), g(variance[i]), g(datasets.SincTrue(x)))
	}
}

// g formats x with the fewest digits that represent it exactly.
func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
