package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Friedman1True returns the noise-free Friedman #1 function of the first
// five inputs (Friedman 1991, "Multivariate adaptive regression splines"),
//
//	f(x) = 10 sin(π x₁ x₂) + 20 (x₃ − ½)² + 10 x₄ + 5 x₅;
//
// further inputs do not enter. It panics if x has fewer than five
// elements.
func Friedman1True(x []float64) float64 {
	return 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4]
}

// Friedman1 draws n examples of the Friedman #1 problem in d ≥ 5 inputs,
//
//	xₙ ~ U(0, 1)^d,   tₙ = Friedman1True(xₙ) + εₙ,   εₙ ~ N(0, noise²),
//
// from the PCG generator seeded with (seed, seed): first the inputs, row
// by row, then the noise. Inputs 6…d are irrelevant. The columns are
// "x1"…"xd" and the target "t". The usual setting is d = 10, noise = 1.
//
// Friedman1 returns an error if n ≤ 0, d < 5 or noise is negative,
// infinite or NaN.
func Friedman1(n, d int, noise float64, seed uint64) (*Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: Friedman1: n = %d, want n > 0", n)
	}
	if d < 5 {
		return nil, fmt.Errorf("datasets: Friedman1: d = %d, want d ≥ 5", d)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("datasets: Friedman1: noise = %v, want a finite standard deviation ≥ 0", noise)
	}
	rnd := rand.New(rand.NewPCG(seed, seed))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rnd.Float64()
		}
	}
	t := make([]float64, n)
	for i := range t {
		t[i] = Friedman1True(x.RawRowView(i)) + noise*rnd.NormFloat64()
	}
	cols := make([]string, d)
	for j := range cols {
		cols[j] = "x" + strconv.Itoa(j+1)
	}
	return &Dataset{X: x, T: t, Columns: cols, Target: "t"}, nil
}
