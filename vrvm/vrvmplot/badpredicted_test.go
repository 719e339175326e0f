package vrvmplot_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// The estimators satisfy the interfaces of PredictedVsTrue and Reliability.
var (
	_ vrvmplot.GaussianPredictor = (*vrvm.Regressor)(nil)
	_ vrvmplot.GaussianPredictor = (*vrvm.RVMRegressor)(nil)
	_ vrvmplot.BinaryClassifier  = (*vrvm.Classifier)(nil)
	_ vrvmplot.BinaryClassifier  = (*vrvm.RVMClassifier)(nil)
)

// fixedPredictor predicts the given means and variances, whatever x.
type fixedPredictor struct{ mean, variance []float64 }

func (f fixedPredictor) Predict(mat.Matrix) ([]float64, []float64, error) {
	return f.mean, f.variance, nil
}

// fixedProbs predicts the given probabilities, whatever x.
type fixedProbs []float64

func (f fixedProbs) ProbPlugin(mat.Matrix) ([]float64, error)    { return f, nil }
func (f fixedProbs) ProbModerated(mat.Matrix) ([]float64, error) { return f, nil }

func TestPredictedVsTrueBadInput(t *testing.T) {
	t.Parallel()
	r, d := smallRegression(t)
	n := d.Len()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	runBad(t, []badCase{
		{"not fitted", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(&vrvm.Regressor{}, d.X, d.T) }, vrvm.ErrNotFitted},
		{"no targets", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(r, d.X, nil) }, plotter.ErrNoData},
		{"no inputs", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(r, nil, d.T) }, plotter.ErrNoData},
		{"rows", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(r, d.X, d.T[1:]) }, nil},
		{"NaN target", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(r, d.X, withT(d.T, 2, math.NaN())) }, plotter.ErrNaN},
		{"Inf input", func() (*vrvmplot.Figure, error) {
			return vrvmplot.PredictedVsTrue(r, with(d.X, 1, 0, math.Inf(1)), d.T)
		}, plotter.ErrInfinity},
		{"wrong dimension", func() (*vrvmplot.Figure, error) { return vrvmplot.PredictedVsTrue(r, mat.NewDense(n, 2, nil), d.T) }, nil},
		{"NaN mean", func() (*vrvmplot.Figure, error) {
			return vrvmplot.PredictedVsTrue(fixedPredictor{withT(ones, 3, math.NaN()), ones}, d.X, d.T)
		}, plotter.ErrNaN},
		{"negative variance", func() (*vrvmplot.Figure, error) {
			return vrvmplot.PredictedVsTrue(fixedPredictor{ones, withT(ones, 3, -1)}, d.X, d.T)
		}, nil},
		{"short prediction", func() (*vrvmplot.Figure, error) {
			return vrvmplot.PredictedVsTrue(fixedPredictor{ones[1:], ones[1:]}, d.X, d.T)
		}, nil},
	})
}

func TestReliabilityBadInput(t *testing.T) {
	t.Parallel()
	c, d := smallClassifier(t)
	n := d.Len()
	half := make(fixedProbs, n)
	for i := range half {
		half[i] = 0.5
	}
	runBad(t, []badCase{
		{"not fitted", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(&vrvm.Classifier{}, d.X, d.T, vrvmplot.ReliabilityOptions{})
		}, vrvm.ErrNotFitted},
		{"no labels", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, d.X, nil, vrvmplot.ReliabilityOptions{})
		}, plotter.ErrNoData},
		{"label 2", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, d.X, withT(d.T, 0, 2), vrvmplot.ReliabilityOptions{})
		}, nil},
		{"NaN label", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, d.X, withT(d.T, 0, math.NaN()), vrvmplot.ReliabilityOptions{})
		}, plotter.ErrNaN},
		{"NaN input", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, with(d.X, 0, 1, math.NaN()), d.T, vrvmplot.ReliabilityOptions{})
		}, plotter.ErrNaN},
		{"rows", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, d.X, d.T[1:], vrvmplot.ReliabilityOptions{})
		}, nil},
		{"negative bins", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(c, d.X, d.T, vrvmplot.ReliabilityOptions{Bins: -1})
		}, nil},
		{"probability above 1", func() (*vrvmplot.Figure, error) {
			p := append(fixedProbs(nil), half...)
			p[1] = 1.5
			return vrvmplot.Reliability(p, d.X, d.T, vrvmplot.ReliabilityOptions{})
		}, nil},
		{"short prediction", func() (*vrvmplot.Figure, error) {
			return vrvmplot.Reliability(half[1:], d.X, d.T, vrvmplot.ReliabilityOptions{})
		}, nil},
	})
}

