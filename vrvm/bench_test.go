package vrvm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

var benchSizes = []int{100, 500, 1000, 2000}

// predictRMS returns the root mean squared error of r's predictive mean
// at the rows of x against t.
func predictRMS(tb testing.TB, r *Regressor, x mat.Matrix, t []float64) float64 {
	tb.Helper()
	m, _, err := r.Predict(x)
	if err != nil {
		tb.Fatal(err)
	}
	var se float64
	for i, v := range m {
		se += (v - t[i]) * (v - t[i])
	}
	return math.Sqrt(se / float64(len(m)))
}

// benchSinc returns n noisy sinc points on [−10, 10] from seed.
func benchSinc(n int, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	x := mat.NewDense(n, 1, nil)
	t := make([]float64, n)
	for i := range n {
		v := rnd.Float64()*20 - 10
		x.Set(i, 0, v)
		t[i] = math.Sin(v)/v + 0.1*rnd.NormFloat64()
	}
	return x, t
}

// sincGrid returns n equally spaced points of [−10, 10] as an n × 1 matrix.
func sincGrid(n int) *mat.Dense {
	xt := mat.NewDense(n, 1, nil)
	for i := range n {
		xt.Set(i, 0, -10+20*float64(i)/float64(n-1))
	}
	return xt
}

// sincRMS is the RMS deviation of the predictions m at the rows of xt from
// sin(x)/x.
func sincRMS(m []float64, xt *mat.Dense) float64 {
	var se float64
	for i, v := range m {
		u := xt.At(i, 0)
		f := 1.0
		if u != 0 {
			f = math.Sin(u) / u
		}
		se += (v - f) * (v - f)
	}
	return math.Sqrt(se / float64(len(m)))
}

// ripleyBenchMeans are the component means of Ripley's mixture, by class.
var ripleyBenchMeans = [2][2][2]float64{{{-0.7, 0.3}, {0.3, 0.3}}, {{-0.3, 0.7}, {0.4, 0.7}}}

// benchRipley draws n points of Ripley's two-class mixture (component
// variance 0.03), the classes alternating.
func benchRipley(n int, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	means := ripleyBenchMeans
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	sd := math.Sqrt(0.03)
	for i := range n {
		c := i % 2
		m := means[c][rnd.IntN(2)]
		x.Set(i, 0, m[0]+sd*rnd.NormFloat64())
		x.Set(i, 1, m[1]+sd*rnd.NormFloat64())
		t[i] = float64(c)
	}
	return x, t
}

// BenchmarkFit fits regression (sinc, Gaussian width 3) and classification
// (Ripley-style, width 0.5) at several sizes. "unpruned" runs a fixed 6
// iterations over all N+1 functions; "pruned" runs the default fit to its
// end. ms/iter is the time per iteration after the first, measured through
// the Monitor, so it excludes the one-off kernel and Gram matrices.
func BenchmarkFit(b *testing.B) {
	for _, task := range []string{"regression", "classification"} {
		for _, mode := range []string{"unpruned", "pruned"} {
			for _, n := range benchSizes {
				b.Run(task+"/"+mode+"/n="+strconv.Itoa(n), func(b *testing.B) {
					var iters int
					var perIter time.Duration
					for b.Loop() {
						iters, perIter = benchFitOnce(b, task, mode, n)
					}
					b.ReportMetric(float64(iters), "iters")
					b.ReportMetric(float64(perIter.Microseconds())/1000, "ms/iter")
				})
			}
		}
	}
}

func benchFitOnce(b *testing.B, task, mode string, n int) (int, time.Duration) {
	noPrune, maxIter := mode == "unpruned", 0
	if noPrune {
		maxIter = 6
	}
	var first, last time.Time
	var k int
	monitor := func(p Progress) bool {
		if p.Iteration == 1 {
			first = time.Now()
		}
		last, k = time.Now(), p.Iteration
		return false
	}
	if task == "regression" {
		x, t := benchSinc(n, 1)
		r := &Regressor{Kernel: Gaussian{Width: 3}, NoPrune: noPrune, MaxIter: maxIter, Monitor: monitor}
		if err := r.Fit(x, t); err != nil {
			b.Fatal(err)
		}
	} else {
		x, t := benchRipley(n, 1)
		c := &Classifier{Kernel: Gaussian{Width: 0.5}, NoPrune: noPrune, MaxIter: maxIter, Monitor: monitor}
		if err := c.Fit(x, t); err != nil {
			b.Fatal(err)
		}
	}
	if k < 2 {
		return k, 0
	}
	return k, last.Sub(first) / time.Duration(k-1)
}

// BenchmarkPredict predicts 1000 new points with a model fitted on n
// points without pruning (the largest predictive cost: N+1 functions).
func BenchmarkPredict(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("regression/n="+strconv.Itoa(n), func(b *testing.B) {
			x, t := benchSinc(n, 1)
			r := &Regressor{Kernel: Gaussian{Width: 3}, NoPrune: true, MaxIter: 2}
			if err := r.Fit(x, t); err != nil {
				b.Fatal(err)
			}
			xt, _ := benchSinc(1000, 2)
			for b.Loop() {
				if _, _, err := r.Predict(xt); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("classification/n="+strconv.Itoa(n), func(b *testing.B) {
			x, t := benchRipley(n, 1)
			c := &Classifier{Kernel: Gaussian{Width: 0.5}, NoPrune: true, MaxIter: 2}
			if err := c.Fit(x, t); err != nil {
				b.Fatal(err)
			}
			xt, _ := benchRipley(1000, 2)
			for b.Loop() {
				if _, err := c.ProbModerated(xt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
