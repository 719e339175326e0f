package datasets

import (
	"fmt"
	"math/rand/v2"
)

// ripley3Means are the component means of Ripley3: Ripley's two classes
// and a third below them, two equally weighted components each.
var ripley3Means = [3][2][2]float64{
	{{-0.7, 0.3}, {0.3, 0.3}},
	{{-0.3, 0.7}, {0.4, 0.7}},
	{{-0.2, -0.1}, {0.7, -0.05}},
}

// Ripley3 returns n points of a three-class version of Ripley's synthetic
// problem: classes 0 and 1 are Ripley's (see Ripley), class 2 a mixture of
// two Gaussians of the same covariance RipleyVar·I centred at (−0.2, −0.1)
// and (0.7, −0.05); the classes take turns (class i mod 3) and the rows
// are shuffled. T holds 0, 1 and 2. The same seed gives the same points.
func Ripley3(n int, seed uint64) (*Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: Ripley3: n = %d, want n > 0", n)
	}
	return mixture(n, rand.New(rand.NewPCG(seed, seed^0x3c)), ripley3Means[:], func(i int) int { return i % 3 }), nil
}

// Ripley3Density returns the density of class 0, 1 or 2 of Ripley3 at
// (xs, ys); with equal class priors the Bayes classifier picks the class
// of the largest density. Another class is a programmer error and panics.
func Ripley3Density(xs, ys float64, class int) float64 {
	if class < 0 || class > 2 {
		panic(fmt.Sprintf("datasets: Ripley3Density: class %d, want 0, 1 or 2", class))
	}
	return mixtureDensity(ripley3Means[class], xs, ys)
}
