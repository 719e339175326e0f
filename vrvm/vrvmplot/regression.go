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

// DefaultPoints is the number of points at which RegressionFit evaluates
// its curves when FitOptions.Points is zero.
const DefaultPoints = 400

// FitOptions are the options of RegressionFit. The zero value draws the
// predictive mean and ±2σ band over the range of the training inputs.
type FitOptions struct {
	// True, if not nil, is the noise-free function that generated the
	// data, drawn in grey for comparison (datasets.SincTrue for the
	// paper's Figure 3).
	True func(x float64) float64
	// TrueLabel is the legend entry of True; "" means "true function".
	TrueLabel string
	// Latent adds, inside the predictive band, the ±2σ band of the
	// noise-free function y(x) = wᵀφ(x), whose variance φ(x)ᵀΣφ(x)
	// (Latent) omits the noise 1/⟨τ⟩.
	Latent bool
	// Min and Max bound the inputs at which the curves are drawn. If
	// Min ≥ Max (both zero by default) the range of the training inputs,
	// widened by 2% each side, is used.
	Min, Max float64
	// Points is the number of inputs at which the curves are evaluated;
	// 0 means DefaultPoints. It must not be 1 or negative.
	Points int
}

// RegressionFit draws a fitted one-dimensional regression model as the
// paper's Figure 3: the predictive mean μᵀφ(x) (37), a band of ±2 standard
// deviations of the predictive distribution, whose variance
// 1/⟨τ⟩ + φ(x)ᵀΣφ(x) (38) includes the noise, optionally the narrower band
// of the noise-free function and the true function, the training data
// (x, t) and the relevance vectors circled.
//
// x and t must be the training set r was fitted on: one input column, one
// row per target. The relevance vectors are those r.RelevanceVectors
// reports, found in x by their centres.
// RegressionFit returns an error, and draws nothing, if r is not fitted
// or was fitted with FitDesign, if x has more than one column, if the
// centre of an active kernel function is not a row of x, if x or t hold
// NaN or ±Inf (errors wrapping plotter.ErrNaN and plotter.ErrInfinity) or
// are empty (plotter.ErrNoData), or if the options are invalid.
func RegressionFit(r *vrvm.Regressor, x *mat.Dense, t []float64, opt FitOptions) (*Figure, error) {
	act, err := trainingSet(r, x, t, 1)
	if err != nil {
		return nil, err
	}
	n, err := pointCount(opt.Points, DefaultPoints, "FitOptions.Points")
	if err != nil {
		return nil, err
	}
	lo, hi, err := axisRange(opt.Min, opt.Max, "FitOptions.Min", "FitOptions.Max", x, 0, 0.02)
	if err != nil {
		return nil, err
	}

	xs := span(lo, hi, n)
	grid := mat.NewDense(n, 1, xs)
	mean, variance, err := r.Predict(grid)
	if err != nil {
		return nil, err
	}
	var latent []float64
	if opt.Latent {
		if _, latent, err = r.Latent(grid); err != nil {
			return nil, err
		}
	}
	for i := range xs {
		if err := finite(mean[i], fmt.Sprintf("the predictive mean at x = %g", xs[i])); err != nil {
			return nil, err
		}
		if err := finite(variance[i], fmt.Sprintf("the predictive variance at x = %g", xs[i])); err != nil {
			return nil, err
		}
	}

	rv := act.relevant()
	p := newPlot(fmt.Sprintf("VRVM fit: %d relevance vectors, noise sd %.3g", len(rv), r.NoiseSD()), "x", "t")
	// Everything the legend should avoid.
	var avoid plotter.XYs

	outer, err := band(xs, mean, variance)
	if err != nil {
		return nil, err
	}
	avoid = append(avoid, outer.XYs[0]...)
	outer.Color = colBandOuter
	p.Add(outer)
	p.Legend.Add("±2σ predictive (with noise)", outer)
	if opt.Latent {
		inner, err := band(xs, mean, latent)
		if err != nil {
			return nil, err
		}
		inner.Color = colBandInner
		p.Add(inner)
		p.Legend.Add("±2σ function (noise-free)", inner)
	}
	if opt.True != nil {
		f := make(plotter.XYs, n)
		for i, v := range xs {
			f[i] = plotter.XY{X: v, Y: opt.True(v)}
		}
		label := opt.TrueLabel
		if label == "" {
			label = "true function"
		}
		if err := addLine(p, f, lineStyle(colGrey, vg.Points(2)), label); err != nil {
			return nil, fmt.Errorf("vrvmplot: the true function: %w", err)
		}
		avoid = append(avoid, f...)
	}
	if err := addLine(p, xyOf(xs, mean), lineStyle(colBlack, vg.Points(1.5)), "predictive mean"); err != nil {
		return nil, err
	}

	data := make(plotter.XYs, len(t))
	for i, v := range t {
		data[i] = plotter.XY{X: x.At(i, 0), Y: v}
	}
	if err := addScatter(p, data, glyph(colBlack, draw.CircleGlyph{}, vg.Points(1.8)), "training data"); err != nil {
		return nil, err
	}
	avoid = append(avoid, data...)

	if err := circleRelevant(p, data, rv, glyph(colVermilion, thickRing{vg.Points(1.2)}, vg.Points(5))); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = lo, hi
	placeLegend(p, DefaultWidth, DefaultHeight, avoid, true)
	return single(p), nil
}

// band returns the polygon mean ± 2√variance over xs.
func band(xs, mean, variance []float64) (*plotter.Polygon, error) {
	n := len(xs)
	ring := make(plotter.XYs, 2*n)
	for i := range n {
		sd := 2 * math.Sqrt(variance[i])
		ring[i] = plotter.XY{X: xs[i], Y: mean[i] + sd}
		ring[2*n-1-i] = plotter.XY{X: xs[i], Y: mean[i] - sd}
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.LineStyle.Width = 0
	return poly, nil
}

// xyOf pairs xs and ys.
func xyOf(xs, ys []float64) plotter.XYs {
	xy := make(plotter.XYs, len(xs))
	for i := range xs {
		xy[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return xy
}
