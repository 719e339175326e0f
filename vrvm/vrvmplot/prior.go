package vrvmplot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StudentT returns the marginal prior density of a weight under the
// hierarchical prior of the paper's section 3, N(w | 0, α⁻¹) (17) with
// α ~ Γ(a, b) (18) integrated out:
//
//	p(w) = bᵃ Γ(a + ½) / (Γ(a) √(2π)) · (b + w²/2)^−(a+½),
//
// a Student-t density with 2a degrees of freedom and scale √(b/a).
func StudentT(w, a, b float64) float64 {
	lg1, _ := math.Lgamma(a + 0.5)
	lg0, _ := math.Lgamma(a)
	return math.Exp(a*math.Log(b) + lg1 - lg0 - 0.5*math.Log(2*math.Pi) - (a+0.5)*math.Log(b+w*w/2))
}

// MarginalPrior draws the paper's Figure 1: the marginal prior of a weight
// under the hierarchical prior with hyperparameters a and b (StudentT),
// against the Laplace prior (λ/2) e^(−λ|w|) (16), normalised here, in two
// panels: the densities, and their logarithms, where the Student-t's
// polynomial tails stay above the Laplace prior's exponential ones. The
// paper uses a = b = 1. If lambda is 0 it is chosen so that the two
// densities are equal at w = 0. MarginalPrior returns an error if a or b
// is not positive and finite, or lambda is negative or not finite.
func MarginalPrior(a, b, lambda float64) (*Figure, error) {
	for _, v := range []struct {
		name string
		v    float64
	}{{"a", a}, {"b", b}, {"lambda", lambda}} {
		if err := finite(v.v, v.name); err != nil {
			return nil, err
		}
	}
	if !(a > 0) || !(b > 0) {
		return nil, fmt.Errorf("vrvmplot: a = %g, b = %g: want positive Gamma parameters", a, b)
	}
	if lambda < 0 {
		return nil, fmt.Errorf("vrvmplot: lambda = %g: want a positive rate (0: match the densities at 0)", lambda)
	}
	if lambda == 0 {
		lambda = 2 * StudentT(0, a, b)
	}
	wmax := 5 * math.Sqrt(b/a)
	wmax = math.Max(wmax, 8/lambda)
	const n = 401
	ws := span(-wmax, wmax, n)
	t, l := make(plotter.XYs, n), make(plotter.XYs, n)
	lt, ll := make(plotter.XYs, n), make(plotter.XYs, n)
	for i, w := range ws {
		pt := StudentT(w, a, b)
		pl := lambda / 2 * math.Exp(-lambda*math.Abs(w))
		t[i], l[i] = plotter.XY{X: w, Y: pt}, plotter.XY{X: w, Y: pl}
		lt[i], ll[i] = plotter.XY{X: w, Y: math.Log(pt)}, plotter.XY{X: w, Y: math.Log(pl)}
	}
	tLabel := fmt.Sprintf("hierarchical prior: Student-t (a = %g, b = %g)", a, b)
	lLabel := fmt.Sprintf("Laplace prior, λ = %.3g", lambda)
	panel := func(title, ylabel string, tt, lp plotter.XYs) (*plot.Plot, error) {
		p := newPlot(title, "weight w", ylabel)
		st, err := plotter.NewLine(tt)
		if err != nil {
			return nil, err
		}
		st.LineStyle = lineStyle(colBlack, vg.Points(1.5))
		sl, err := plotter.NewLine(lp)
		if err != nil {
			return nil, err
		}
		sl.LineStyle = dashed(colVermilion, vg.Points(1.5))
		sl.LineStyle.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
		p.Add(st, sl)
		p.Legend.Add(tLabel, st)
		p.Legend.Add(lLabel, sl)
		p.X.Min, p.X.Max = -wmax, wmax
		placeLegend(p, DefaultWidth, DefaultHeight*0.7, append(append(plotter.XYs(nil), tt...), lp...), true)
		return p, nil
	}
	top, err := panel("Marginal prior of a weight", "density p(w)", t, l)
	if err != nil {
		return nil, err
	}
	top.Y.Min = 0
	bottom, err := panel("The same on a logarithmic scale", "log density ln p(w)", lt, ll)
	if err != nil {
		return nil, err
	}
	return &Figure{Panels: []*plot.Plot{top, bottom}, Width: DefaultWidth, Height: 14 * vg.Centimeter}, nil
}
