package multiclass

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
)

// blobProblem is a seeded random K-class problem, drawn as the facade's
// tests draw theirs (K Gaussian blobs in d dimensions with some label
// noise), as its design: a Gaussian, polynomial or linear kernel centred
// at every row, after a bias column if bias; and a prior.
func blobProblem(seed uint64) (phi *mat.Dense, y []int, k int, prior bound.Prior, bias bool) {
	rnd := rand.New(rand.NewPCG(seed, 18))
	nc := 2 + rnd.IntN(3)
	n := 3*nc + rnd.IntN(30)
	d := 1 + rnd.IntN(3)
	centres := make([][]float64, nc)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = 2 * rnd.NormFloat64()
		}
	}
	x := mat.NewDense(n, d, nil)
	y = make([]int, n)
	for i := range n {
		c := i % nc
		for j := range d {
			x.Set(i, j, centres[c][j]+rnd.NormFloat64())
		}
		if rnd.Float64() < 0.1 && i >= 2*nc {
			c = rnd.IntN(nc)
		}
		y[i] = c
	}
	width, degree := 0.5+2*rnd.Float64(), 1+rnd.IntN(2)
	kern := rnd.IntN(3)
	priors := []bound.Prior{{A: 1e-6, B: 1e-6}, {A: 1e-3, B: 1e-3}, {A: 1, B: 0.1}}
	prior = priors[rnd.IntN(len(priors))]
	bias = rnd.IntN(4) != 0
	off := 0
	if bias {
		off = 1
	}
	phi = mat.NewDense(n, n+off, nil)
	for i := range n {
		if bias {
			phi.Set(i, 0, 1)
		}
		for j := range n {
			var d2, xy float64
			for l := range d {
				a, b := x.At(i, l), x.At(j, l)
				d2 += (a - b) * (a - b)
				xy += a * b
			}
			v := xy // linear
			switch kern {
			case 0:
				v = math.Exp(-d2 / (width * width))
			case 1:
				v = math.Pow(1+xy/float64(d), float64(degree))
			}
			phi.Set(i, off+j, v)
		}
	}
	seen := map[int]bool{}
	for _, c := range y {
		seen[c] = true
	}
	return phi, y, len(seen), prior, bias
}

// tinyMultiDesign returns an n × m design of standard normal entries,
// drawn row by row from rnd, and the labels yₙ = n mod k: the tiny
// problems of the Monte Carlo checks.
func tinyMultiDesign(rnd *rand.Rand, n, k, m int) (*mat.Dense, []int) {
	phi := mat.NewDense(n, m, nil)
	y := make([]int, n)
	for i := range n {
		for j := range m {
			phi.Set(i, j, rnd.NormFloat64())
		}
		y[i] = i % k
	}
	return phi, y
}

// randomCov returns the random covariance LLᵀ + ridge·I, L an m × m
// matrix of N(0, ¼) entries drawn row by row from rnd.
func randomCov(rnd *rand.Rand, m int, ridge float64) *mat.SymDense {
	var lm mat.Dense
	lm.Apply(func(i, j int, v float64) float64 { return 0.5 * rnd.NormFloat64() }, mat.NewDense(m, m, nil))
	sigma := mat.NewSymDense(m, nil)
	sigma.SymOuterK(1, &lm)
	for i := range m {
		sigma.SetSym(i, i, sigma.At(i, i)+ridge)
	}
	return sigma
}

func gammaLogPDF(x, a, b float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(b) + (a-1)*math.Log(x) - b*x - lg
}

// gammaSample draws from Γ(shape a ≥ 1, rate b) by Marsaglia and Tsang.
func gammaSample(rnd *rand.Rand, a, b float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rnd.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rnd.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v / b
		}
	}
}
