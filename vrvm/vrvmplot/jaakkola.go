package vrvmplot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
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

// XiActivation draws the Jaakkola–Jordan parameters ξₙ of a fitted
// classifier (Classifier.Xi) against the magnitude of the mean activation
// |μᵀφ(xₙ)| at each training input, with the line ξ = |μᵀφ|. The update
// (58) sets ξₙ² = (μᵀφₙ)² + φₙᵀΣφₙ, so at convergence every point lies on
// or above the line, by the posterior variance of the activation: the
// bound (50) is tight where the weights are certain.
//
// x must be the training inputs c was fitted on, one row per ξₙ.
// XiActivation returns an error if c is not fitted, if x is empty, holds
// NaN or ±Inf, or is not the training set.
func XiActivation(c *vrvm.Classifier, x *mat.Dense) (*Figure, error) {
	if err := checkFitted(c); err != nil {
		return nil, err
	}
	xi := c.Xi()
	if err := checkInputs(x, len(xi), 0); err != nil {
		return nil, err
	}
	if _, err := activeFunctions(c, x); err != nil {
		return nil, err
	}
	mean, _, err := c.Latent(x)
	if err != nil {
		return nil, err
	}
	pts := make(plotter.XYs, len(xi))
	hi := 0.0
	for i := range xi {
		pts[i] = plotter.XY{X: math.Abs(mean[i]), Y: xi[i]}
		if err := finite(pts[i].X, fmt.Sprintf("the activation at x[%d]", i)); err != nil {
			return nil, err
		}
		if err := finite(pts[i].Y, fmt.Sprintf("xi[%d]", i)); err != nil {
			return nil, err
		}
		hi = math.Max(hi, math.Max(pts[i].X, pts[i].Y))
	}
	if hi == 0 {
		hi = 1
	}
	hi *= 1.03
	p := newPlot("Jaakkola–Jordan parameters at the training points", "|μᵀφ(x)|, magnitude of the mean activation", "ξ")
	if err := addLine(p, plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}}, dashed(colGrey, vg.Points(1.2)), "ξ = |μᵀφ(x)|"); err != nil {
		return nil, err
	}
	if err := addScatter(p, pts, glyph(colBlue, draw.CircleGlyph{}, vg.Points(2)), fmt.Sprintf("ξ of the %d training points", len(xi))); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, hi, 0, hi
	avoid := append(plotter.XYs(nil), pts...)
	for i := range 50 {
		v := hi * float64(i) / 49
		avoid = append(avoid, plotter.XY{X: v, Y: v})
	}
	placeLegend(p, DefaultWidth, DefaultHeight, avoid, true)
	return single(p), nil
}
