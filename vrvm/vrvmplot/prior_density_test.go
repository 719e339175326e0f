package vrvmplot_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// TestStudentT checks StudentT against the definition, the Gaussian
// N(w | 0, 1/α) integrated over α ~ Γ(a, b) by quadrature, and its
// normalisation.
func TestStudentT(t *testing.T) {
	t.Parallel()
	const tol = 1e-7
	// α = u/(1−u) maps (0, 1) onto (0, ∞).
	overAlpha := func(f func(alpha float64) float64) float64 {
		return quad.Fixed(func(u float64) float64 {
			return f(u/(1-u)) / ((1 - u) * (1 - u))
		}, 0, 1, 4000, nil, 0)
	}
	for _, tc := range []struct{ a, b float64 }{{1, 1}, {2, 0.5}, {0.5, 3}, {3, 3}} {
		g := distuv.Gamma{Alpha: tc.a, Beta: tc.b}
		for _, w := range []float64{0, 0.3, -1, 2.5, 6} {
			want := overAlpha(func(alpha float64) float64 {
				if alpha == 0 || math.IsInf(alpha, 0) {
					return 0
				}
				return distuv.Normal{Mu: 0, Sigma: 1 / math.Sqrt(alpha)}.Prob(w) * g.Prob(alpha)
			})
			if got := vrvmplot.StudentT(w, tc.a, tc.b); !scalar.EqualWithinAbsOrRel(got, want, tol, 1e-5) {
				t.Errorf("StudentT(%g, %g, %g) = %g, want %g", w, tc.a, tc.b, got, want)
			}
		}
		// w = tan θ maps (−π/2, π/2) onto the real line.
		total := quad.Fixed(func(th float64) float64 {
			c := math.Cos(th)
			return vrvmplot.StudentT(math.Tan(th), tc.a, tc.b) / (c * c)
		}, -math.Pi/2, math.Pi/2, 4000, nil, 0)
		if !scalar.EqualWithinAbsOrRel(total, 1, 1e-5, 1e-5) {
			t.Errorf("a = %g, b = %g: the density integrates to %g", tc.a, tc.b, total)
		}
	}
}
