package vrvmplot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"reflect"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

// Colours of the Okabe–Ito palette, distinguishable with the common forms
// of colour blindness, and the greys of the paper's figures.
var (
	colBlack     = color.Black
	colGrey      = color.Gray{Y: 150}
	colOrange    = color.RGBA{R: 230, G: 159, B: 0, A: 255}
	colSky       = color.RGBA{R: 86, G: 180, B: 233, A: 255}
	colGreen     = color.RGBA{R: 0, G: 158, B: 115, A: 255}
	colBlue      = color.RGBA{R: 0, G: 114, B: 178, A: 255}
	colVermilion = color.RGBA{R: 213, G: 94, B: 0, A: 255}
	colPurple    = color.RGBA{R: 204, G: 121, B: 167, A: 255}
	// The two bands of the regression figure: light and darker blue.
	colBandOuter = color.RGBA{R: 206, G: 228, B: 244, A: 255}
	colBandInner = color.RGBA{R: 150, G: 196, B: 228, A: 255}
)

// newPlot returns a plot with a title and axis labels, its legend at the
// top right.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 0.6 * vg.Centimeter
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Padding = vg.Points(1.5)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	return p
}

// newMapPlot is newPlot for a map over the input plane (x1, x2), whose
// image fills the axes.
func newMapPlot(title string) *plot.Plot {
	p := newPlot(title, "x1", "x2")
	p.X.Padding, p.Y.Padding = 0, 0
	return p
}

// probabilityKind names the probabilities a map shows: plug-in or
// moderated.
func probabilityKind(plugin bool) string {
	if plugin {
		return "plug-in"
	}
	return "moderated"
}

// single wraps one panel in a figure of the default size.
func single(p *plot.Plot) *Figure {
	return &Figure{Panels: []*plot.Plot{p}, Width: DefaultWidth, Height: DefaultHeight}
}

// lineStyle returns a solid line style.
func lineStyle(c color.Color, w vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: w}
}

// dashed returns a dashed line style.
func dashed(c color.Color, w vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: w, Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

// glyph returns a glyph style.
func glyph(c color.Color, shape draw.GlyphDrawer, r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Shape: shape, Radius: r}
}

// newLine returns the line through xys drawn with style.
func newLine(xys plotter.XYs, style draw.LineStyle) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.LineStyle = style
	return l, nil
}

// addLine draws the line through xys on p with style, with the legend
// entry label.
func addLine(p *plot.Plot, xys plotter.XYs, style draw.LineStyle, label string) error {
	l, err := newLine(xys, style)
	if err != nil {
		return err
	}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// addScatter draws the points xys on p with the glyph style g, with the
// legend entry label.
func addScatter(p *plot.Plot, xys plotter.XYs, g draw.GlyphStyle, label string) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle = g
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

// addErrorBars draws the vertical error bars of pts in sky blue, with
// lines width wide and caps capWidth wide.
func addErrorBars(p *plot.Plot, pts meanErrors, width, capWidth vg.Length) error {
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	bars.LineStyle = lineStyle(colSky, width)
	bars.CapWidth = capWidth
	p.Add(bars)
	return nil
}

// circleRelevant circles the training points data[k], k in rv, on p
// with the glyph style g, with the legend entry "relevance vectors"; it
// draws nothing if rv is empty.
func circleRelevant(p *plot.Plot, data plotter.XYs, rv []int, g draw.GlyphStyle) error {
	if len(rv) == 0 {
		return nil
	}
	circ := make(plotter.XYs, len(rv))
	for i, k := range rv {
		circ[i] = data[k]
	}
	return addScatter(p, circ, g, "relevance vectors")
}

// finite returns an error wrapping plotter.ErrNaN or plotter.ErrInfinity
// if v is not finite; what names the value.
func finite(v float64, what string) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("vrvmplot: %s is NaN: %w", what, plotter.ErrNaN)
	case math.IsInf(v, 0):
		return fmt.Errorf("vrvmplot: %s is %v: %w", what, v, plotter.ErrInfinity)
	}
	return nil
}

