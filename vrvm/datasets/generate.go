package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SincTrue returns the noise-free sinc function
//
//	sinc(x) = sin(x) / x,   sinc(0) = 1,
//
// the regression target of the paper's Section 6.1 (Figures 3 and 4,
// Table 1).
//
// Special cases are
//
//	SincTrue(0) = 1
//	SincTrue(±Inf) = 0
//	SincTrue(NaN) = NaN
func SincTrue(x float64) float64 {
	switch {
	case x == 0:
		return 1
	case math.IsInf(x, 0):
		return 0
	}
	return math.Sin(x) / x
}

// Sinc draws n examples of the noisy sinc problem
//
//	xₙ ~ U(−10, 10),   tₙ = sin(xₙ)/xₙ + εₙ,   εₙ ~ N(0, noise²),
//
// from the PCG generator seeded with (seed, seed): first the n inputs, then
// the n noise values, so that the inputs do not depend on noise. The column
// is "x" and the target "t". The paper uses noise = 0.1 and, in Figure 3,
// n = 50; SincSets holds fixed sets of 50 and 100 points.
//
// Sinc returns an error if n ≤ 0 or noise is negative, infinite or NaN.
// The same arguments always give the same data.
func Sinc(n int, noise float64, seed uint64) (*Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: Sinc: n = %d, want n > 0", n)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("datasets: Sinc: noise = %v, want a finite standard deviation ≥ 0", noise)
	}
	rnd := rand.New(rand.NewPCG(seed, seed))
	x := make([]float64, n)
	for i := range x {
		x[i] = -10 + 20*rnd.Float64()
	}
	t := make([]float64, n)
	for i := range t {
		t[i] = SincTrue(x[i]) + noise*rnd.NormFloat64()
	}
	return &Dataset{X: matCol(x), T: t, Columns: []string{"x"}, Target: "t"}, nil
}

// Ripley's class-conditional mixture components (Ripley 1996; the
// generator of synth.tr and synth.te): each class is an equal mixture of two
// Gaussians N(m, RipleyVar·I).
var (
	ripleyMeans = [2][2][2]float64{
		{{-0.7, 0.3}, {0.3, 0.3}}, // class 0
		{{-0.3, 0.7}, {0.4, 0.7}}, // class 1
	}
)

// RipleyVar is the variance σ² = 0.03 of each coordinate of each mixture
// component of Ripley's synthetic problem.
const RipleyVar = 0.03

// Ripley draws n examples of Ripley's synthetic two-class problem
// (Ripley 1996): class 0 is the equal mixture of N((−0.7, 0.3), 0.03·I)
// and N((0.3, 0.3), 0.03·I), class 1 that of N((−0.3, 0.7), 0.03·I) and
// N((0.4, 0.7), 0.03·I). The Bayes error is about 9% (8.0% on Ripley's
// test set, the figure the paper quotes in its Section 6.2).
//
// The classes are balanced: class 1 has ⌊n/2⌋ examples and class 0 the
// other ⌈n/2⌉. Each example's mixture component is drawn with probability
// ½ each, and the rows are shuffled, so any leading block of rows is a
// random sample. The columns are "xs" and "ys" and the target "yc" (0 or
// 1), as in Ripley's files. Random numbers come from the PCG generator
// seeded with (seed, seed); the same arguments always give the same data.
//
// Ripley returns an error if n ≤ 0.
func Ripley(n int, seed uint64) (*Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: Ripley: n = %d, want n > 0", n)
	}
	return mixture(n, rand.New(rand.NewPCG(seed, seed)), ripleyMeans[:], func(i int) int {
		if i >= n-n/2 {
			return 1
		}
		return 0
	}), nil
}

// mixture draws n points of a Ripley-style problem from rnd: row i of
// class class(i), from one of its two Gaussians (means, covariance
// RipleyVar·I) chosen with probability ½; then the rows are shuffled.
func mixture(n int, rnd *rand.Rand, means [][2][2]float64, class func(i int) int) *Dataset {
	sd := math.Sqrt(RipleyVar)
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	for i := range n {
		c := class(i)
		m := means[c][rnd.IntN(2)]
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
	return &Dataset{X: x, T: t, Columns: []string{"xs", "ys"}, Target: "yc"}
}

// RipleyDensity returns the class-conditional density p(x | class) of
// Ripley's problem at (xs, ys) for class 0 or 1. With equal class priors
// the Bayes classifier assigns class 1 where RipleyDensity(xs, ys, 1) >
// RipleyDensity(xs, ys, 0). It panics if class is not 0 or 1.
func RipleyDensity(xs, ys float64, class int) float64 {
	if class != 0 && class != 1 {
		panic(fmt.Sprintf("datasets: RipleyDensity: class %d, want 0 or 1", class))
	}
	return mixtureDensity(ripleyMeans[class], xs, ys)
}

// mixtureDensity is the density at (xs, ys) of the equal mixture of two
// Gaussians with the given means and covariance RipleyVar·I.
func mixtureDensity(means [2][2]float64, xs, ys float64) float64 {
	var p float64
	for _, m := range means {
		dx, dy := xs-m[0], ys-m[1]
		p += 0.5 * math.Exp(-(dx*dx+dy*dy)/(2*RipleyVar)) / (2 * math.Pi * RipleyVar)
	}
	return p
}

// matCol returns v as an n×1 matrix.
func matCol(v []float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
