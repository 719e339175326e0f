package vrvmplot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

// Model is the fitted state of a kernel model that Weights and
// AlphaHistogram read. *vrvm.Regressor and *vrvm.Classifier implement it.
type Model interface {
	Status() vrvm.Status
	HasBias() bool
	Inputs() *mat.Dense
	Mean() []float64
	Alpha() []float64
	RelevanceVectors() []int
}

// Weights draws the posterior mean weights ⟨wₘ⟩ = μₘ of the active basis
// functions of a fitted kernel model as stems, the paper's Figure 4
// (right). Relevance vectors (the model's RelevanceVectors) are drawn
// filled, the other active functions open; the bias, if active, is drawn
// as a square.
//
// x must be the training inputs the model was fitted on: each active
// kernel function is found in x by its centre. With one input column the
// stems stand at the training inputs and the bias at the left edge; with
// more columns, at the index of the basis function, as in the paper:
// 0 for the bias and n + 1 for the kernel centred on training row n.
//
// A model fitted with pruning keeps only the functions whose ⟨αₘ⟩ stayed
// below its threshold; fit with NoPrune to see all N + 1 weights.
// Weights returns an error if m is not fitted or was fitted with
// FitDesign, or if x is empty, holds NaN or ±Inf, or is not the
// training set.
func Weights(m Model, x *mat.Dense) (*Figure, error) {
	if err := checkFitted(m); err != nil {
		return nil, err
	}
	if err := checkInputs(x, -1, 0); err != nil {
		return nil, err
	}
	act, err := activeFunctions(m, x)
	if err != nil {
		return nil, err
	}
	_, d := x.Dims()
	oneD := d == 1
	pos := func(row int) float64 {
		if oneD {
			return x.At(row, 0)
		}
		return float64(row + 1)
	}

	var relevant, other plotter.XYs
	for k, w := range act.w {
		xy := plotter.XY{X: pos(act.rows[k]), Y: w}
		if act.rel[k] {
			relevant = append(relevant, xy)
		} else {
			other = append(other, xy)
		}
	}
	xlabel := "basis function: 0 bias, n + 1 kernel on training row n"
	if oneD {
		xlabel = "centre x of the kernel function (training input)"
	}
	nActive := len(act.w)
	if act.bias {
		nActive++
	}
	p := newPlot(fmt.Sprintf("Posterior mean weights: %d active, %d relevance vectors", nActive, len(relevant)), xlabel, "mean weight E[w]")

	var lo, hi float64
	if oneD {
		lo, hi = columnRange(x, 0, 0.02)
	} else {
		r, _ := x.Dims()
		lo, hi = -0.5, float64(r)+0.5
	}
	biasX := lo
	if oneD {
		// The bias sits left of all inputs, like the first weight of the
		// paper's figure.
		biasX = lo - 0.04*(hi-lo)
		lo = biasX - 0.02*(hi-lo)
	} else {
		biasX = 0
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: lo, Y: 0}, {X: hi, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.LineStyle = lineStyle(colGrey, vg.Points(0.5))
	p.Add(zero)

	var avoid plotter.XYs
	add := func(xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, label string) {
		if len(xys) == 0 {
			return
		}
		s := &stems{XYs: xys, Line: lineStyle(c, vg.Points(1)), Glyph: glyph(c, shape, vg.Points(2.5))}
		p.Add(s)
		p.Legend.Add(label, s)
		for _, q := range xys {
			avoid = append(avoid, q, plotter.XY{X: q.X, Y: q.Y / 2}, plotter.XY{X: q.X, Y: 0})
		}
	}
	add(other, colGrey, draw.RingGlyph{}, "other active functions")
	add(relevant, colVermilion, draw.CircleGlyph{}, fmt.Sprintf("relevance vectors (|E[w]| > %g)", vrvm.RelevanceThreshold))
	if act.bias {
		add(plotter.XYs{{X: biasX, Y: act.biasW}}, colBlue, draw.SquareGlyph{}, fmt.Sprintf("bias (%.3g)", act.biasW))
	}
	p.X.Min, p.X.Max = lo, hi
	placeLegend(p, DefaultWidth, DefaultHeight, avoid, true)
	return single(p), nil
}

// stems is a plotter of vertical lines from y = 0 to each point, with a
// glyph at the point.
type stems struct {
	plotter.XYs
	Line  draw.LineStyle
	Glyph draw.GlyphStyle
}

// Plot implements plot.Plotter.
func (s *stems) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, q := range s.XYs {
		x := trX(q.X)
		pts := []vg.Point{{X: x, Y: trY(0)}, {X: x, Y: trY(q.Y)}}
		c.StrokeLines(s.Line, c.ClipLinesY(pts)...)
	}
	for _, q := range s.XYs {
		pt := vg.Point{X: trX(q.X), Y: trY(q.Y)}
		if c.Contains(pt) {
			c.DrawGlyph(s.Glyph, pt)
		}
	}
}

