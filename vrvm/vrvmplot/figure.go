package vrvmplot

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Default figure sizes: DefaultWidth × DefaultHeight for a figure of one
// panel; the figures of two stacked panels are taller.
const (
	DefaultWidth  = 14 * vg.Centimeter
	DefaultHeight = 10 * vg.Centimeter
)

// ErrNoPanels is returned when a Figure that has no panels, or a nil
// panel, is drawn.
var ErrNoPanels = errors.New("vrvmplot: figure has no panels")

// Figure is a figure of one or more gonum/plot panels stacked top to bottom,
// their data areas aligned horizontally. Every function of this package
// returns one; its panels can be changed before it is drawn (a title, an
// axis range, another plotter).
//
// A *Figure renders inline in gophernotes, which displays any value with a
// PNG() []byte method, and saves to a file with Save. The methods that
// return an error report a figure that cannot be drawn; Image and PNG,
// whose signatures have no error, return nil instead.
type Figure struct {
	// Panels are the plots, drawn from top to bottom.
	Panels []*plot.Plot
	// Heights are the relative heights of the panels. If Heights does not
	// hold one positive finite value per panel, the panels share the
	// height equally.
	Heights []float64
	// Width and Height are the size of the whole figure. A value that is
	// not positive means DefaultWidth or DefaultHeight.
	Width, Height vg.Length
}

// panelGap is the vertical space between two stacked panels and margin
// the space around the figure.
const (
	panelGap = 3 * vg.Millimeter
	margin   = 1.5 * vg.Millimeter
)

// size returns the figure's size with defaults filled in.
func (f *Figure) size() (w, h vg.Length) {
	w, h = f.Width, f.Height
	if !(w > 0) || math.IsInf(float64(w), 0) {
		w = DefaultWidth
	}
	if !(h > 0) || math.IsInf(float64(h), 0) {
		h = DefaultHeight
	}
	return w, h
}

// check reports whether f can be drawn.
func (f *Figure) check() error {
	if f == nil || len(f.Panels) == 0 {
		return ErrNoPanels
	}
	for i, p := range f.Panels {
		if p == nil {
			return fmt.Errorf("vrvmplot: panel %d is nil: %w", i, ErrNoPanels)
		}
	}
	return nil
}

// heights returns the relative panel heights, normalised to sum to 1.
func (f *Figure) heights() []float64 {
	n := len(f.Panels)
	h := make([]float64, n)
	var sum float64
	ok := len(f.Heights) == n
	for i := 0; ok && i < n; i++ {
		v := f.Heights[i]
		ok = v > 0 && !math.IsInf(v, 0)
		h[i] = v
		sum += v
	}
	if !ok {
		for i := range h {
			h[i] = 1
		}
		sum = float64(n)
	}
	for i := range h {
		h[i] /= sum
	}
	return h
}

// Draw draws the figure into c: the background in white, then the panels
// from top to bottom, each cropped so that the data areas of all panels
// share their left and right edges. A panic of a plotter while drawing is
// returned as an error.
func (f *Figure) Draw(c draw.Canvas) (err error) {
	if err := f.check(); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("vrvmplot: drawing the figure: %v", r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin, -margin)

	n := len(f.Panels)
	avail := c.Max.Y - c.Min.Y - vg.Length(n-1)*panelGap
	slots := make([]draw.Canvas, n)
	top := c.Max.Y
	for i, h := range f.heights() {
		slot := c
		slot.Max.Y = top
		slot.Min.Y = top - vg.Length(h)*avail
		slots[i] = slot
		top = slot.Min.Y - panelGap
	}
	if n > 1 {
		// Align the data areas horizontally: every panel gets the widest
		// left margin (y axis) and the widest right margin of them all.
		var left, right vg.Length
		for i, p := range f.Panels {
			d := p.DataCanvas(slots[i])
			left = max(left, d.Min.X-slots[i].Min.X)
			right = max(right, slots[i].Max.X-d.Max.X)
		}
		for i, p := range f.Panels {
			d := p.DataCanvas(slots[i])
			slots[i] = draw.Crop(slots[i], left-(d.Min.X-slots[i].Min.X), -(right - (slots[i].Max.X - d.Max.X)), 0, 0)
		}
	}
	for i, p := range f.Panels {
		p.Draw(slots[i])
	}
	return nil
}

// WriterTo returns an io.WriterTo that writes the figure in the given
// format: "png", "svg", "pdf", "eps", "jpg", "jpeg", "tif", "tiff" or "tex".
func (f *Figure) WriterTo(format string) (io.WriterTo, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	w, h := f.size()
	c, err := draw.NewFormattedCanvas(w, h, strings.ToLower(format))
	if err != nil {
		return nil, fmt.Errorf("vrvmplot: %w", err)
	}
	if err := f.Draw(draw.New(c)); err != nil {
		return nil, err
	}
	return c, nil
}

// WriteTo writes the figure to w as PNG; it implements io.WriterTo.
func (f *Figure) WriteTo(w io.Writer) (int64, error) {
	wt, err := f.WriterTo("png")
	if err != nil {
		return 0, err
	}
	return wt.WriteTo(w)
}

// Save writes the figure to the file path, in the format named by its
// extension (see WriterTo).
func (f *Figure) Save(path string) (err error) {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	if format == "" {
		return fmt.Errorf("vrvmplot: %s: no file extension to name the image format", path)
	}
	wt, err := f.WriterTo(format)
	if err != nil {
		return err
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if e := file.Close(); err == nil {
			err = e
		}
	}()
	_, err = wt.WriteTo(file)
	return err
}

// Image returns the figure drawn into an image of Width × Height at
// vgimg.DefaultDPI, or nil if it cannot be drawn (see Draw). Ending a
// gophernotes cell with fig.Image() displays it.
func (f *Figure) Image() image.Image {
	if f.check() != nil {
		return nil
	}
	w, h := f.size()
	c := vgimg.New(w, h)
	if f.Draw(draw.New(c)) != nil {
		return nil
	}
	return c.Image()
}

// PNG returns the figure encoded as PNG, or nil if it cannot be drawn.
// gophernotes displays any value with this method: a cell that ends with
// a *Figure shows the figure.
func (f *Figure) PNG() []byte {
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return nil
	}
	return buf.Bytes()
}
