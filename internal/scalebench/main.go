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
// 1000 grid points (regression) or the error rate on 10,000 fresh points
// (classification).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
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
	model := flag.String("model", "vrvm", "vrvm, rvm (type-II ML RVM, sequential algorithm) or rvm-reestimate (the RVM by Tipping 2001's re-estimation)")
	noPrune := flag.Bool("no-prune", false, "keep all basis functions")
	maxIter := flag.Int("max-iter", 0, "iteration limit (0: the default)")
	quiet := flag.Bool("quiet", false, "no progress lines")
	flag.Parse()
	solver := vrvm.Sequential
	if *paper {
		solver = vrvm.PaperSchedule
	}
	monitor := func(p vrvm.Progress) bool {
		if !*quiet && p.Iteration%100 == 0 {
			fmt.Fprintf(os.Stderr, "iteration %d: bound %.6g, %d active\n", p.Iteration, p.Bound, p.Active)
		}
		return false
	}
	switch *task {
	case "regression":
		w := *width
		if w == 0 {
			w = 3
		}
		d, err := datasets.Sinc(*n, *noise, *seed)
		if err != nil {
			log.Fatal(err)
		}
		var r vrvm.Estimator
		label := "solver=" + solver.String()
		switch *model {
		case "vrvm":
			r = &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: w}, Solver: solver, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor}
		case "rvm", "rvm-reestimate":
			rs := vrvm.RVMSequential
			if *model == "rvm-reestimate" {
				rs = vrvm.RVMReestimate
			}
			r = &vrvm.RVMRegressor{Kernel: vrvm.Gaussian{Width: w}, Solver: rs, MaxIter: *maxIter, Monitor: monitor}
			label = "model=rvm solver=" + rs.String()
		default:
			log.Fatalf("unknown model %q", *model)
		}
		wall, cpu, err := timed(func() error { return r.FitContext(context.Background(), d.X, d.T) })
		if err != nil {
			log.Fatal(err)
		}
		const grid = 1000
		xt := mat.NewDense(grid, 1, nil)
		for i := range grid {
			xt.Set(i, 0, -10+20*float64(i)/(grid-1))
		}
		mean, _, err := r.Latent(xt)
		if err != nil {
			log.Fatal(err)
		}
		var se float64
		for i, m := range mean {
			e := m - datasets.SincTrue(xt.At(i, 0))
			se += e * e
		}
		fmt.Printf("regression n=%d width=%g noise=%g %s: wall %.2fs cpu %.2fs, %d iterations (%v), %d active, %d relevance vectors, noise sd %.4f, bound %.6g, RMS %.5f\n",
			*n, w, *noise, label, wall.Seconds(), cpu.Seconds(), r.Iterations(), r.Status(), len(r.ActiveSet()), len(r.RelevanceVectors()), r.NoiseSD(), r.LowerBound(), math.Sqrt(se/grid))
	case "classification":
		w := *width
		if w == 0 {
			w = 0.5
		}
		d, err := datasets.Ripley(*n, *seed)
		if err != nil {
			log.Fatal(err)
		}
		var c vrvm.Estimator
		label := "solver=" + solver.String()
		switch *model {
		case "vrvm":
			c = &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: w}, Solver: solver, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor}
		case "rvm", "rvm-reestimate":
			rs := vrvm.RVMSequential
			if *model == "rvm-reestimate" {
				rs = vrvm.RVMReestimate
			}
			c = &vrvm.RVMClassifier{Kernel: vrvm.Gaussian{Width: w}, Solver: rs, MaxIter: *maxIter, Monitor: monitor}
			label = "model=rvm solver=" + rs.String()
		default:
			log.Fatalf("unknown model %q", *model)
		}
		wall, cpu, err := timed(func() error { return c.FitContext(context.Background(), d.X, d.T) })
		if err != nil {
			log.Fatal(err)
		}
		test, err := datasets.Ripley(10000, *seed+1000)
		if err != nil {
			log.Fatal(err)
		}
		act, _, err := c.Latent(test.X)
		if err != nil {
			log.Fatal(err)
		}
		wrong, bayes := 0, 0
		for i, a := range act {
			if (a > 0) != (test.T[i] == 1) {
				wrong++
			}
			xs, ys := test.X.At(i, 0), test.X.At(i, 1)
			b := 0.0
			if datasets.RipleyDensity(xs, ys, 1) > datasets.RipleyDensity(xs, ys, 0) {
				b = 1
			}
			if b != test.T[i] {
				bayes++
			}
		}
		fmt.Printf("classification n=%d width=%g %s: wall %.2fs cpu %.2fs, %d iterations (%v), %d active, %d relevance vectors, bound %.6g, test error %.2f%% on %d (Bayes rule %.2f%%)\n",
			*n, w, label, wall.Seconds(), cpu.Seconds(), c.Iterations(), c.Status(), len(c.ActiveSet()), len(c.RelevanceVectors()), c.LowerBound(), 100*float64(wrong)/float64(len(act)), len(act), 100*float64(bayes)/float64(len(act)))
	default:
		log.Fatalf("unknown task %q", *task)
	}
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
