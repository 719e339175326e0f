package vrvmplot_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// smallRegression is a quick 1-D fit for the error tests.
func smallRegression(t *testing.T) (*vrvm.Regressor, *datasets.Dataset) {
	t.Helper()
	d, err := datasets.Sinc(20, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, MaxIter: 50}
	if err := r.Fit(d.X, d.T); err != nil {
		t.Fatal(err)
	}
	return r, d
}

// smallClassifier is a quick 2-D fit for the error tests.
func smallClassifier(t *testing.T) (*vrvm.Classifier, *datasets.Dataset) {
	t.Helper()
	d, err := datasets.Ripley(40, 3)
	if err != nil {
		t.Fatal(err)
	}
	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 0.5}, MaxIter: 50}
	if err := c.Fit(d.X, d.T); err != nil {
		t.Fatal(err)
	}
	return c, d
}

// with returns a copy of x with element (i, j) set to v.
func with(x *mat.Dense, i, j int, v float64) *mat.Dense {
	y := mat.DenseCopyOf(x)
	y.Set(i, j, v)
	return y
}

// withT returns a copy of t with element i set to v.
func withT(t []float64, i int, v float64) []float64 {
	u := append([]float64(nil), t...)
	u[i] = v
	return u
}

// badCase is a call that must return an error, and no figure, without
// panicking; if is is not nil the error must match it.
type badCase struct {
	name string
	call func() (*vrvmplot.Figure, error)
	is   error
}

func runBad(t *testing.T, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			fig, err := c.call()
			if err == nil {
				t.Fatal("no error")
			}
			if fig != nil {
				t.Error("a figure with the error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q does not match %q", err, c.is)
			}
		})
	}
}

func TestRegressionFitBadInput(t *testing.T) {
	t.Parallel()
	r, d := smallRegression(t)
	other, err := datasets.Sinc(20, 0.1, 4)
	if err != nil {
		t.Fatal(err)
	}
	r2 := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 1}, MaxIter: 5}
	x2 := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	if err := r2.Fit(x2, []float64{0, 1, 1, 2}); err != nil {
		t.Fatal(err)
	}
	opt := vrvmplot.FitOptions{}
	runBad(t, []badCase{
		{"nil model", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(nil, d.X, d.T, opt) }, vrvm.ErrNotFitted},
		{"not fitted", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(&vrvm.Regressor{}, d.X, d.T, opt) }, vrvm.ErrNotFitted},
		{"nil x", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(r, nil, d.T, opt) }, plotter.ErrNoData},
		{"empty t", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(r, d.X, nil, opt) }, plotter.ErrNoData},
		{"NaN t", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, d.X, withT(d.T, 3, math.NaN()), opt)
		}, plotter.ErrNaN},
		{"Inf x", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, with(d.X, 2, 0, math.Inf(1)), d.T, opt)
		}, plotter.ErrInfinity},
		{"short t", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(r, d.X, d.T[:5], opt) }, nil},
		{"other data", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(r, other.X, other.T, opt) }, nil},
		{"2-D model", func() (*vrvmplot.Figure, error) { return vrvmplot.RegressionFit(r2, x2, []float64{0, 1, 1, 2}, opt) }, nil},
		{"2-D model, 1-D x", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r2, x2.Slice(0, 4, 0, 1).(*mat.Dense), []float64{0, 1, 1, 2}, opt)
		}, nil},
		{"one point", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, d.X, d.T, vrvmplot.FitOptions{Points: 1})
		}, nil},
		{"NaN Min", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, d.X, d.T, vrvmplot.FitOptions{Min: math.NaN()})
		}, plotter.ErrNaN},
		{"NaN true function", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, d.X, d.T, vrvmplot.FitOptions{True: func(float64) float64 { return math.NaN() }})
		}, plotter.ErrNaN},
	})
}

