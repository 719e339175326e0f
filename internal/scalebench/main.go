// Command scalebench measures the variational RVM at large N: regression
// on the sinc problem and classification on Ripley's problem, with either
// solver. Run it under /usr/bin/time -v for the peak memory:
//
//	go build -o /tmp/scalebench ./internal/scalebench
//	/usr/bin/time -v /tmp/scalebench -task regression -n 20000
//
// It prints one line per fit: the size, the solver, the wall-clock and CPU
// time of Fit, its iterations and status, the number of active functions
// and relevance vectors, and the RMS error against the true function on
// 1000 grid points (regression), the RMS error against the noise-free
// Friedman #1 function on 5,000 fresh points (-task friedman, d = 10, noise
// sd 1, width 1 by default), or the error rate on 10,000 fresh points
// (classification).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func main() {
	task := flag.String("task", "regression", "regression or classification")
	n := flag.Int("n", 4000, "training points")
	noise := flag.Float64("noise", 0.1, "regression: noise standard deviation")
	width := flag.Float64("width", 0, "Gaussian kernel width (0: 3 for regression, 0.5 for classification)")
	seed := flag.Uint64("seed", 1, "data seed")
	paper := flag.Bool("paper", false, "use the paper's schedule instead of the default (sequential) solver")
	noPrune := flag.Bool("no-prune", false, "keep all basis functions")
	maxIter := flag.Int("max-iter", 0, "iteration limit (0: the default)")
	model := flag.String("model", "vrvm", "vrvm, rvm (type-II RVM, sequential algorithm) or rvm-reestimate (type-II RVM, Tipping 2001)")
	quiet := flag.Bool("quiet", false, "no progress lines")
	centres := flag.Int("centres", 0, "number of kernel centres (Regressor/Classifier Centres; 0: the default)")
	pruneAlpha := flag.Float64("prune-alpha", 0, "pruning threshold (Regressor/Classifier PruneAlpha; 0: the default)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			runtime.GC()
			f, err := os.Create(*memprofile)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				log.Fatal(err)
			}
		}()
	}
	var solver vrvm.Method = vrvm.Sequential{}
	if *paper {
		solver = vrvm.PaperSchedule{}
	}
	monitor := func(p vrvm.Progress) bool {
		if !*quiet && p.Iteration%100 == 0 {
			fmt.Fprintf(os.Stderr, "iteration %d: bound %.6g, %d active\n", p.Iteration, p.Bound, p.Active)
		}
		return false
	}
	w := *width
	var m vrvm.Estimator
	var d *datasets.Dataset
	var err error
	switch *task {
	case "regression":
		if w == 0 {
			w = 3
		}
		d, err = datasets.Sinc(*n, *noise, *seed)
		m = &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: w}, Method: solver, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor, Centres: *centres, PruneAlpha: *pruneAlpha}
	case "friedman":
		if w == 0 {
			w = 1
		}
		d, err = datasets.Friedman1(*n, 10, 1, *seed)
		m = &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: w}, Method: solver, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor, Centres: *centres, PruneAlpha: *pruneAlpha}
	case "classification":
		if w == 0 {
			w = 0.5
		}
		d, err = datasets.Ripley(*n, *seed)
		m = &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: w}, Method: solver, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor, Centres: *centres, PruneAlpha: *pruneAlpha}
	default:
		log.Fatalf("unknown task %q", *task)
	}
	if err != nil {
		log.Fatal(err)
	}
	label := "solver=" + solver.String()
	switch *model {
	case "vrvm":
	case "rvm", "rvm-reestimate":
		var rs vrvm.Method = vrvm.Sequential{}
		if *model == "rvm-reestimate" {
			rs = vrvm.PaperSchedule{}
		}
		if *task == "classification" {
			m = &vrvm.RVMClassifier{Kernel: vrvm.Gaussian{Width: w}, Method: rs, MaxIter: *maxIter, Monitor: monitor}
		} else {
			m = &vrvm.RVMRegressor{Kernel: vrvm.Gaussian{Width: w}, Method: rs, MaxIter: *maxIter, Monitor: monitor}
		}
		label = "model=rvm solver=" + rs.String()
	default:
		log.Fatalf("unknown model %q", *model)
	}
	wall, cpu, err := timed(func() error { return m.FitContext(context.Background(), d.X, d.T) })
	if err != nil {
		log.Fatal(err)
	}
	fit := fmt.Sprintf("%s: wall %.2fs cpu %.2fs, %d iterations (%v), %d active, %d relevance vectors",
		label, wall.Seconds(), cpu.Seconds(), m.Iterations(), m.Status(), len(m.ActiveSet()), len(m.RelevanceVectors()))
	switch *task {
	case "friedman":
		fmt.Printf("friedman n=%d width=%g %s, noise sd %.4f, bound %.6g, RMSE %.4f\n",
			*n, w, fit, m.NoiseSD(), m.LowerBound(), friedmanRMSE(m, *seed+1000))
		return
	case "regression":
		fmt.Printf("regression n=%d width=%g noise=%g %s, noise sd %.4f, bound %.6g, RMS %.5f\n",
			*n, w, *noise, fit, m.NoiseSD(), m.LowerBound(), sincRMS(m))
		return
	}
	wrong, bayes, total := ripleyErrors(m, *seed+1000)
	fmt.Printf("classification n=%d width=%g %s, bound %.6g, test error %.2f%% on %d (Bayes rule %.2f%%)\n",
		*n, w, fit, m.LowerBound(), 100*float64(wrong)/float64(total), total, 100*float64(bayes)/float64(total))
}

