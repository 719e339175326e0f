package vrvmplot

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// legendMargin is the space kept around a legend.
const legendMargin vg.Length = 3 // points

// placeLegend puts the legend of p, a panel of size w × h whose plotters
// have all been added, into the corner of the data area that covers the
// fewest of the points pts (ties: top right, top left, bottom right,
// bottom left). If every corner covers some and stretch is true, the y
// axis is extended at the chosen corner's side until the legend clears
// the points beneath it. A translucent white box is drawn under the
// legend.
func placeLegend(p *plot.Plot, w, h vg.Length, pts []plotter.XY, stretch bool) {
	dc := p.DataCanvas(draw.Canvas{Canvas: &recorder.Canvas{}, Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
	r := p.Legend.Rectangle(dc)
	lw, lh := r.Size().X+2*legendMargin, r.Size().Y+2*legendMargin
	dw, dh := dc.Size().X, dc.Size().Y
	if lh <= 2*legendMargin || dw <= 0 || dh <= 0 {
		return
	}
	fx, fy := float64(lw/dw), float64(lh/dh)
	if fx >= 1 || fy >= 0.9 {
		// The legend fills the panel: nothing can be avoided.
		p.Legend.Top = true
		return
	}

	// Positions of the points in the unit square of the data area.
	type pos struct{ x, y float64 }
	ps := make([]pos, 0, len(pts))
	for _, q := range pts {
		if isFinite(q.X) && isFinite(q.Y) && (q.Y > 0 || !isLog(p.Y.Scale)) && (q.X > 0 || !isLog(p.X.Scale)) {
			ps = append(ps, pos{p.X.Norm(q.X), p.Y.Norm(q.Y)})
		}
	}
	corners := []struct{ top, left bool }{{true, false}, {true, true}, {false, false}, {false, true}}
	best, bestN := 0, len(ps)+1
	for i, c := range corners {
		n := 0
		for _, q := range ps {
			if inCorner(q.x, q.y, fx, fy, c.top, c.left) {
				n++
			}
		}
		if n < bestN {
			best, bestN = i, n
		}
	}
	c := corners[best]
	p.Legend.Top, p.Legend.Left = c.top, c.left
	p.Legend.XOffs, p.Legend.YOffs = -legendMargin, -legendMargin
	if c.left {
		p.Legend.XOffs = legendMargin
	}
	if !c.top {
		p.Legend.YOffs = legendMargin
	}
	if bestN > 0 && stretch {
		// The extreme normalised y of the points in the legend's column.
		ext := 0.0
		if !c.top {
			ext = 1
		}
		for _, q := range ps {
			if (c.left && q.x <= fx) || (!c.left && q.x >= 1-fx) {
				if c.top {
					ext = math.Max(ext, q.y)
				} else {
					ext = math.Min(ext, q.y)
				}
			}
		}
		// Stretch the axis so that ext lands at 1−fy (top) or fy (bottom).
		lo, hi := p.Y.Min, p.Y.Max
		log := isLog(p.Y.Scale)
		if log {
			lo, hi = math.Log(lo), math.Log(hi)
		}
		span := hi - lo
		if c.top {
			hi = lo + ext*span/(1-fy)
		} else {
			lo = hi - (1-ext)*span/(1-fy)
		}
		if log {
			lo, hi = math.Exp(lo), math.Exp(hi)
		}
		p.Y.Min, p.Y.Max = lo, hi
	}
	p.Add(legendBox{})
}

// inCorner reports whether (x, y) in the unit square lies in the corner
// box of size fx × fy.
func inCorner(x, y, fx, fy float64, top, left bool) bool {
	inX := x >= 1-fx
	if left {
		inX = x <= fx
	}
	inY := y <= fy
	if top {
		inY = y >= 1-fy
	}
	return inX && inY
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func isLog(s plot.Normalizer) bool {
	_, ok := s.(plot.LogScale)
	return ok
}

// legendBox is a plotter that fills the area of the plot's legend with
// translucent white, so that the legend stays legible over data.
type legendBox struct{}

// Plot implements plot.Plotter.
func (legendBox) Plot(c draw.Canvas, p *plot.Plot) {
	// The legend is drawn on the data canvas before axis padding.
	c = draw.Crop(c, -p.X.Padding, p.X.Padding, -p.Y.Padding, p.Y.Padding)
	r := p.Legend.Rectangle(c)
	size := r.Size()
	var box vg.Rectangle
	if p.Legend.Left {
		box.Min.X = c.Min.X
	} else {
		box.Min.X = c.Max.X - size.X
	}
	if p.Legend.Top {
		box.Min.Y = c.Max.Y - size.Y
	} else {
		box.Min.Y = c.Min.Y
	}
	box.Min.X += p.Legend.XOffs - legendMargin
	box.Min.Y += p.Legend.YOffs - legendMargin
	box.Max.X = box.Min.X + size.X + 2*legendMargin
	box.Max.Y = box.Min.Y + size.Y + 2*legendMargin
	c.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 210})
	c.Fill(box.Path())
}
