package vrvmplot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
)

// classColours are the colours of up to eight classes (Okabe–Ito).
var classColours = []color.RGBA{colBlue, colVermilion, colGreen, colOrange, colPurple, colSky,
	{R: 240, G: 228, B: 66, A: 255}, {R: 120, G: 120, B: 120, A: 255}}

// MaxMapClasses is the largest number of classes MultiDecisionMap draws.
const MaxMapClasses = 8

// MultiDecisionMap draws a fitted multi-class classifier with two inputs:
// the predictive probabilities (moderated, or plug-in with opt.Plugin)
// as a map whose colour at each point mixes the class colours in
// proportion to the probabilities, so that pale mixtures show where the
// model is unsure; the decision boundaries (where the largest mean
// activation changes class) as black lines; the training data by class;
// and the relevance vectors (the union over classes) circled.
//
// x and labels must be the training set c was fitted on. Of opt, Plugin,
// Points and the bounds are used. It returns an error, and draws nothing,
// if c is not fitted, x does not have two columns, a label is not one of
// the model's classes, the model has more than MaxMapClasses classes, or
// the options are invalid.
func MultiDecisionMap(c *vrvm.MultiClassifier, x *mat.Dense, labels []string, opt MapOptions) (*Figure, error) {
	classes, pos, err := checkMulti(c, x, labels)
	if err != nil {
		return nil, err
	}
	n, bounds, err := multiGrid(x, opt)
	if err != nil {
		return nil, err
	}
	g := &Grid{Xs: span(bounds[0], bounds[1], n), Ys: span(bounds[2], bounds[3], n)}
	pts := g.inputs()
	var prob *mat.Dense
	if opt.Plugin {
		prob, err = c.ProbPlugin(pts)
	} else {
		prob, err = c.Prob(pts)
	}
	if err != nil {
		return nil, err
	}
	ybar, _, err := c.Latent(pts)
	if err != nil {
		return nil, err
	}
	rv := c.RelevanceVectors()
	p := newMapPlot(fmt.Sprintf("multi-class VRVM, %d relevance vectors: %s probabilities", len(rv), probabilityKind(opt.Plugin)))
	p.Add(&mixMap{g: g, prob: prob, k: len(classes)})
	addBoundaries(p, g, ybar, len(classes), n)
	all, err := addClasses(p, x, labels, classes, pos, rv)
	if err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = bounds[0], bounds[1]
	p.Y.Min, p.Y.Max = bounds[2], bounds[3]
	const width, height = DefaultWidth, 11 * vg.Centimeter
	placeLegend(p, width, height, all, false)
	return &Figure{Panels: []*plot.Plot{p}, Heights: []float64{1}, Width: width, Height: height}, nil
}

// checkMulti checks the model and the training set of MultiDecisionMap
// and returns the model's classes and their positions by name.
func checkMulti(c *vrvm.MultiClassifier, x *mat.Dense, labels []string) ([]string, map[string]int, error) {
	if c == nil {
		return nil, nil, fmt.Errorf("vrvmplot: nil MultiClassifier: %w", vrvm.ErrNotFitted)
	}
	if c.Status() == vrvm.NotFitted {
		return nil, nil, fmt.Errorf("vrvmplot: %w", vrvm.ErrNotFitted)
	}
	if err := checkInputs(x, len(labels), 2); err != nil {
		return nil, nil, err
	}
	classes := c.Classes()
	if len(classes) > MaxMapClasses {
		return nil, nil, fmt.Errorf("vrvmplot: %d classes, at most %d can be drawn", len(classes), MaxMapClasses)
	}
	pos := map[string]int{}
	for i, cl := range classes {
		pos[cl] = i
	}
	for i, l := range labels {
		if _, ok := pos[l]; !ok {
			return nil, nil, fmt.Errorf("vrvmplot: labels[%d] = %q is not one of the model's classes", i, l)
		}
	}
	return classes, pos, nil
}

// multiGrid returns the number of grid points per axis and the bounds
// (xmin, xmax, ymin, ymax) of MultiDecisionMap: those of opt, or, where
// an axis's are not increasing, the range of x's column padded by 5 %.
func multiGrid(x *mat.Dense, opt MapOptions) (int, []float64, error) {
	n := opt.Points
	switch {
	case n == 0:
		n = DefaultGridPoints
	case n < 2:
		return 0, nil, fmt.Errorf("vrvmplot: MapOptions.Points = %d, want at least 2 (0 means %d)", n, DefaultGridPoints)
	}
	bounds := []float64{opt.XMin, opt.XMax, opt.YMin, opt.YMax}
	for i, v := range bounds {
		if err := finite(v, []string{"MapOptions.XMin", "MapOptions.XMax", "MapOptions.YMin", "MapOptions.YMax"}[i]); err != nil {
			return 0, nil, err
		}
	}
	for j := range 2 {
		if bounds[2*j] >= bounds[2*j+1] {
			bounds[2*j], bounds[2*j+1] = columnRange(x, j, 0.05)
		}
	}
	return n, bounds, nil
}

