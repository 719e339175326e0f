package vrvmplot_test

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// pnger is the interface by which gophernotes displays a value as
// image/png (display.go, PNGer).
type pnger interface{ PNG() []byte }

var _ pnger = (*vrvmplot.Figure)(nil)

func TestFigureOutputs(t *testing.T) {
	t.Parallel()
	fig, err := vrvmplot.BoundTrace([]float64{-10, -5, -4, -3.9})
	if err != nil {
		t.Fatal(err)
	}
	fig.Width, fig.Height = 10*vg.Centimeter, 8*vg.Centimeter
	wantW, wantH := int(fig.Width.Dots(96)+0.5), int(fig.Height.Dots(96)+0.5)

	b := fig.PNG()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	if s := img.Bounds().Size(); s.X != wantW || s.Y != wantH {
		t.Errorf("PNG size %v, want %dx%d", s, wantW, wantH)
	}
	if im := fig.Image(); im == nil || im.Bounds() != img.Bounds() {
		t.Errorf("Image bounds %v, want %v", im.Bounds(), img.Bounds())
	}
	var buf bytes.Buffer
	if _, err := fig.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), b) {
		t.Errorf("WriteTo differs from PNG (err %v)", err)
	}

	dir := t.TempDir()
	for _, ext := range []string{"png", "svg", "pdf", "eps", "jpg", "tiff"} {
		path := filepath.Join(dir, "fig."+ext)
		if err := fig.Save(path); err != nil {
			t.Errorf("Save %s: %v", ext, err)
			continue
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("Save %s wrote nothing (%v)", ext, err)
		}
	}
	if err := fig.Save(filepath.Join(dir, "fig")); err == nil {
		t.Error("Save without an extension: no error")
	}
	if err := fig.Save(filepath.Join(dir, "fig.bmp")); err == nil {
		t.Error("Save .bmp: no error")
	}
	if _, err := fig.WriterTo("SVG"); err != nil {
		t.Errorf("WriterTo(SVG): %v", err)
	}
}

func TestFigureDefaultsAndErrors(t *testing.T) {
	t.Parallel()
	// Zero size means the defaults.
	fig := &vrvmplot.Figure{Panels: []*plot.Plot{plot.New()}, Heights: []float64{-1}}
	img := fig.Image()
	if img == nil {
		t.Fatal("Image of a one-panel figure with zero size is nil")
	}
	if w := img.Bounds().Dx(); w != int(vrvmplot.DefaultWidth.Dots(96)+0.5) {
		t.Errorf("width %d, want the default", w)
	}

	for name, f := range map[string]*vrvmplot.Figure{
		"nil":       nil,
		"empty":     {},
		"nil panel": {Panels: []*plot.Plot{plot.New(), nil}},
	} {
		if _, err := f.WriterTo("png"); !errors.Is(err, vrvmplot.ErrNoPanels) {
			t.Errorf("%s: WriterTo error %v, want ErrNoPanels", name, err)
		}
		if _, err := f.WriteTo(&bytes.Buffer{}); !errors.Is(err, vrvmplot.ErrNoPanels) {
			t.Errorf("%s: WriteTo error %v, want ErrNoPanels", name, err)
		}
		if err := f.Save(filepath.Join(t.TempDir(), "x.png")); !errors.Is(err, vrvmplot.ErrNoPanels) {
			t.Errorf("%s: Save error %v, want ErrNoPanels", name, err)
		}
		if f.PNG() != nil || f.Image() != nil {
			t.Errorf("%s: PNG or Image not nil", name)
		}
	}

	// A plotter that panics while drawing gives an error, not a panic.
	p := plot.New()
	p.Add(panicker{})
	fig = &vrvmplot.Figure{Panels: []*plot.Plot{p}}
	if _, err := fig.WriterTo("png"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panicking plotter: error %v", err)
	}
	if fig.PNG() != nil {
		t.Error("panicking plotter: PNG not nil")
	}
}

type panicker struct{}

func (panicker) Plot(draw.Canvas, *plot.Plot) { panic("boom") }
