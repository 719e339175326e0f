package vrvmplot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

// JaakkolaJordan draws the logistic sigmoid σ(z) with its Jaakkola–Jordan
// lower bound (50)
//
//	σ(z) ≥ σ(ξ) exp{(z − ξ)/2 − λ(ξ)(z² − ξ²)},  λ(ξ) = tanh(ξ/2)/(4ξ),
//
// (vrvm.JJBound) for each variational parameter in xis, marking the points
// z = ±ξ where the bound touches σ. The bound is a Gaussian in z, which
// makes the classification posterior tractable. The z axis spans ±6 or,
// if larger, 1.5 times the largest |ξ|. JaakkolaJordan returns an error if
// xis is empty (plotter.ErrNoData) or holds NaN or ±Inf.
func JaakkolaJordan(xis []float64) (*Figure, error) {
	if err := checkSlice(xis, "xis"); err != nil {
		return nil, err
	}
	zmax := 6.0
	for _, xi := range xis {
		zmax = math.Max(zmax, 1.5*math.Abs(xi))
	}
	const n = 401
	zs := span(-zmax, zmax, n)
	p := newPlot("Jaakkola–Jordan lower bound on the logistic sigmoid", "z", "σ(z) and its lower bounds")

	sig := make(plotter.XYs, n)
	for i, z := range zs {
		sig[i] = plotter.XY{X: z, Y: vrvm.Sigmoid(z)}
	}
	avoid := append(plotter.XYs(nil), sig...)
	colours := []color.Color{colVermilion, colBlue, colGreen, colOrange, colPurple, colSky}
	var bounds []*plotter.Line
	var touch plotter.XYs
	for k, xi := range xis {
		b := make(plotter.XYs, n)
		for i, z := range zs {
			b[i] = plotter.XY{X: z, Y: math.Exp(vrvm.JJBound(z, xi))}
		}
		l, err := newLine(b, dashed(colours[k%len(colours)], vg.Points(1.5)))
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, l)
		p.Legend.Add(fmt.Sprintf("bound, ξ = %g", xi), l)
		avoid = append(avoid, b...)
		a := math.Abs(xi)
		touch = append(touch, plotter.XY{X: -a, Y: vrvm.Sigmoid(-a)}, plotter.XY{X: a, Y: vrvm.Sigmoid(a)})
	}
	s, err := newLine(sig, lineStyle(colBlack, vg.Points(2)))
	if err != nil {
		return nil, err
	}
	p.Add(s)
	for _, l := range bounds {
		p.Add(l)
	}
	p.Legend.Add("σ(z)", s)
	if err := addScatter(p, touch, glyph(colBlack, draw.RingGlyph{}, vg.Points(3.5)), "contact at z = ±ξ"); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = -zmax, zmax
	p.Y.Min, p.Y.Max = 0, 1
	placeLegend(p, DefaultWidth, DefaultHeight, avoid, true)
	return single(p), nil
}