// sincRMS returns the RMS deviation of the predictive mean of m from
// sin(x)/x on 1000 points of [−10, 10].
func sincRMS(m vrvm.Estimator) float64 {
	const grid = 1000
	xt := mat.NewDense(grid, 1, nil)
	for i := range grid {
		xt.Set(i, 0, -10+20*float64(i)/(grid-1))
	}
	mean, _, err := m.Latent(xt)
	if err != nil {
		log.Fatal(err)
	}
	var se float64
	for i, v := range mean {
		e := v - datasets.SincTrue(xt.At(i, 0))
		se += e * e
	}
	return math.Sqrt(se / grid)
}

// friedmanRMSE returns the RMS deviation of the predictive mean of m from
// the noise-free Friedman #1 function on 5,000 fresh points drawn with seed.
func friedmanRMSE(m vrvm.Estimator, seed uint64) float64 {
	test, err := datasets.Friedman1(5000, 10, 0, seed)
	if err != nil {
		log.Fatal(err)
	}
	mean, _, err := m.Latent(test.X)
	if err != nil {
		log.Fatal(err)
	}
	var se float64
	for i, v := range mean {
		e := v - test.T[i]
		se += e * e
	}
	return math.Sqrt(se / float64(len(mean)))
}

// ripleyErrors returns the errors of the classifier m and of the Bayes rule
// on 10,000 fresh points of Ripley's problem drawn with seed.
func ripleyErrors(m vrvm.Estimator, seed uint64) (wrong, bayes, total int) {
	test, err := datasets.Ripley(10000, seed)
	if err != nil {
		log.Fatal(err)
	}
	act, _, err := m.Latent(test.X)
	if err != nil {
		log.Fatal(err)
	}
	for i, a := range act {
		if (a > 0) != (test.T[i] == 1) {
			wrong++
		}
		xs, ys := test.X.At(i, 0), test.X.At(i, 1)
		if (datasets.RipleyDensity(xs, ys, 1) > datasets.RipleyDensity(xs, ys, 0)) != (test.T[i] == 1) {
			bayes++
		}
	}
	return wrong, bayes, len(act)
}

// timed runs f and returns its wall-clock and CPU time.
func timed(f func() error) (wall, cpu time.Duration, err error) {
	c0 := cpuTime()
	t0 := time.Now()
	err = f()
	return time.Since(t0), cpuTime() - c0, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
