package vrvmplot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

// DefaultGridPoints is the number of grid points per axis of DecisionMap
// when MapOptions.Points is zero.
const DefaultGridPoints = 100

// MapOptions are the options of DecisionMap. The zero value draws the
// moderated probability over the range of the training inputs with the
// contours p = 0.25, 0.5 and 0.75.
type MapOptions struct {
	// Plugin draws the plug-in probability σ(μᵀφ(x)) (65) instead of
	// MacKay's moderated probability, which accounts for the uncertainty
	// of the weights and is pulled towards ½ away from the data. Both
	// have the same p = 0.5 contour.
	Plugin bool
	// Points is the number of grid points along each input; 0 means
	// DefaultGridPoints. It must not be 1 or negative.
	Points int
	// XMin, XMax, YMin and YMax bound the map. If XMin ≥ XMax (both zero
	// by default) the range of the first input, widened by 5% each side,
	// is used; likewise for Y and the second input.
	XMin, XMax, YMin, YMax float64
	// Levels are the probabilities at which contours are drawn: p = 0.5
	// solid, the others dashed. nil means 0.25, 0.5, 0.75.
	Levels []float64
	// Reference, if not nil, is drawn as the curve where it is zero: a
	// known decision boundary, such as the Bayes boundary of the data.
	Reference func(x1, x2 float64) float64
	// ReferenceLabel is the legend entry of Reference; "" means
	// "reference boundary".
	ReferenceLabel string
}

// DecisionMap draws a fitted classifier with two inputs as the paper's
// Figure 6: a map of P(t = 1 | x) with a colour bar, its contours (the
// decision boundary p = 0.5 solid), the training data by class and the
// relevance vectors circled.
//
// x and t must be the training set c was fitted on: two input columns, one
// row per label in {0, 1}; the relevance vectors are found in x by their
// centres. DecisionMap returns an error, and draws nothing, if c is not
// fitted, if x does not have two columns, if the centre of an active
// kernel function is not a row of x, if x or t hold NaN or ±Inf
// (errors wrapping plotter.ErrNaN and plotter.ErrInfinity) or are empty
// (plotter.ErrNoData), if a label is not 0 or 1, or if the options are
// invalid.
func DecisionMap(c *vrvm.Classifier, x *mat.Dense, t []float64, opt MapOptions) (*Figure, error) {
	act, err := trainingSet(c, x, t, 2)
	if err != nil {
		return nil, err
	}
	for i, v := range t {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("vrvmplot: t[%d] = %g, want a class label 0 or 1", i, v)
		}
	}
	n, err := pointCount(opt.Points, DefaultGridPoints, "MapOptions.Points")
	if err != nil {
		return nil, err
	}
	levels, err := mapLevels(opt.Levels)
	if err != nil {
		return nil, err
	}
	xmin, xmax, err := axisRange(opt.XMin, opt.XMax, "MapOptions.XMin", "MapOptions.XMax", x, 0, 0.05)
	if err != nil {
		return nil, err
	}
	ymin, ymax, err := axisRange(opt.YMin, opt.YMax, "MapOptions.YMin", "MapOptions.YMax", x, 1, 0.05)
	if err != nil {
		return nil, err
	}

	g, err := ProbabilityGrid(c, span(xmin, xmax, n), span(ymin, ymax, n), opt.Plugin)
	if err != nil {
		return nil, err
	}
	rv := act.relevant()
	p := newMapPlot(fmt.Sprintf("VRVM classifier, %d relevance vectors: %s P(t = 1 | x)", len(rv), probabilityKind(opt.Plugin)))

	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(0)
	cmap.SetMax(1)
	cmap.SetAlpha(0.7)
	heat := plotter.NewHeatMap(g, cmap.Palette(255))
	heat.Min, heat.Max = 0, 1
	heat.Rasterized = true
	p.Add(heat)

	for _, l := range levels {
		style := dashed(colBlack, vg.Points(1))
		if l == 0.5 {
			style = lineStyle(colBlack, vg.Points(2))
		}
		ct := plotter.NewContour(g, []float64{l}, nil)
		ct.LineStyles = []draw.LineStyle{style}
		p.Add(ct)
		p.Legend.Add(fmt.Sprintf("p = %g", l), &plotter.Line{LineStyle: style})
	}
	if opt.Reference != nil {
		if err := addReference(p, g, n, opt); err != nil {
			return nil, err
		}
	}

	all, err := addBinaryClasses(p, x, t, rv)
	if err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = ymin, ymax

	const width, height = DefaultWidth, 13 * vg.Centimeter
	heights := []float64{11, 2}
	placeLegend(p, width, height*vg.Length(heights[0]/13), all, false)

	bar := plot.New()
	bar.HideY()
	bar.X.Padding = 0
	bar.X.Label.Text = probabilityKind(opt.Plugin) + " P(t = 1 | x)"
	bar.X.Tick.Marker = niceTicks{}
	bar.Add(&plotter.ColorBar{ColorMap: cmap})
	return &Figure{Panels: []*plot.Plot{p, bar}, Heights: heights, Width: width, Height: height}, nil
}

