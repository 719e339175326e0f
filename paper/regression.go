package paper

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// SincWidth is the Gaussian kernel width of Table 1, that of Tipping
// (2001) for the same problem.
const SincWidth = 3

// SincGridPoints is the number of equally spaced points of [−10, 10] at
// which Table 1 compares the predictive mean with sin(x)/x.
const SincGridPoints = 1001

// sincGrid returns the dense test grid and the true function on it.
func sincGrid() (*mat.Dense, []float64) {
	x := make([]float64, SincGridPoints)
	y := make([]float64, SincGridPoints)
	for i := range x {
		x[i] = -10 + 20*float64(i)/float64(SincGridPoints-1)
		y[i] = datasets.SincTrue(x[i])
	}
	return column(x), y
}

// Table1 reproduces Table 1: sinc regression, 25 data sets of N = 100
// points with noise standard deviation 0.1 (see the package documentation
// for the protocol).
func Table1(ctx context.Context, opt Options) (*Table, error) {
	start := time.Now()
	sets, err := datasets.SincSets(100)
	if err != nil {
		return nil, err
	}
	xg, yg := sincGrid()
	k := vrvm.Gaussian{Width: SincWidth}
	runs, err := runTable(ctx, opt, "table 1", "set", len(sets),
		func(r Run) string { return fmt.Sprintf("RMS %.4f, noise %.4f", r.Error, r.Noise) },
		func(ctx context.Context, model string, s int) (Run, error) {
			m, r, err := fitRegression(ctx, model, k, opt.MaxIter, sets[s].X, sets[s].T, xg)
			r.Error = rms(m, yg)
			return r, err
		})
	t := &Table{
		Number: 1, Title: "sinc regression, N = 100, noise σ = 0.1, 25 data sets",
		Setup: []string{
			"Data: the 25 fixed sets of sinc_N100_25sets.csv, x ~ U(−10, 10), t = sin(x)/x + N(0, 0.1²); no preprocessing.",
			fmt.Sprintf("Kernel: Gaussian exp(−‖x − x'‖²/r²), width r = %g for every set (Tipping 2001); the paper chose the width by 5-fold cross-validation (see the model-selection study).", float64(SincWidth)),
			fmt.Sprintf("Error: RMS deviation of the predictive mean from sin(x)/x on %d equally spaced points of [−10, 10]; noise estimate 1/√⟨τ⟩ (VRVM), 1/√β (RVM); means over the 25 sets.", SincGridPoints),
		},
		ErrorName: "RMS error", Regression: true,
		errFormat: "%.4f", noiseFormat: "%.4f",
	}
	return t.finish(start, opt, runs, err, [3]Score{{0.0519, 28.0, nan}, {0.0494, 6.9, 0.0943}, {0.0494, 7.4, 0.0950}}, func(v Score) []Target {
		return []Target{
			{What: "VRVM RMS error", Value: v.Error, Lo: math.Inf(-1), Hi: 0.050, Format: "%.4f"},
			{What: "VRVM kernels", Value: v.Kernels, Lo: math.Inf(-1), Hi: 10, Format: "%.1f"},
			{What: "VRVM noise estimate", Value: v.Noise, Lo: 0.09, Hi: 0.11, Format: "%.4f"},
		}
	})
}

// BostonDegree is the degree of the polynomial kernel of Table 2.
const BostonDegree = 3

// Table2 reproduces Table 2: the Boston housing data, 10 random splits
// into 481 training and 25 test rows, with a third-order polynomial kernel
// (see the package documentation for the protocol).
func Table2(ctx context.Context, opt Options) (*Table, error) {
	start := time.Now()
	splits, err := datasets.BostonSplits()
	if err != nil {
		return nil, err
	}
	type split struct {
		x, xt  *mat.Dense
		t, tt  []float64
		tm, ts float64
	}
	data := make([]split, len(splits))
	var d int
	for s := range splits {
		train, test, err := datasets.BostonSplit(s)
		if err != nil {
			return nil, err
		}
		sc := newScaler(train.X)
		ty := newScaler(column(train.T))
		data[s] = split{x: sc.apply(train.X), xt: sc.apply(test.X), t: ty.apply(column(train.T)).RawMatrix().Data,
			tt: test.T, tm: ty.mean[0], ts: ty.sd[0]}
		d = train.Dim()
	}
	k := vrvm.Polynomial{Degree: BostonDegree, Scale: 1 / float64(d)}
	runs, err := runTable(ctx, opt, "table 2", "split", len(splits),
		func(r Run) string { return fmt.Sprintf("test MSE %.2f, noise %.2f", r.Error, r.Noise) },
		func(ctx context.Context, model string, s int) (Run, error) {
			sp := data[s]
			m, r, err := fitRegression(ctx, model, k, opt.MaxIter, sp.x, sp.t, sp.xt)
			if err != nil {
				return r, err
			}
			for i := range m {
				m[i] = m[i]*sp.ts + sp.tm
			}
			r.Error = mse(m, sp.tt)
			r.Noise *= sp.ts
			return r, nil
		})
	t := &Table{
		Number: 2, Title: "Boston housing, 10 splits into 481 training and 25 test rows",
		Setup: []string{
			"Data: boston.csv (506 rows, 13 inputs, target MEDV in $1000s), the 10 fixed test sets of boston_splits.csv.",
			"Preprocessing: each input and the target standardised to mean 0 and standard deviation 1 with the statistics of the 481 training rows only; predictions and noise estimates mapped back to MEDV units.",
			fmt.Sprintf("Kernel: third-order polynomial (x·x'/d + 1)³ with d = %d on the standardised inputs, vrvm.Polynomial{Degree: 3, Scale: 1/%d}.", d, d),
			"Error: mean squared error of the predictive mean on the 25 test rows; noise estimate in MEDV units; means over the 10 splits.",
		},
		ErrorName: "test MSE", Regression: true,
		errFormat: "%.2f", noiseFormat: "%.2f",
	}
	return t.finish(start, opt, runs, err, [3]Score{{10.29, 235.2, nan}, {10.17, 41.1, 2.49}, {10.36, 40.9, 2.49}}, func(v Score) []Target {
		return []Target{
			{What: "VRVM test MSE", Value: v.Error, Lo: math.Inf(-1), Hi: 11.0, Format: "%.2f"},
			{What: "VRVM kernels", Value: v.Kernels, Lo: math.Inf(-1), Hi: 60, Format: "%.1f"},
		}
	})
}
