package vrvmplot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BoundTrace draws the trace of a fit's lower bound L, as returned by
// Regressor.BoundTrace and Classifier.BoundTrace (element 0 is the bound
// at the initial hyperparameters), in two panels: L against the
// iteration, and the change |ΔL| between successive iterations on a
// logarithmic scale, which shows the rate of convergence. Increases and
// decreases of L are drawn in different colours: the variational updates
// never decrease L, but removing a basis function from the active set
// (pruning) changes the model and may. Iterations at which L did not
// change are left out of the second panel.
//
// It also draws the log-evidence traces of the type-II maximum likelihood
// RVM (RVMRegressor.BoundTrace); set the panels' titles to match.
// BoundTrace returns an error if trace is empty (plotter.ErrNoData) or
// holds NaN or ±Inf.
func BoundTrace(trace []float64) (*Figure, error) {
	if err := checkSlice(trace, "trace"); err != nil {
		return nil, err
	}
	top := newPlot("Variational lower bound L per iteration", "iteration", "lower bound L")
	l, s, err := plotter.NewLinePoints(xyOf(iterations(len(trace), 0), trace))
	if err != nil {
		return nil, err
	}
	l.LineStyle = lineStyle(colBlue, vg.Points(1.2))
	s.GlyphStyle = glyph(colBlue, draw.CircleGlyph{}, vg.Points(1.5))
	top.Add(l)
	if len(trace) <= 60 {
		top.Add(s)
	}
	top.Legend.Add(fmt.Sprintf("L, final value %.6g", trace[len(trace)-1]), l)
	placeLegend(top, DefaultWidth, DefaultHeight*0.7, l.XYs, true)

	bottom := newPlot("Change of the bound per iteration (log scale)", "iteration", "|ΔL|")
	bottom.Y.Scale = plot.LogScale{}
	bottom.Y.Tick.Marker = logTicks{}
	var up, down plotter.XYs
	for i := 1; i < len(trace); i++ {
		d := trace[i] - trace[i-1]
		xy := plotter.XY{X: float64(i), Y: math.Abs(d)}
		switch {
		case d > 0:
			up = append(up, xy)
		case d < 0:
			down = append(down, xy)
		}
	}
	var avoid plotter.XYs
	for _, c := range []struct {
		xys   plotter.XYs
		glyph draw.GlyphStyle
		label string
	}{
		{up, glyph(colBlue, draw.CircleGlyph{}, vg.Points(1.5)), "increase"},
		{down, glyph(colVermilion, draw.CrossGlyph{}, vg.Points(3)), "decrease"},
	} {
		if len(c.xys) == 0 {
			continue
		}
		if err := addScatter(bottom, c.xys, c.glyph, c.label); err != nil {
			return nil, err
		}
		avoid = append(avoid, c.xys...)
	}
	bottom.X.Min, bottom.X.Max = top.X.Min, top.X.Max
	if len(avoid) == 0 {
		// L never changed: an empty logarithmic panel.
		bottom.Y.Min, bottom.Y.Max = 1e-16, 1
	} else {
		// Whole decades, so that the logarithmic ticks are labelled.
		bottom.Y.Min = math.Pow(10, math.Floor(math.Log10(bottom.Y.Min)))
		bottom.Y.Max = math.Pow(10, math.Ceil(math.Log10(bottom.Y.Max)))
		placeLegend(bottom, DefaultWidth, DefaultHeight*0.7, avoid, false)
	}
	return &Figure{Panels: []*plot.Plot{top, bottom}, Width: DefaultWidth, Height: 14 * vg.Centimeter}, nil
}

// iterations returns first, first+1, …, first+n−1.
func iterations(n, first int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(first + i)
	}
	return v
}
