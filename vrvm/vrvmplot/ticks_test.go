package vrvmplot

import (
	"slices"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func labels(ticks []plot.Tick) []string {
	var l []string
	for _, t := range ticks {
		if t.Label != "" {
			l = append(l, t.Label)
		}
	}
	return l
}

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{-6, 6, []string{"-6", "-4", "-2", "0", "2", "4", "6"}},
		{-0.39, 1.15, []string{"-0.25", "0", "0.25", "0.5", "0.75", "1"}},
		{-650, -20, []string{"-600", "-500", "-400", "-300", "-200", "-100"}},
		{-11.3, 11.3, []string{"-10", "-5", "0", "5", "10"}},
		{0.3, 0.7, []string{"0.3", "0.4", "0.5", "0.6", "0.7"}},
		{0, 1e7, []string{"0", "2e+06", "4e+06", "6e+06", "8e+06", "1e+07"}},
	} {
		if got := labels(niceTicks{}.Ticks(tc.lo, tc.hi)); !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%g, %g) labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{1e-3, 10, []string{"0.001", "0.01", "0.1", "1", "10"}},
		{3e-14, 90, []string{"1e-14", "1e-12", "1e-10", "1e-8", "1e-6", "1e-4", "0.01", "1", "100"}},
		{1, 1e5, []string{"1", "10", "100", "1000", "1e+4", "1e+5"}},
	} {
		if got := labels(logTicks{}.Ticks(tc.lo, tc.hi)); !slices.Equal(got, tc.want) {
			t.Errorf("logTicks(%g, %g) labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestPlaceLegend checks that the legend goes to the emptiest corner and,
// when every corner holds data, that the axis is stretched to clear them.
func TestPlaceLegend(t *testing.T) {
	t.Parallel()
	square := func(pts plotter.XYs) *plot.Plot {
		p := newPlot("", "x", "y")
		s, err := plotter.NewScatter(pts)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(s)
		p.Legend.Add("points", s)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return p
	}
	// Points in the top right and bottom left corners only.
	p := square(plotter.XYs{{X: 0.95, Y: 0.95}, {X: 0.05, Y: 0.05}})
	placeLegend(p, DefaultWidth, DefaultHeight, plotter.XYs{{X: 0.95, Y: 0.95}, {X: 0.05, Y: 0.05}}, true)
	if !p.Legend.Top || !p.Legend.Left || p.Y.Max != 1 {
		t.Errorf("legend Top %v Left %v, y max %g; want top left, y max 1", p.Legend.Top, p.Legend.Left, p.Y.Max)
	}
	// Points in every corner: top right, y axis stretched above 1.
	all := plotter.XYs{{X: 0.95, Y: 0.95}, {X: 0.05, Y: 0.05}, {X: 0.05, Y: 0.95}, {X: 0.95, Y: 0.05}}
	p = square(all)
	placeLegend(p, DefaultWidth, DefaultHeight, all, true)
	if !p.Legend.Top || p.Legend.Left || !(p.Y.Max > 1) {
		t.Errorf("legend Top %v Left %v, y max %g; want top right, y max > 1", p.Legend.Top, p.Legend.Left, p.Y.Max)
	}
	// Without stretching the axis stays.
	p = square(all)
	placeLegend(p, DefaultWidth, DefaultHeight, all, false)
	if p.Y.Max != 1 || p.Y.Min != 0 {
		t.Errorf("y range [%g, %g] changed without stretch", p.Y.Min, p.Y.Max)
	}
}
