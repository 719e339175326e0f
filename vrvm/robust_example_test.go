package vrvm_test

import (
	"fmt"
	"math"

	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)

func ExampleRobustRegressor() {
	x, t := sincData(100, 0.1, 1)
	for i := 0; i < len(t); i += 10 {
		t[i] += 3 // every tenth target an outlier
	}
	g := &vrvm.Regressor{}
	r := &vrvm.RobustRegressor{}
	if err := g.Fit(x, t); err != nil {
		fmt.Println(err)
		return
	}
	if err := r.Fit(x, t); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", r.Status())
	fmt.Printf("degrees of freedom: %.1f\n", r.DegreesOfFreedom())
	fmt.Printf("weight of row 0 (an outlier): %.3f, of row 1: %.2f\n", r.RowWeights()[0], r.RowWeights()[1])
	at := mat.NewDense(1, 1, []float64{0.5})
	mg, _, _ := g.Predict(at)
	mr, _, _ := r.Predict(at)
	fmt.Printf("y(0.5): Gaussian noise %.2f, Student-t %.2f, true %.2f\n", mg[0], mr[0], math.Sin(0.5)/0.5)
	// Output:
	// status: converged
	// degrees of freedom: 0.9
	// weight of row 0 (an outlier): 0.001, of row 1: 0.89
	// y(0.5): Gaussian noise 1.03, Student-t 0.91, true 0.96
}
