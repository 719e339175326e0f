package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
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
	rnd := rand.New(rand.NewPCG(seed, seed^0x3c))
	sd := math.Sqrt(RipleyVar)
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	for i := range n {
		c := i % 3
		m := ripley3Means[c][rnd.IntN(2)]
		x.Set(i, 0, m[0]+sd*rnd.NormFloat64())
		x.Set(i, 1, m[1]+sd*rnd.NormFloat64())
		t[i] = float64(c)
	}
	rnd.Shuffle(n, func(i, j int) {
		t[i], t[j] = t[j], t[i]
		ri, rj := x.RawRowView(i), x.RawRowView(j)
		ri[0], rj[0] = rj[0], ri[0]
		ri[1], rj[1] = rj[1], ri[1]
	})
	return &Dataset{X: x, T: t, Columns: []string{"xs", "ys"}, Target: "yc"}, nil
}

// Ripley3Density returns the density of class 0, 1 or 2 of Ripley3 at
// (xs, ys); with equal class priors the Bayes classifier picks the class
// of the largest density. Another class is a programmer error and panics.
func Ripley3Density(xs, ys float64, class int) float64 {
	if class < 0 || class > 2 {
		panic(fmt.Sprintf("datasets: Ripley3Density: class %d, want 0, 1 or 2", class))
	}
	var p float64
	for _, m := range ripley3Means[class] {
		dx, dy := xs-m[0], ys-m[1]
		p += 0.5 * math.Exp(-(dx*dx+dy*dy)/(2*RipleyVar)) / (2 * math.Pi * RipleyVar)
	}
	return p
}
