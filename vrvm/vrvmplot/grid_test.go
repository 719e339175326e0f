package vrvmplot_test

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// TestProbabilityGrid checks the orientation of the grid: Z(c, r) is the
// probability at (X(c), Y(r)).
func TestProbabilityGrid(t *testing.T) {
	t.Parallel()
	c, _ := smallClassifier(t)
	xs, ys := []float64{-1, 0, 0.5}, []float64{0, 0.4, 0.8, 1.2}
	for _, plugin := range []bool{false, true} {
		g, err := vrvmplot.ProbabilityGrid(c, xs, ys, plugin)
		if err != nil {
			t.Fatal(err)
		}
		if nc, nr := g.Dims(); nc != len(xs) || nr != len(ys) {
			t.Fatalf("Dims %d, %d; want %d, %d", nc, nr, len(xs), len(ys))
		}
		for i := range xs {
			for j := range ys {
				pt := mat.NewDense(1, 2, []float64{g.X(i), g.Y(j)})
				want, err := c.ProbModerated(pt)
				if plugin {
					want, err = c.ProbPlugin(pt)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := g.Z(i, j); !scalar.EqualWithinAbsOrRel(got, want[0], 1e-14, 1e-12) {
					t.Errorf("plugin %v: Z(%d, %d) = %g, want P(t = 1 | (%g, %g)) = %g", plugin, i, j, got, xs[i], ys[j], want[0])
				}
			}
		}
	}
}
