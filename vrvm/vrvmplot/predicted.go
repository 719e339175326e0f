package vrvmplot

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A GaussianPredictor predicts a Gaussian for each row of its inputs, the
// predictive mean and variance (37)–(38): vrvm.Regressor and
// vrvm.RVMRegressor are GaussianPredictors.
type GaussianPredictor interface {
	Predict(x mat.Matrix) (mean, variance []float64, err error)
}

// PredictedVsTrue draws the predictions of a regression model for the rows
// of x against their targets t: each predictive mean with an error bar of
// ±2 predictive standard deviations, and the line where the prediction
// equals the target. If the predictive distribution is right, about 95% of
// the bars cross that line; the title states the share, and the
// root-mean-square error of the means.
//
// x and t may be any data set of the model's inputs, a test set in
// particular, one row per target. PredictedVsTrue returns an error, and
// draws nothing, if r is not fitted or cannot predict x (its error), if x
// or t are empty (plotter.ErrNoData), hold NaN or ±Inf (plotter.ErrNaN,
// plotter.ErrInfinity) or differ in length, or if a prediction is not
// finite.
func PredictedVsTrue(r GaussianPredictor, x *mat.Dense, t []float64) (*Figure, error) {
	if err := checkSlice(t, "t"); err != nil {
		return nil, err
	}
	if err := checkInputs(x, len(t), 0); err != nil {
		return nil, err
	}
	mean, variance, err := r.Predict(x)
	if err != nil {
		return nil, err
	}
	if len(mean) != len(t) || len(variance) != len(t) {
		return nil, fmt.Errorf("vrvmplot: %d means and %d variances predicted for %d rows", len(mean), len(variance), len(t))
	}
	pts := meanErrors{XYs: make(plotter.XYs, len(t)), YErrors: make(plotter.YErrors, len(t))}
	lo, hi := math.Inf(1), math.Inf(-1)
	within := 0
	var sse float64
	for i, v := range t {
		if err := finite(mean[i], fmt.Sprintf("the predictive mean of row %d", i)); err != nil {
			return nil, err
		}
		if err := finite(variance[i], fmt.Sprintf("the predictive variance of row %d", i)); err != nil {
			return nil, err
		}
		if variance[i] < 0 {
			return nil, fmt.Errorf("vrvmplot: the predictive variance of row %d is negative (%g)", i, variance[i])
		}
		e := 2 * math.Sqrt(variance[i])
		pts.XYs[i] = plotter.XY{X: v, Y: mean[i]}
		pts.YErrors[i].Low, pts.YErrors[i].High = e, e
		if math.Abs(v-mean[i]) <= e {
			within++
		}
		sse += (v - mean[i]) * (v - mean[i])
		lo = math.Min(lo, math.Min(v, mean[i]-e))
		hi = math.Max(hi, math.Max(v, mean[i]+e))
	}
	rmse := math.Sqrt(sse / float64(len(t)))

	p := newPlot(fmt.Sprintf("Predicted against true: RMSE %.3g, %d of %d within ±2σ", rmse, within, len(t)),
		"true target t", "predictive mean ±2σ")
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	pad := 0.02 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	diag := plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}
	if err := addLine(p, diag, dashed(colGrey, vg.Points(1.2)), "predicted = true"); err != nil {
		return nil, err
	}
	if err := addErrorBars(p, pts, vg.Points(0.8), vg.Points(3)); err != nil {
		return nil, err
	}
	if err := addScatter(p, pts.XYs, glyph(colBlue, draw.CircleGlyph{}, vg.Points(1.8)), "predictive mean ±2σ"); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	placeLegend(p, DefaultWidth, DefaultHeight, append(append(plotter.XYs(nil), pts.XYs...), diag...), true)
	return single(p), nil
}

// meanErrors are predictive means with their error bars.
type meanErrors struct {
	plotter.XYs
	plotter.YErrors
}