// TestReliabilityCounts checks the binning on probabilities given by hand:
// the figure draws, and a classifier whose probabilities match the labels'
// frequencies is drawn on the diagonal (its points' errors are zero).
func TestReliabilityCounts(t *testing.T) {
	t.Parallel()
	// Bin [0.2, 0.3): p = 0.25 for four rows, one labelled 1; bin
	// [0.7, 0.8): p = 0.75 for four rows, three labelled 1; p = 1 falls
	// in the last bin.
	p := fixedProbs{0.25, 0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.75, 1}
	lab := []float64{1, 0, 0, 0, 1, 1, 0, 1, 1}
	x := mat.NewDense(len(lab), 1, nil)
	fig, err := vrvmplot.Reliability(p, x, lab, vrvmplot.ReliabilityOptions{Plugin: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fig.Panels[0].Title.Text, "Reliability (plug-in P): ECE 0.000, Brier score 0.167"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if fig.PNG() == nil {
		t.Error("the figure does not draw")
	}
	// Miscalibrated by hand: the labels of the two bins swapped and the row
	// at p = 1 labelled 0. ECE = (4·|0.75 − 0.25| + 4·|0.25 − 0.75| +
	// 1·|0 − 1|)/9 = 5/9; Brier = (2·(3·0.75² + 0.25²) + 1)/9 = 0.5.
	fig, err = vrvmplot.Reliability(p, x, []float64{1, 1, 0, 1, 0, 0, 1, 0, 0}, vrvmplot.ReliabilityOptions{Plugin: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fig.Panels[0].Title.Text, "Reliability (plug-in P): ECE 0.556, Brier score 0.500"; got != want {
		t.Errorf("miscalibrated: title %q, want %q", got, want)
	}
	// Two bins of [0, 1]: the rows at 0.25 in the first, the rest in the
	// second: ECE = (4·|0.75 − 0.25| + 5·|0.2 − 0.8|)/9 = 5/9 again.
	fig, err = vrvmplot.Reliability(p, x, []float64{1, 1, 0, 1, 0, 0, 1, 0, 0}, vrvmplot.ReliabilityOptions{Plugin: true, Bins: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fig.Panels[0].Title.Text, "Reliability (plug-in P): ECE 0.556, Brier score 0.500"; got != want {
		t.Errorf("two bins: title %q, want %q", got, want)
	}
	for _, bins := range []int{1, 3, 1000} {
		if _, err := vrvmplot.Reliability(p, x, lab, vrvmplot.ReliabilityOptions{Bins: bins}); err != nil {
			t.Errorf("%d bins: %v", bins, err)
		}
	}
	// PredictedVsTrue states the share of targets within ±2σ.
	fp := fixedPredictor{mean: []float64{0, 0, 0, 0}, variance: []float64{1, 1, 1, 1}}
	fig, err = vrvmplot.PredictedVsTrue(fp, mat.NewDense(4, 1, nil), []float64{0, 1.5, -2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fig.Panels[0].Title.Text, "Predicted against true: RMSE 1.95, 3 of 4 within ±2σ"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if _, err := vrvmplot.PredictedVsTrue(fixedPredictor{[]float64{1}, []float64{0}}, mat.NewDense(1, 1, nil), []float64{1}); err != nil {
		t.Errorf("one exact prediction: %v", err)
	}
}
