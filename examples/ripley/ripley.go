// Ripley classifies Ripley's synthetic two-class data with the variational
// relevance vector machine (Bishop & Tipping 2000, section 5.2), prints the
// relevance vectors and the test error, and draws the decision boundary
// P(t = 1 | x) = ½ together with the Bayes boundary into a PNG file.
//
// It is a standalone program: run it compiled or interpreted,
//
//	go run ./examples/ripley [flags] boundary.png
//	vrvm run examples/ripley/ripley.go [flags] boundary.png
//
// By default the data are drawn with datasets.Ripley (250 training and 1000
// test points); -files reads Ripley's own training and test sets from the
// data directory instead (see datasets.Dir).
package main

import (
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func main() {
	width := flag.Float64("width", 0.5, "width r of the Gaussian kernel exp(-‖x-x'‖²/r²)")
	seed := flag.Uint64("seed", 1, "seed of the generated training set (the test set uses seed+1)")
	files := flag.Bool("files", false, "use Ripley's training and test files instead of generated data")
	grid := flag.Int("grid", 60, "grid points per axis for the decision boundary")
	maxIter := flag.Int("maxiter", 0, "iteration limit of the fit (0: the library's default)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: ripley [flags] boundary.png")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	out := flag.Arg(0)

	var train, test *datasets.Dataset
	var err error
	if *files {
		train, test, err = datasets.LoadRipley()
	} else {
		if train, err = datasets.Ripley(250, *seed); err == nil {
			test, err = datasets.Ripley(1000, *seed+1)
		}
	}
	if err != nil {
		log.Fatal(err)
	}

	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: *width}, MaxIter: *maxIter}
	if err := c.Fit(train.X, train.T); err != nil {
		log.Fatal(err)
	}
	n, _ := train.X.Dims()
	fmt.Printf("ripley: N = %d, Gaussian kernel r = %s\n", n, g(*width))
	fmt.Printf("status %v after %d iterations\n", c.Status(), c.Iterations())
	fmt.Printf("lower bound %s\n", g(c.LowerBound()))
	rv := c.RelevanceVectors()
	fmt.Printf("%d relevance vectors:\n", len(rv))
	for _, row := range rv {
		fmt.Printf("  x[%d] = (%s, %s)  class %s\n", row, g(train.X.At(row, 0)), g(train.X.At(row, 1)), g(train.T[row]))
	}

	p, err := c.ProbModerated(test.X)
	if err != nil {
		log.Fatal(err)
	}
	wrong := 0
	for i, pi := range p {
		if (pi > 0.5) != (test.T[i] == 1) {
			wrong++
		}
	}
	fmt.Printf("test error %d/%d = %s%%\n", wrong, len(p), g(100*float64(wrong)/float64(len(p))))
	fmt.Println("P(t = 1 | x) at the first test points (x, plug-in, moderated):")
	plugin, err := c.ProbPlugin(test.X.Slice(0, 5, 0, 2))
	if err != nil {
		log.Fatal(err)
	}
	for i := range plugin {
		fmt.Printf("  (%s, %s) %s %s\n", g(test.X.At(i, 0)), g(test.X.At(i, 1)), g(plugin[i]), g(p[i]))
	}

	if err := drawBoundary(out, c, train, *grid); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("decision boundary written to %s\n", out)
}

// surface is a function sampled on a regular grid; it implements
// plotter.GridXYZ for the contour plotter.
type surface struct {
	x, y []float64
	z    [][]float64 // z[c][r] at (x[c], y[r])
}

func (s surface) Dims() (c, r int)   { return len(s.x), len(s.y) }
func (s surface) Z(c, r int) float64 { return s.z[c][r] }
func (s surface) X(c int) float64    { return s.x[c] }
func (s surface) Y(r int) float64    { return s.y[r] }
func (s surface) Min() float64       { return -1 }
func (s surface) Max() float64       { return 1 }
func linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

