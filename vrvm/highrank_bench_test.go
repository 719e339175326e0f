package vrvm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// highRankBinary returns n rows of six standard normal inputs with the
// label of sin(2x₀) + x₁x₂ + 0.5ε > 0: with a Gaussian kernel of width 2
// the kernel matrix's numerical rank is in the thousands, so that the
// Sequential solver keeps the explicit N × P design (factor.go).
func highRankBinary(n int, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 23))
	x := mat.NewDense(n, 6, nil)
	t := make([]float64, n)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rnd.NormFloat64()
		}
		if math.Sin(2*row[0])+row[1]*row[2]+0.5*rnd.NormFloat64() > 0 {
			t[i] = 1
		}
	}
	return x, t
}

// highRankClasses returns n rows of five standard normal inputs and one
// of five classes, the largest of (x₀, x₁, −x₀ − x₁, x₂x₃, 0) plus Gumbel
// noise of scale 0.7 (a Bayes error near 40 %).
func highRankClasses(n int, seed uint64) (*mat.Dense, []string) {
	rnd := rand.New(rand.NewPCG(seed, 29))
	x := mat.NewDense(n, 5, nil)
	y := make([]string, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rnd.NormFloat64()
		}
		score := []float64{r[0], r[1], -r[0] - r[1], r[2] * r[3], 0}
		best := 0
		for k := range score {
			score[k] -= 0.7 * math.Log(-math.Log(rnd.Float64()))
			if score[k] > score[best] {
				best = k
			}
		}
		y[i] = fmt.Sprint(best)
	}
	return x, y
}

// labelError returns the fraction of the rows of x whose label c predicts
// wrongly.
func labelError(b *testing.B, c interface {
	Predict(mat.Matrix) ([]float64, error)
}, x mat.Matrix, t []float64) float64 {
	lab, err := c.Predict(x)
	if err != nil {
		b.Fatal(err)
	}
	wrong := 0
	for i, v := range lab {
		if v != t[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(t))
}

// BenchmarkHighRank fits the classifiers on problems whose kernel matrix
// has a large numerical rank, where the solvers keep the explicit design
// (the binary problem with Gaussian width 2, five classes with width 3,
// above 5,000 rows on the default 5,000 centres): memory (B/op, and the
// process's peak resident memory so far, maxrss-MB, in increasing order
// of N), iterations, active functions and the error on 4,000 fresh rows.
// Measured on 2026-11-29: the binary fit at N = 12,000 took 3.74 GB
// before B W̃ was formed by blocks (explicitCross) and 1.25 GB after;
// MultiClassifier at 12,000 rows 3.0 GB with every row a centre, 1.4 GB
// with 5,000; the type-II RVM classifier (R9) at 6,000 rows 124 s (wall) for its
// first iteration with the full-rank factorisation.
func BenchmarkHighRank(b *testing.B) {
	xt, tt := highRankBinary(4000, 99)
	binary := func(name string, n int, fresh func() Estimator) {
		x, t := highRankBinary(n, 1)
		b.Run(name+"/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			var c Estimator
			for b.Loop() {
				c = fresh()
				if err := c.FitContext(b.Context(), x, t); err != nil {
					b.Fatal(err)
				}
			}
			e := labelError(b, c.(interface {
				Predict(mat.Matrix) ([]float64, error)
			}), xt, tt)
			b.ReportMetric(float64(c.Iterations()), "iterations")
			b.ReportMetric(float64(len(c.ActiveSet())), "active")
			b.ReportMetric(100*e, "error-%")
			b.ReportMetric(maxRSS(), "maxrss-MB")
		})
	}
	for _, n := range []int{1500, 3000, 6000} {
		binary("classifier", n, func() Estimator { return &Classifier{Kernel: Gaussian{Width: 2}} })
	}
	binary("rvm-classifier", 1500, func() Estimator { return &RVMClassifier{Kernel: Gaussian{Width: 2}} })
	mxt, myt := highRankClasses(4000, 99)
	for _, n := range []int{3000, 6000} {
		x, y := highRankClasses(n, 1)
		b.Run("multiclass/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			var c *MultiClassifier
			for b.Loop() {
				c = &MultiClassifier{Kernel: Gaussian{Width: 3}}
				if err := c.Fit(x, y); err != nil {
					b.Fatal(err)
				}
			}
			e, err := c.ErrorRate(mxt, myt)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(c.Iterations()), "iterations")
			b.ReportMetric(float64(len(c.ActiveSet())), "active")
			b.ReportMetric(100*e, "error-%")
			b.ReportMetric(maxRSS(), "maxrss-MB")
		})
	}
}