// DataRange implements plot.DataRanger: the points and y = 0.
func (s *stems) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = plotter.XYRange(s.XYs)
	return xmin, xmax, math.Min(ymin, 0), math.Max(ymax, 0)
}

// GlyphBoxes implements plot.GlyphBoxer, so that glyphs are not clipped.
func (s *stems) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	b := make([]plot.GlyphBox, len(s.XYs))
	for i, q := range s.XYs {
		b[i].X = p.X.Norm(q.X)
		b[i].Y = p.Y.Norm(q.Y)
		r := s.Glyph.Radius
		b[i].Rectangle = vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	}
	return b
}

// Thumbnail implements plot.Thumbnailer.
func (s *stems) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	top := vg.Point{X: x, Y: c.Max.Y - s.Glyph.Radius}
	c.StrokeLine2(s.Line, x, c.Min.Y, x, top.Y)
	c.DrawGlyph(s.Glyph, top)
}

// AlphaHistogram draws the histogram of log₁₀⟨αₘ⟩, the posterior mean
// precisions of the active weights (bias included), the paper's Figure 4
// (left): the relevant functions have small ⟨αₘ⟩, the others large. bins
// is the number of bins; 0 means 20.
//
// A pruned model holds only the functions whose ⟨αₘ⟩ stayed below its
// threshold: fit with NoPrune to see the dichotomy of the paper.
// AlphaHistogram returns an error if m is not fitted, has no active
// function, if a ⟨αₘ⟩ is not positive and finite, or if bins is negative.
func AlphaHistogram(m Model, bins int) (*Figure, error) {
	if err := checkFitted(m); err != nil {
		return nil, err
	}
	switch {
	case bins == 0:
		bins = 20
	case bins < 0:
		return nil, fmt.Errorf("vrvmplot: %d bins, want a positive number (0 means 20)", bins)
	}
	alpha := m.Alpha()
	if len(alpha) == 0 {
		return nil, fmt.Errorf("vrvmplot: the model has no active basis function: %w", plotter.ErrNoData)
	}
	logs := make([]float64, len(alpha))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, a := range alpha {
		if err := finite(a, fmt.Sprintf("alpha[%d]", i)); err != nil {
			return nil, err
		}
		if a <= 0 {
			return nil, fmt.Errorf("vrvmplot: alpha[%d] = %g, want a positive precision", i, a)
		}
		logs[i] = math.Log10(a)
		lo, hi = math.Min(lo, logs[i]), math.Max(hi, logs[i])
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	width := (hi - lo) / float64(bins)
	counts := make([]float64, bins)
	for _, v := range logs {
		counts[min(int((v-lo)/width), bins-1)]++
	}
	p := newPlot(fmt.Sprintf("Posterior mean precisions of the %d active weights", len(alpha)), "log10 E[α]", "number of weights")
	h := &plotter.Histogram{Width: width, FillColor: colSky, LineStyle: lineStyle(colBlack, vg.Points(0.5))}
	for b, n := range counts {
		if n == 0 {
			continue
		}
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: lo + float64(b)*width, Max: lo + float64(b+1)*width, Weight: n})
	}
	p.Add(h)
	p.X.Min, p.X.Max = lo-width/2, hi+width/2
	p.Y.Min = 0
	return single(p), nil
}