func TestWeightsBadInput(t *testing.T) {
	t.Parallel()
	r, d := smallRegression(t)
	other, err := datasets.Sinc(20, 0.1, 4)
	if err != nil {
		t.Fatal(err)
	}
	runBad(t, []badCase{
		{"nil model", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(nil, d.X) }, vrvm.ErrNotFitted},
		{"not fitted", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(&vrvm.Regressor{}, d.X) }, vrvm.ErrNotFitted},
		{"not fitted classifier", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(&vrvm.Classifier{}, d.X) }, vrvm.ErrNotFitted},
		{"nil x", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(r, nil) }, plotter.ErrNoData},
		{"empty x", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(r, &mat.Dense{}) }, plotter.ErrNoData},
		{"NaN x", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(r, with(d.X, 0, 0, math.NaN())) }, plotter.ErrNaN},
		{"other data", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(r, other.X) }, nil},
		{"histogram nil model", func() (*vrvmplot.Figure, error) { return vrvmplot.AlphaHistogram(nil, 0) }, vrvm.ErrNotFitted},
		{"nil *Regressor", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights((*vrvm.Regressor)(nil), d.X) }, vrvm.ErrNotFitted},
		{"histogram nil *Classifier", func() (*vrvmplot.Figure, error) { return vrvmplot.AlphaHistogram((*vrvm.Classifier)(nil), 0) }, vrvm.ErrNotFitted},
		{"histogram not fitted", func() (*vrvmplot.Figure, error) { return vrvmplot.AlphaHistogram(&vrvm.Classifier{}, 0) }, vrvm.ErrNotFitted},
		{"histogram negative bins", func() (*vrvmplot.Figure, error) { return vrvmplot.AlphaHistogram(r, -1) }, nil},
	})
}

func TestDecisionMapBadInput(t *testing.T) {
	t.Parallel()
	c, d := smallClassifier(t)
	labels := withT(d.T, 0, 2)
	runBad(t, []badCase{
		{"nil model", func() (*vrvmplot.Figure, error) { return vrvmplot.DecisionMap(nil, d.X, d.T, vrvmplot.MapOptions{}) }, vrvm.ErrNotFitted},
		{"not fitted", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(&vrvm.Classifier{}, d.X, d.T, vrvmplot.MapOptions{})
		}, vrvm.ErrNotFitted},
		{"no labels", func() (*vrvmplot.Figure, error) { return vrvmplot.DecisionMap(c, d.X, nil, vrvmplot.MapOptions{}) }, plotter.ErrNoData},
		{"label 2", func() (*vrvmplot.Figure, error) { return vrvmplot.DecisionMap(c, d.X, labels, vrvmplot.MapOptions{}) }, nil},
		{"1-D x", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, d.X.Slice(0, 40, 0, 1).(*mat.Dense), d.T, vrvmplot.MapOptions{})
		}, nil},
		{"Inf x", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, with(d.X, 5, 1, math.Inf(-1)), d.T, vrvmplot.MapOptions{})
		}, plotter.ErrInfinity},
		{"moved point", func() (*vrvmplot.Figure, error) {
			x := mat.DenseCopyOf(d.X)
			for n := range d.Len() {
				x.Set(n, 0, x.At(n, 0)+1e-3)
			}
			return vrvmplot.DecisionMap(c, x, d.T, vrvmplot.MapOptions{})
		}, nil},
		{"level 1", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, d.X, d.T, vrvmplot.MapOptions{Levels: []float64{0.5, 1}})
		}, nil},
		{"points -1", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, d.X, d.T, vrvmplot.MapOptions{Points: -1})
		}, nil},
		{"NaN bound", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, d.X, d.T, vrvmplot.MapOptions{YMax: math.NaN()})
		}, plotter.ErrNaN},
		{"NaN reference", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, d.X, d.T, vrvmplot.MapOptions{Reference: func(x1, x2 float64) float64 { return math.NaN() }})
		}, plotter.ErrNaN},
		{"xi not fitted", func() (*vrvmplot.Figure, error) { return vrvmplot.XiActivation(&vrvm.Classifier{}, d.X) }, vrvm.ErrNotFitted},
		{"xi nil", func() (*vrvmplot.Figure, error) { return vrvmplot.XiActivation(nil, d.X) }, vrvm.ErrNotFitted},
		{"xi short x", func() (*vrvmplot.Figure, error) { return vrvmplot.XiActivation(c, d.X.Slice(0, 10, 0, 2).(*mat.Dense)) }, nil},
		{"xi NaN x", func() (*vrvmplot.Figure, error) { return vrvmplot.XiActivation(c, with(d.X, 1, 1, math.NaN())) }, plotter.ErrNaN},
	})
}