// mapLevels returns the probabilities whose contours DecisionMap draws:
// levels, or 0.25, 0.5 and 0.75 if nil, each checked to be in (0, 1).
func mapLevels(levels []float64) ([]float64, error) {
	if levels == nil {
		levels = []float64{0.25, 0.5, 0.75}
	}
	for i, l := range levels {
		if !(l > 0 && l < 1) {
			return nil, fmt.Errorf("vrvmplot: MapOptions.Levels[%d] = %g, want a probability in (0, 1)", i, l)
		}
	}
	return levels, nil
}

// addReference draws the zero contour of opt.Reference on the n × n grid
// of g, with its legend entry.
func addReference(p *plot.Plot, g *Grid, n int, opt MapOptions) error {
	ref := &Grid{Xs: g.Xs, Ys: g.Ys, Zs: mat.NewDense(n, n, nil)}
	for r, y := range g.Ys {
		for col, xv := range g.Xs {
			v := opt.Reference(xv, y)
			if err := finite(v, fmt.Sprintf("Reference(%g, %g)", xv, y)); err != nil {
				return err
			}
			ref.Zs.Set(r, col, v)
		}
	}
	style := dashed(colGreen, vg.Points(2))
	style.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	ct := plotter.NewContour(ref, []float64{0}, nil)
	ct.LineStyles = []draw.LineStyle{style}
	p.Add(ct)
	label := opt.ReferenceLabel
	if label == "" {
		label = "reference boundary"
	}
	p.Legend.Add(label, &plotter.Line{LineStyle: style})
	return nil
}

// addBinaryClasses draws the training points of x by their labels t
// (open circles for class 0, triangles for class 1) and rings the
// relevance vectors rv; it returns every point.
func addBinaryClasses(p *plot.Plot, x *mat.Dense, t []float64, rv []int) (plotter.XYs, error) {
	var class [2]plotter.XYs
	var all plotter.XYs
	for i, v := range t {
		xy := plotter.XY{X: x.At(i, 0), Y: x.At(i, 1)}
		class[int(v)] = append(class[int(v)], xy)
		all = append(all, xy)
	}
	if len(class[0]) > 0 {
		fill, err := plotter.NewScatter(class[0])
		if err != nil {
			return nil, err
		}
		fill.GlyphStyle = glyph(color.White, draw.CircleGlyph{}, vg.Points(2.5))
		ring, _ := plotter.NewScatter(class[0])
		ring.GlyphStyle = glyph(colBlack, draw.RingGlyph{}, vg.Points(2.5))
		p.Add(fill, ring)
		p.Legend.Add("class 0", fill, ring)
	}
	if len(class[1]) > 0 {
		if err := addScatter(p, class[1], glyph(colBlack, draw.PyramidGlyph{}, vg.Points(2.8)), "class 1"); err != nil {
			return nil, err
		}
	}
	if err := circleRelevant(p, all, rv, glyph(colBlack, thickRing{vg.Points(1.5)}, vg.Points(6.5))); err != nil {
		return nil, err
	}
	return all, nil
}