// addBoundaries draws the decision boundaries of nk classes on the n × n
// grid g, from the activations ybar at its points: where
// dₖ = ȳₖ − maxⱼ≠ₖ ȳⱼ changes sign.
func addBoundaries(p *plot.Plot, g *Grid, ybar *mat.Dense, nk, n int) {
	boundary := lineStyle(colBlack, vg.Points(2))
	for k := range nk {
		d := &Grid{Xs: g.Xs, Ys: g.Ys, Zs: mat.NewDense(n, n, nil)}
		for r := range n {
			for col := range n {
				row := ybar.RawRowView(r*n + col)
				best := -1.0
				first := true
				for j, v := range row {
					if j != k && (first || v > best) {
						best, first = v, false
					}
				}
				d.Zs.Set(r, col, row[k]-best)
			}
		}
		ct := plotter.NewContour(d, []float64{0}, nil)
		ct.LineStyles = []draw.LineStyle{boundary}
		p.Add(ct)
	}
	p.Legend.Add("decision boundary", &plotter.Line{LineStyle: boundary})
}

// addClasses draws the training points of x in the colours and glyphs of
// their classes and rings the relevance vectors rv; it returns every
// point.
func addClasses(p *plot.Plot, x *mat.Dense, labels, classes []string, pos map[string]int, rv []int) (plotter.XYs, error) {
	var all plotter.XYs
	byClass := make([]plotter.XYs, len(classes))
	for i, l := range labels {
		xy := plotter.XY{X: x.At(i, 0), Y: x.At(i, 1)}
		byClass[pos[l]] = append(byClass[pos[l]], xy)
		all = append(all, xy)
	}
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.SquareGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.CircleGlyph{}}
	for k, xy := range byClass {
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = glyph(classColours[k], glyphs[k], vg.Points(2.8))
		p.Add(s)
		p.Legend.Add("class "+classes[k], s)
	}
	if len(rv) > 0 {
		circ := make(plotter.XYs, len(rv))
		for i, r := range rv {
			circ[i] = plotter.XY{X: x.At(r, 0), Y: x.At(r, 1)}
		}
		s, err := plotter.NewScatter(circ)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = glyph(colBlack, thickRing{vg.Points(1.5)}, vg.Points(6.5))
		p.Add(s)
		p.Legend.Add("relevance vectors", s)
	}
	return all, nil
}

// mixMap draws each grid cell in the class colours mixed by the
// probabilities, over white.
type mixMap struct {
	g    *Grid
	prob *mat.Dense
	k    int
}

func (m *mixMap) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	nx, ny := m.g.Dims()
	half := func(v []float64, i int) (lo, hi float64) {
		switch {
		case len(v) == 1:
			return v[0] - 0.5, v[0] + 0.5
		case i == 0:
			d := (v[1] - v[0]) / 2
			return v[0] - d, v[0] + d
		case i == len(v)-1:
			d := (v[i] - v[i-1]) / 2
			return v[i] - d, v[i] + d
		}
		return (v[i-1] + v[i]) / 2, (v[i] + v[i+1]) / 2
	}
	for r := range ny {
		y0, y1 := half(m.g.Ys, r)
		for col := range nx {
			x0, x1 := half(m.g.Xs, col)
			row := m.prob.RawRowView(r*nx + col)
			var cr, cg, cb float64
			for k, p := range row {
				cc := classColours[k]
				cr += p * float64(cc.R)
				cg += p * float64(cc.G)
				cb += p * float64(cc.B)
			}
			// 60% of the mixture over white, so that the points stay visible.
			fill := color.RGBA{R: uint8(0.6*cr + 0.4*255), G: uint8(0.6*cg + 0.4*255), B: uint8(0.6*cb + 0.4*255), A: 255}
			rect := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: trY(y0)}, Max: vg.Point{X: trX(x1) + 0.3, Y: trY(y1) + 0.3}}
			c.SetColor(fill)
			c.Fill(rect.Path())
		}
	}
}
