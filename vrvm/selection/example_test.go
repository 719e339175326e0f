package selection_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/selection"
)

// Choose the width of a Gaussian kernel for 40 noisy sinc points by 5-fold
// cross-validation and by the lower bound.
func ExampleSearch() {
	d, err := datasets.Sinc(40, 0.1, 7)
	if err != nil {
		log.Fatal(err)
	}
	s := selection.Search{
		Estimator: &vrvm.Regressor{Method: vrvm.PaperSchedule{}},
		Kernels:   selection.GaussianKernels(0.2, 2, 30),
		Seed:      1,
	}
	r, err := s.Run(context.Background(), d.X, d.T)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("cross-validation:", selection.Describe(r.Candidates[r.ByCV].Kernel))
	fmt.Println("lower bound:     ", selection.Describe(r.Candidates[r.ByBound].Kernel))
	fmt.Println("agree:", r.Agree())
	// Output:
	// cross-validation: Gaussian(width=2)
	// lower bound:      Gaussian(width=2)
	// agree: true
}
