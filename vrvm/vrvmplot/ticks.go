package vrvmplot

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// niceTicks is a plot.Ticker for linear axes with four to eight labelled
// ticks at multiples of 1, 2, 2.5 or 5 times a power of ten (gonum's
// DefaultTicks aims at three), and unlabelled minor ticks between them.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	// The smallest step of 1, 2, 2.5 or 5 times a power of ten that gives
	// at most seven intervals.
	raw := (hi - lo) / 7
	exp := math.Floor(math.Log10(raw))
	mag := math.Pow(10, exp)
	mult := 10.0
	for _, m := range []float64{1, 2, 2.5, 5} {
		if (hi-lo)/(m*mag) <= 7 {
			mult = m
			break
		}
	}
	step := mult * mag
	minor := step / 5
	if mult == 2 {
		minor = step / 4
	}
	prec := max(0, int(-exp))
	if mult == 2.5 {
		prec++
	}
	if mult == 10 {
		prec = max(0, prec-1)
	}
	format := func(v float64) string {
		if v == 0 {
			return "0"
		}
		if a := math.Abs(v); a >= 1e6 || exp < -5 {
			return strconv.FormatFloat(v, 'g', 4, 64)
		}
		scale := math.Pow10(prec)
		return strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi+minor*1e-9; i++ {
		v := i * minor
		k := math.Round(v / step)
		if math.Abs(v-k*step) < minor*1e-6 {
			v = k * step
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// thickRing is a glyph that draws the outline of a circle with a line of
// the given width: the relevance-vector circles.
type thickRing struct{ width vg.Length }

// DrawGlyph implements draw.GlyphDrawer.
func (g thickRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: g.width})
	p := make(vg.Path, 0, 3)
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// logTicks is a plot.Ticker for logarithmic axes: a tick at every power of
// ten, labelled "1e-5", "0.01", "1", "100", "1e+4"… every few decades so
// that at most about eight labels are drawn, with unlabelled ticks at the
// other decades and, over few decades, at 2…9 times each power.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := (b - a + 7) / 8
	var ticks []plot.Tick
	for k := a; k <= b; k++ {
		v := math.Pow10(k)
		t := plot.Tick{Value: v}
		if k%every == 0 {
			t.Label = logLabel(k)
		}
		ticks = append(ticks, t)
		if b-a <= 4 && k < b {
			for m := 2; m < 10; m++ {
				ticks = append(ticks, plot.Tick{Value: float64(m) * v})
			}
		}
	}
	return ticks
}

// logLabel formats 10ᵏ.
func logLabel(k int) string {
	if k >= -3 && k <= 3 {
		return strconv.FormatFloat(math.Pow10(k), 'f', -1, 64)
	}
	if k > 0 {
		return "1e+" + strconv.Itoa(k)
	}
	return "1e" + strconv.Itoa(k)
}