// checkSlice checks that v is not empty and holds finite values.
func checkSlice(v []float64, name string) error {
	if len(v) == 0 {
		return fmt.Errorf("vrvmplot: %s is empty: %w", name, plotter.ErrNoData)
	}
	for i, x := range v {
		if err := finite(x, fmt.Sprintf("%s[%d]", name, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkInputs checks that x has rows and cols columns (cols ≤ 0: any),
// and finite values.
func checkInputs(x *mat.Dense, rows, cols int) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("vrvmplot: no inputs x: %w", plotter.ErrNoData)
	}
	r, c := x.Dims()
	if rows >= 0 && r != rows {
		return fmt.Errorf("vrvmplot: x has %d rows, want %d (one per target)", r, rows)
	}
	if cols > 0 && c != cols {
		return fmt.Errorf("vrvmplot: x has %d columns, want %d", c, cols)
	}
	for i := range r {
		for j := range c {
			if err := finite(x.At(i, j), fmt.Sprintf("x[%d, %d]", i, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// pointCount returns the number of points n of the option field, or def
// if n is zero, and an error if n is 1 or negative.
func pointCount(n, def int, field string) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 2:
		return 0, fmt.Errorf("vrvmplot: %s = %d, want at least 2 (0 means %d)", field, n, def)
	}
	return n, nil
}

// axisRange returns the range [lo, hi] of an axis given by the option
// fields minField and maxField or, if lo ≥ hi, the range of column j of
// x widened by frac of its length on each side; it returns an error if lo
// or hi is not finite.
func axisRange(lo, hi float64, minField, maxField string, x *mat.Dense, j int, frac float64) (float64, float64, error) {
	if err := finite(lo, minField); err != nil {
		return 0, 0, err
	}
	if err := finite(hi, maxField); err != nil {
		return 0, 0, err
	}
	if lo >= hi {
		lo, hi = columnRange(x, j, frac)
	}
	return lo, hi, nil
}

// checkFitted returns an error wrapping vrvm.ErrNotFitted if m is nil (a
// nil interface or a nil pointer in it) or has not been fitted.
func checkFitted(m Model) error {
	if v := reflect.ValueOf(m); m == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("vrvmplot: nil model: %w", vrvm.ErrNotFitted)
	}
	if m.Status() == vrvm.NotFitted {
		return fmt.Errorf("vrvmplot: %w", vrvm.ErrNotFitted)
	}
	return nil
}

// trainingSet checks that m is fitted and that (x, t), with cols input
// columns, is its finite, non-empty training set, and returns the active
// functions of m (activeFunctions).
func trainingSet(m Model, x *mat.Dense, t []float64, cols int) (*active, error) {
	if err := checkFitted(m); err != nil {
		return nil, err
	}
	if err := checkSlice(t, "t"); err != nil {
		return nil, err
	}
	if err := checkInputs(x, len(t), cols); err != nil {
		return nil, err
	}
	return activeFunctions(m, x)
}

// active describes the active basis functions of a fitted kernel model.
type active struct {
	bias  bool      // the bias function is active
	biasW float64   // its mean weight ⟨w₀⟩
	rows  []int     // the training row of each active kernel function
	w     []float64 // their mean weights ⟨wₘ⟩
	rel   []bool    // whether each is a relevance vector (the model's RelevanceVectors)
}

// relevant returns the training rows of the relevance vectors, the active
// kernel functions the model's RelevanceVectors reports.
func (a *active) relevant() []int {
	var rv []int
	for k, r := range a.rows {
		if a.rel[k] {
			rv = append(rv, r)
		}
	}
	return rv
}

// activeFunctions reads the active functions of m and finds the training
// row of each active kernel function by matching its centre (a row of
// m.Inputs()) with the rows of x, the training inputs, which must have
// been checked with checkInputs. It returns an error if m is not fitted,
// was fitted with FitDesign, or if a centre is not a row of x.
func activeFunctions(m Model, x *mat.Dense) (*active, error) {
	if err := checkFitted(m); err != nil {
		return nil, err
	}
	a := &active{bias: m.HasBias()}
	mean := m.Mean()
	inputs := m.Inputs()
	if a.bias {
		a.biasW = mean[0]
		mean = mean[1:]
	}
	if inputs == nil {
		if len(mean) > 0 {
			return nil, errors.New("vrvmplot: the model was fitted with FitDesign; the figure needs a kernel model")
		}
		return a, nil
	}
	r, c := x.Dims()
	if _, ic := inputs.Dims(); ic != c {
		return nil, fmt.Errorf("vrvmplot: the model has %d inputs, x has %d columns", ic, c)
	}
	a.w = mean
	a.rows = make([]int, len(mean))
	for k := range a.rows {
		a.rows[k] = -1
		centre := inputs.RawRowView(k)
		for n := 0; n < r && a.rows[k] < 0; n++ {
			if floats.Equal(x.RawRowView(n), centre) {
				a.rows[k] = n
			}
		}
		if a.rows[k] < 0 {
			return nil, fmt.Errorf("vrvmplot: x is not the training set of the model: no row of x equals the centre %v of active kernel function %d", centre, k)
		}
	}
	// Relevance as the model judges it: |⟨wₘ⟩| > vrvm.RelevanceThreshold
	// in the units of the function the solver saw, which differ from the
	// weights' for a classifier's divided kernel (U1 in the vrvm package
	// documentation). Matched by centre, so that a duplicated training row
	// counts whichever copy the model reports.
	a.rel = make([]bool, len(mean))
	for _, n := range m.RelevanceVectors() {
		if n < 0 || n >= r {
			return nil, fmt.Errorf("vrvmplot: x is not the training set of the model: it has %d rows, the model a relevance vector at row %d", r, n)
		}
		for k := range a.rel {
			if !a.rel[k] && floats.Equal(x.RawRowView(n), inputs.RawRowView(k)) {
				a.rel[k] = true
				break
			}
		}
	}
	return a, nil
}

// span returns n ≥ 2 evenly spaced values from lo to hi.
func span(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	v[n-1] = hi
	return v
}

// columnRange returns the range of column j of x, widened by frac of its
// length on each side (by 1 if the column is constant).
func columnRange(x *mat.Dense, j int, frac float64) (lo, hi float64) {
	r, _ := x.Dims()
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range r {
		v := x.At(i, j)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	d := (hi - lo) * frac
	if d == 0 {
		d = 1
	}
	return lo - d, hi + d
}
