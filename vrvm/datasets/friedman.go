package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// FriedmanTrue is the noise-free Friedman #1 function (Friedman 1991) of
// the first five inputs: 10 sin(π x₁x₂) + 20 (x₃ − ½)² + 10 x₄ + 5 x₅.
func FriedmanTrue(x []float64) float64 {
	return 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4]
}

// Friedman1 returns n samples of the Friedman #1 regression problem: x
// uniform on [0, 1]^d (d ≥ 5; inputs 6 to d do not enter the function)
// and t = FriedmanTrue(x) + noise·N(0, 1), seeded by seed.
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
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	x := mat.NewDense(n, d, nil)
	t := make([]float64, n)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rnd.Float64()
		}
		t[i] = FriedmanTrue(row) + noise*rnd.NormFloat64()
	}
	cols := make([]string, d)
	for j := range cols {
		cols[j] = fmt.Sprintf("x%d", j+1)
	}
	return &Dataset{X: x, T: t, Columns: cols, Target: "t"}, nil
}
