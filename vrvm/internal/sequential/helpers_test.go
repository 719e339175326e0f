package sequential

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/testgen"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// testProblem is a seeded random problem: N = 10–80 points in 1–3
// dimensions, one of four kernels (Gaussian, polynomial, linear,
// Laplacian), one of three priors, with or without the bias function.
type testProblem struct {
	name     string
	x        *mat.Dense
	t        []float64
	phi      *mat.Dense // N × (bias + N): the design of every candidate
	bias     bool
	prior    lb.Prior
	noise    [2]float64 // the Gamma prior of the noise precision, c and d
	classify bool
}

// newTestProblem returns the problem of the seed.
func newTestProblem(seed uint64, classify bool) testProblem {
	x, t, rnd := testgen.Problem(seed, classify)
	n, d := x.Dims()
	width, degree := 0.5+2*rnd.Float64(), 1+rnd.IntN(3)
	kernels := []struct {
		name string
		k    func(a, b []float64) float64
	}{
		{fmt.Sprintf("gaussian(%.3g)", width), func(a, b []float64) float64 { return math.Exp(-dist2(a, b) / (width * width)) }},
		{fmt.Sprintf("polynomial(%d)", degree), func(a, b []float64) float64 { return math.Pow(1+vec.Dot(a, b)/float64(d), float64(degree)) }},
		{"linear", vec.Dot},
		{fmt.Sprintf("laplace(%.3g)", width), func(a, b []float64) float64 { return math.Exp(-dist1(a, b) / width) }},
	}
	type prior struct{ a, b, c, d float64 }
	priors := []prior{{1e-6, 1e-6, 1e-6, 1e-6}, {1e-3, 1e-3, 1e-3, 1e-3}, {1, 0.1, 2, 0.5}}
	k := kernels[rnd.IntN(len(kernels))]
	pr := priors[rnd.IntN(len(priors))]
	bias := rnd.IntN(4) != 0
	off := 0
	if bias {
		off = 1
	}
	phi := mat.NewDense(n, n+off, nil)
	for i := range n {
		if bias {
			phi.Set(i, 0, 1)
		}
		for j := range n {
			phi.Set(i, j+off, k.k(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	return testProblem{name: fmt.Sprintf("seed=%d/n=%d/d=%d/%s/bias=%v", seed, n, d, k.name, bias), x: x, t: t, phi: phi, bias: bias,
		prior: lb.Prior{A: pr.a, B: pr.b}, noise: [2]float64{pr.c, pr.d}, classify: classify}
}

func dist2(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += (v - b[i]) * (v - b[i])
	}
	return s
}

func dist1(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += math.Abs(v - b[i])
	}
	return s
}

// lik returns the likelihood of p at ⟨τ⟩ = 1/var(t) or ξ = 1.
func (p testProblem) lik() lh.Likelihood {
	if p.classify {
		return lh.NewLogit(p.t, 1)
	}
	var m, v float64
	for _, y := range p.t {
		m += y
	}
	m /= float64(len(p.t))
	for _, y := range p.t {
		v += (y - m) * (y - m)
	}
	v /= float64(len(p.t))
	return lh.NewGauss(p.t, len(p.t), p.noise[0], p.noise[1], 1/v)
}

// settings returns the facade's default settings for p (MaxIter 2000).
func (p testProblem) settings() Settings {
	prune := 1e2 // the default PruneAlpha of regression
	if p.classify {
		prune = 10
	}
	return Settings{Prior: p.prior, Bias: p.bias, PruneAt: prune, Alpha0: 1, MaxIter: 2000, Tol: 1e-10, ParamTol: 1e-6, Crowded: 0.5}
}

// seqProblem returns the sequential solver's state for p, on the exact
// factorisation of its design.
func seqProblem(t *testing.T, p testProblem) *seqFit {
	t.Helper()
	return newSeqFit(design.DenseFactor(p.phi), p.lik(), p.settings())
}
