package vrvmplot

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

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
