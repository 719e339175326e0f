package vrvmplot

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultBins is the number of probability bins of Reliability when
// ReliabilityOptions.Bins is zero.
const DefaultBins = 10

// A BinaryClassifier gives P(t = 1 | x) for each row of its inputs, plug-in
// (65) and moderated: vrvm.Classifier and vrvm.RVMClassifier are
// BinaryClassifiers.
type BinaryClassifier interface {
	ProbPlugin(x mat.Matrix) ([]float64, error)
	ProbModerated(x mat.Matrix) ([]float64, error)
}

// ReliabilityOptions are the options of Reliability. The zero value bins
// MacKay's moderated probabilities into DefaultBins bins.
type ReliabilityOptions struct {
	// Plugin bins the plug-in probability σ(μᵀφ(x)) (65) instead of the
	// moderated probability.
	Plugin bool
	// Bins is the number of bins of equal width into which [0, 1] is
	// divided; 0 means DefaultBins. It must not be negative.
	Bins int
}

// Reliability draws the reliability (calibration) diagram of a binary
// classifier on the rows of x with labels t: the predicted probabilities
// P(t = 1 | x) are binned, and for each bin that holds a row the fraction
// of rows labelled 1 is drawn against the mean predicted probability, with
// an error bar of ±2 binomial standard errors √(p̄(1 − p̄)/n) of that
// fraction if the classifier is calibrated. The points of a calibrated
// classifier lie on the diagonal. A second panel counts the rows per bin.
// The title states the expected calibration error Σₖ (nₖ/N)|fₖ − p̄ₖ| and
// the Brier score (1/N) Σₙ (pₙ − tₙ)².
//
// x and t may be any data set of the classifier's inputs with labels in
// {0, 1}, a test set in particular. Reliability returns an error, and
// draws nothing, if c is not fitted or cannot predict x (its error), if x
// or t are empty (plotter.ErrNoData), hold NaN or ±Inf (plotter.ErrNaN,
// plotter.ErrInfinity) or differ in length, if a label is not 0 or 1, if
// a probability is outside [0, 1], or if the options are invalid.
func Reliability(c BinaryClassifier, x *mat.Dense, t []float64, opt ReliabilityOptions) (*Figure, error) {
	if err := checkSlice(t, "t"); err != nil {
		return nil, err
	}
	for i, v := range t {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("vrvmplot: label t[%d] = %g, want 0 or 1", i, v)
		}
	}
	if err := checkInputs(x, len(t), 0); err != nil {
		return nil, err
	}
	bins := opt.Bins
	switch {
	case bins == 0:
		bins = DefaultBins
	case bins < 0:
		return nil, fmt.Errorf("vrvmplot: ReliabilityOptions.Bins = %d, want a positive number (0 means %d)", bins, DefaultBins)
	}
	prob, kind := c.ProbModerated, "moderated"
	if opt.Plugin {
		prob, kind = c.ProbPlugin, "plug-in"
	}
	p, err := prob(x)
	if err != nil {
		return nil, err
	}
	if len(p) != len(t) {
		return nil, fmt.Errorf("vrvmplot: %d probabilities predicted for %d rows", len(p), len(t))
	}

	count := make([]float64, bins)
	sumP := make([]float64, bins)
	sumT := make([]float64, bins)
	var brier float64
	for i, v := range p {
		if err := finite(v, fmt.Sprintf("the probability of row %d", i)); err != nil {
			return nil, err
		}
		if v < 0 || v > 1 {
			return nil, fmt.Errorf("vrvmplot: the probability of row %d is %g, outside [0, 1]", i, v)
		}
		k := min(int(v*float64(bins)), bins-1)
		count[k]++
		sumP[k] += v
		sumT[k] += t[i]
		brier += (v - t[i]) * (v - t[i])
	}
	n := float64(len(t))
	brier /= n

	var pts meanErrors
	var ece float64
	for k := range bins {
		if count[k] == 0 {
			continue
		}
		pk, fk := sumP[k]/count[k], sumT[k]/count[k]
		ece += count[k] / n * math.Abs(fk-pk)
		e := 2 * math.Sqrt(pk*(1-pk)/count[k])
		pts.XYs = append(pts.XYs, plotter.XY{X: pk, Y: fk})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e, e})
	}

	top := newPlot(fmt.Sprintf("Reliability (%s P): ECE %.3f, Brier score %.3f", kind, ece, brier),
		"mean predicted P(t = 1 | x)", "fraction with t = 1")
	diag := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}
	if err := addLine(top, diag, dashed(colGrey, vg.Points(1.2)), "calibrated"); err != nil {
		return nil, err
	}
	if err := addErrorBars(top, pts, vg.Points(1), vg.Points(4)); err != nil {
		return nil, err
	}
	line, points, err := plotter.NewLinePoints(pts.XYs)
	if err != nil {
		return nil, err
	}
	line.LineStyle = lineStyle(colBlue, vg.Points(1.5))
	points.GlyphStyle = glyph(colBlue, draw.CircleGlyph{}, vg.Points(2.5))
	top.Add(line, points)
	top.Legend.Add(fmt.Sprintf("%d bins, ±2 binomial s.e.", bins), line, points)
	top.X.Min, top.X.Max, top.Y.Min, top.Y.Max = 0, 1, -0.05, 1.05
	placeLegend(top, DefaultWidth, DefaultHeight, append(append(plotter.XYs(nil), pts.XYs...), diag...), true)

	bottom := newPlot("", "predicted P(t = 1 | x)", "rows")
	hist := &plotter.Histogram{Width: 1 / float64(bins), FillColor: colSky, LineStyle: lineStyle(colBlue, vg.Points(0.8))}
	for k := range bins {
		hist.Bins = append(hist.Bins, plotter.HistogramBin{Min: float64(k) / float64(bins), Max: float64(k+1) / float64(bins), Weight: count[k]})
	}
	bottom.Add(hist)
	bottom.X.Min, bottom.X.Max, bottom.Y.Min = 0, 1, 0
	return &Figure{Panels: []*plot.Plot{top, bottom}, Heights: []float64{3, 1}, Width: DefaultWidth, Height: 14 * vg.Centimeter}, nil
}