func TestProbabilityGridBadInput(t *testing.T) {
	t.Parallel()
	c, _ := smallClassifier(t)
	for _, tc := range []struct {
		name   string
		c      *vrvm.Classifier
		xs, ys []float64
	}{
		{"not fitted", &vrvm.Classifier{}, []float64{0, 1}, []float64{0, 1}},
		{"nil", nil, []float64{0, 1}, []float64{0, 1}},
		{"empty", c, nil, []float64{0, 1}},
		{"one value", c, []float64{0}, []float64{0, 1}},
		{"decreasing", c, []float64{0, 1}, []float64{1, 0}},
		{"NaN", c, []float64{0, math.NaN()}, []float64{0, 1}},
	} {
		if g, err := vrvmplot.ProbabilityGrid(tc.c, tc.xs, tc.ys, false); err == nil || g != nil {
			t.Errorf("%s: got %v, %v; want an error", tc.name, g, err)
		}
	}
}

func TestOtherBadInput(t *testing.T) {
	t.Parallel()
	runBad(t, []badCase{
		{"trace empty", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace(nil) }, plotter.ErrNoData},
		{"trace NaN", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace([]float64{1, math.NaN()}) }, plotter.ErrNaN},
		{"trace Inf", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace([]float64{math.Inf(-1), 1}) }, plotter.ErrInfinity},
		{"xis empty", func() (*vrvmplot.Figure, error) { return vrvmplot.JaakkolaJordan(nil) }, plotter.ErrNoData},
		{"xis Inf", func() (*vrvmplot.Figure, error) { return vrvmplot.JaakkolaJordan([]float64{1, math.Inf(1)}) }, plotter.ErrInfinity},
		{"prior a = 0", func() (*vrvmplot.Figure, error) { return vrvmplot.MarginalPrior(0, 1, 0) }, nil},
		{"prior b < 0", func() (*vrvmplot.Figure, error) { return vrvmplot.MarginalPrior(1, -1, 0) }, nil},
		{"prior lambda < 0", func() (*vrvmplot.Figure, error) { return vrvmplot.MarginalPrior(1, 1, -1) }, nil},
		{"prior NaN", func() (*vrvmplot.Figure, error) { return vrvmplot.MarginalPrior(math.NaN(), 1, 0) }, plotter.ErrNaN},
	})
}

// TestEdgeCases draws figures of degenerate but valid input: they must
// render.
func TestEdgeCases(t *testing.T) {
	t.Parallel()
	r, d := smallRegression(t)
	c, dc := smallClassifier(t)
	for _, tc := range []struct {
		name string
		call func() (*vrvmplot.Figure, error)
	}{
		{"constant trace", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace([]float64{-3, -3, -3}) }},
		{"one-element trace", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace([]float64{-3}) }},
		{"decreasing trace", func() (*vrvmplot.Figure, error) { return vrvmplot.BoundTrace([]float64{-3, -2, -2.5, -1}) }},
		{"xi = 0", func() (*vrvmplot.Figure, error) { return vrvmplot.JaakkolaJordan([]float64{0, -3}) }},
		{"narrow range", func() (*vrvmplot.Figure, error) {
			return vrvmplot.RegressionFit(r, d.X, d.T, vrvmplot.FitOptions{Min: 0, Max: 1e-3, Points: 2})
		}},
		{"weights of a classifier", func() (*vrvmplot.Figure, error) { return vrvmplot.Weights(c, dc.X) }},
		{"histogram, one bin", func() (*vrvmplot.Figure, error) { return vrvmplot.AlphaHistogram(c, 1) }},
		{"plug-in, coarse grid", func() (*vrvmplot.Figure, error) {
			return vrvmplot.DecisionMap(c, dc.X, dc.T, vrvmplot.MapOptions{Plugin: true, Points: 2, Levels: []float64{}})
		}},
		{"xi", func() (*vrvmplot.Figure, error) { return vrvmplot.XiActivation(c, dc.X) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := tc.call()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fig.WriterTo("png"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
