package vrvmplot

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"

	"github.com/vrvm/vrvm/vrvm"
)

// Grid is a function of two inputs sampled on a rectangular grid; it
// implements plotter.GridXYZ for plotter.HeatMap and plotter.Contour.
type Grid struct {
	// Xs and Ys are the grid coordinates along the first and second
	// input, in increasing order.
	Xs, Ys []float64
	// Zs holds the values: Zs.At(r, c) is the value at (Xs[c], Ys[r]).
	Zs *mat.Dense
}

var _ plotter.GridXYZ = (*Grid)(nil)

// Dims implements plotter.GridXYZ: the number of columns (x values) and
// rows (y values).
func (g *Grid) Dims() (c, r int) { return len(g.Xs), len(g.Ys) }

// Z implements plotter.GridXYZ: the value at (X(c), Y(r)).
func (g *Grid) Z(c, r int) float64 { return g.Zs.At(r, c) }

// X implements plotter.GridXYZ.
func (g *Grid) X(c int) float64 { return g.Xs[c] }

// Y implements plotter.GridXYZ.
func (g *Grid) Y(r int) float64 { return g.Ys[r] }

// inputs returns the grid points as rows (x, y), row r·len(Xs) + c
// holding (Xs[c], Ys[r]).
func (g *Grid) inputs() *mat.Dense {
	nx, ny := g.Dims()
	pts := mat.NewDense(nx*ny, 2, nil)
	for r, y := range g.Ys {
		for c, x := range g.Xs {
			pts.Set(r*nx+c, 0, x)
			pts.Set(r*nx+c, 1, y)
		}
	}
	return pts
}

// ProbabilityGrid returns P(t = 1 | x) of a fitted two-input classifier
// on the grid xs × ys: MacKay's moderated probability
// (Classifier.ProbModerated) or, if plugin is true, the plug-in
// probability σ(μᵀφ(x)) (Classifier.ProbPlugin). xs and ys must be
// increasing, finite and hold at least two values each.
func ProbabilityGrid(c *vrvm.Classifier, xs, ys []float64, plugin bool) (*Grid, error) {
	if err := checkFitted(c); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		name string
		s    []float64
	}{{"xs", xs}, {"ys", ys}} {
		if err := checkSlice(v.s, v.name); err != nil {
			return nil, err
		}
		if len(v.s) < 2 {
			return nil, fmt.Errorf("vrvmplot: %s has %d value, want at least 2", v.name, len(v.s))
		}
		for i := 1; i < len(v.s); i++ {
			if !(v.s[i] > v.s[i-1]) {
				return nil, fmt.Errorf("vrvmplot: %s is not increasing at index %d", v.name, i)
			}
		}
	}
	g := &Grid{Xs: append([]float64(nil), xs...), Ys: append([]float64(nil), ys...)}
	var p []float64
	var err error
	if plugin {
		p, err = c.ProbPlugin(g.inputs())
	} else {
		p, err = c.ProbModerated(g.inputs())
	}
	if err != nil {
		return nil, err
	}
	for i, v := range p {
		if err := finite(v, fmt.Sprintf("P(t = 1 | x) at grid point %d", i)); err != nil {
			return nil, err
		}
	}
	g.Zs = mat.NewDense(len(ys), len(xs), p)
	return g, nil
}
