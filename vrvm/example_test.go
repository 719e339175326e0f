package vrvm_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)

// sincData draws n noisy samples of sin(x)/x on (−10, 10).
func sincData(n int, noise float64, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	x := mat.NewDense(n, 1, nil)
	t := make([]float64, n)
	for i := range n {
		v := rnd.Float64()*20 - 10
		x.Set(i, 0, v)
		t[i] = math.Sin(v)/v + noise*rnd.NormFloat64()
	}
	return x, t
}

func ExampleRegressor() {
	x, t := sincData(100, 0.1, 1)
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}
	if err := r.Fit(x, t); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", r.Status())
	fmt.Println("relevance vectors:", len(r.RelevanceVectors()))
	fmt.Printf("noise sd: %.2f\n", r.NoiseSD())
	mean, variance, _ := r.Predict(mat.NewDense(1, 1, []float64{0.5}))
	fmt.Printf("y(0.5) = %.2f ± %.2f (true %.2f)\n", mean[0], 2*math.Sqrt(variance[0]), math.Sin(0.5)/0.5)
	// Output:
	// status: converged
	// relevance vectors: 3
	// noise sd: 0.10
	// y(0.5) = 0.94 ± 0.21 (true 0.96)
}

func ExampleClassifier() {
	// Two noisy classes either side of the circle of radius 1.
	rnd := rand.New(rand.NewPCG(2, 2))
	const n = 120
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	for i := range n {
		a, b := rnd.Float64()*4-2, rnd.Float64()*4-2
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		if a*a+b*b+0.3*rnd.NormFloat64() < 1 {
			t[i] = 1
		}
	}
	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 1}}
	if err := c.Fit(x, t); err != nil {
		fmt.Println(err)
		return
	}
	test := mat.NewDense(3, 2, []float64{0, 0, 0.9, 0.3, 2, 2})
	plugin, _ := c.ProbPlugin(test)
	moderated, _ := c.ProbModerated(test)
	fmt.Println("status:", c.Status())
	for i := range plugin {
		fmt.Printf("P(t=1 | %v) = %.2f plug-in, %.2f moderated\n", test.RawRowView(i), plugin[i], moderated[i])
	}
	// Output:
	// status: converged
	// P(t=1 | [0 0]) = 1.00 plug-in, 1.00 moderated
	// P(t=1 | [0.9 0.3]) = 0.96 plug-in, 0.92 moderated
	// P(t=1 | [2 2]) = 0.00 plug-in, 0.02 moderated
}