// drawBoundary plots the training points, the relevance vectors and the
// ½-contours of the model and of the Bayes classifier to a PNG file.
func drawBoundary(path string, c *vrvm.Classifier, train *datasets.Dataset, n int) error {
	xs, ys := linspace(-1.3, 1.1, n), linspace(-0.3, 1.2, n)
	pts := mat.NewDense(n*n, 2, nil)
	for i, x := range xs {
		for j, y := range ys {
			pts.SetRow(i*n+j, []float64{x, y})
		}
	}
	prob, err := c.ProbModerated(pts)
	if err != nil {
		return err
	}
	model := surface{x: xs, y: ys, z: make([][]float64, n)}
	bayes := surface{x: xs, y: ys, z: make([][]float64, n)}
	for i, x := range xs {
		model.z[i] = make([]float64, n)
		bayes.z[i] = make([]float64, n)
		for j, y := range ys {
			model.z[i][j] = prob[i*n+j] - 0.5
			// Equal class priors: class 1 where its density is larger.
			d1, d0 := datasets.RipleyDensity(x, y, 1), datasets.RipleyDensity(x, y, 0)
			bayes.z[i][j] = math.Tanh(math.Log(d1 / d0))
		}
	}

	p := plot.New()
	p.Title.Text = "VRVM on Ripley's data: decision boundary P(t=1|x) = 1/2"
	p.X.Label.Text = "xs"
	p.Y.Label.Text = "ys"
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = -0.3, 1.5 // room for the legend above the data

	var class [2]plotter.XYs
	for i, t := range train.T {
		class[int(t)] = append(class[int(t)], plotter.XY{X: train.X.At(i, 0), Y: train.X.At(i, 1)})
	}
	for k, col := range []color.Color{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}} {
		s, err := plotter.NewScatter(class[k])
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = col
		s.GlyphStyle.Radius = vg.Points(2)
		if k == 0 {
			s.GlyphStyle.Shape = draw.CircleGlyph{}
		} else {
			s.GlyphStyle.Shape = draw.CrossGlyph{}
		}
		p.Add(s)
		p.Legend.Add("class "+strconv.Itoa(k), s)
	}

	var rvs plotter.XYs
	for _, row := range c.RelevanceVectors() {
		rvs = append(rvs, plotter.XY{X: train.X.At(row, 0), Y: train.X.At(row, 1)})
	}
	if len(rvs) > 0 {
		s, err := plotter.NewScatter(rvs)
		if err != nil {
			return err
		}
		s.GlyphStyle.Shape = draw.RingGlyph{}
		s.GlyphStyle.Radius = vg.Points(6)
		p.Add(s)
		p.Legend.Add("relevance vectors", s)
	}

	addBoundary(p, "VRVM", model, draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)})
	addBoundary(p, "Bayes", bayes, draw.LineStyle{
		Color: color.Gray{Y: 110}, Width: vg.Points(1.5),
		Dashes: []vg.Length{vg.Points(4), vg.Points(3)},
	})
	return p.Save(6*vg.Inch, 5*vg.Inch, path)
}

// addBoundary adds the zero contour of s to p, with a legend entry.
//
// (A function rather than the body of a loop over the two boundaries: yaegi
// v0.16.1 keeps the pre-Go 1.22 semantics of one loop variable shared by all
// iterations, so a script value captured in an iteration would change with
// the next one.)
func addBoundary(p *plot.Plot, name string, s surface, style draw.LineStyle) {
	c := plotter.NewContour(s, []float64{0}, nil)
	c.LineStyles = []draw.LineStyle{style}
	p.Add(c)
	// The thumbnail goes through a variable of the interface type: yaegi
	// v0.16.1 does not convert a script value passed directly as a
	// variadic interface argument of a compiled function.
	var thumb plot.Thumbnailer = lineThumb(style)
	p.Legend.Add(name+" boundary", thumb)
}

// lineThumb draws a legend entry as a line of its style.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}

// g formats x with the fewest digits that represent it exactly.
func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
