// Package testgen holds the seeded problems that the tests of package
// vrvm and of its internal packages share. Only tests import it.
package testgen

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// Problem returns the seeded random problem of the solver tests: N =
// 10–80 rows of 1–3 inputs uniform on [−3, 3] and f = sin 2x₀ + x_{d−1}/2,
// with targets f plus Gaussian noise of an sd drawn from [0.05, 0.35], or,
// if classify, labels 1 where f plus noise of sd 0.4 is positive (the
// first two rows 0 and 1). It returns the generator too, for the test's
// further draws.
func Problem(seed uint64, classify bool) (*mat.Dense, []float64, *rand.Rand) {
	rnd := rand.New(rand.NewPCG(seed, 11))
	n := 10 + rnd.IntN(71)
	d := 1 + rnd.IntN(3)
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rnd.Float64()*6-3)
		}
	}
	t := make([]float64, n)
	for i := range n {
		f := math.Sin(2*x.At(i, 0)) + 0.5*x.At(i, d-1)
		if classify {
			if f+0.4*rnd.NormFloat64() > 0 {
				t[i] = 1
			}
		} else {
			t[i] = f + (0.05+0.3*rnd.Float64())*rnd.NormFloat64()
		}
	}
	if classify {
		t[0], t[1] = 0, 1
	}
	return x, t, rnd
}

// Duplicated returns the n rows of x and t followed by rows 0..n/2 twice
// more, row 1 a fourth time, and row 2's input with the other label (t
// holds 0/1 labels).
func Duplicated(x *mat.Dense, t []float64) (*mat.Dense, []float64) {
	n := len(t)
	rows := subset.Seq(n)
	for i := 0; i <= n/2; i++ {
		rows = append(rows, i, i)
	}
	rows = append(rows, 1, 2)
	xd := subset.Rows(x, rows)
	td := subset.Vec(t, rows)
	td[len(td)-1] = 1 - t[2]
	return xd, td
}
