// Command solvercmp compares two solvers of the variational RVM on the
// paper's 47 problems (the 25 sinc sets of Table 1, the 10 Boston splits of
// Table 2, the 10 Ripley subsets of Table 3, and Pima at widths 3 and 6):
// for each it fits the same model with the default solver and with the
// paper's schedule run to convergence (MaxIter 10⁶), and prints both
// full-model bounds, their difference, the relevance vectors, statuses
// and CPU-bound fit times, then the number of problems on which the
// default solver ends at least 0.1 nats below the schedule.
//
//	go run ./internal/solvercmp [-only sinc|boston|ripley|pima] [-ref file]
//
// With -ref, the schedule's results are read from the file if it exists
// (the schedule's fits take most of the time and do not change while the
// default solver is being worked on), and written to it otherwise.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

type problem struct {
	name     string
	x        *mat.Dense
	t        []float64
	k        vrvm.Kernel
	classify bool
}

func standardise(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for j := range d {
		col := mat.Col(nil, j, x)
		m, s := stat.MeanStdDev(col, nil)
		for i, v := range col {
			out.Set(i, j, (v-m)/s)
		}
	}
	return out
}

func problems(only string) ([]problem, error) {
	var ps []problem
	if only == "" || only == "sinc" {
		sets, err := datasets.SincSets(100)
		if err != nil {
			return nil, err
		}
		for i, s := range sets {
			ps = append(ps, problem{fmt.Sprintf("sinc %d", i+1), s.X, s.T, vrvm.Gaussian{Width: 3}, false})
		}
	}
	if only == "" || only == "boston" {
		splits, err := datasets.BostonSplits()
		if err != nil {
			return nil, err
		}
		for s := range splits {
			train, _, err := datasets.BostonSplit(s)
			if err != nil {
				return nil, err
			}
			_, d := train.X.Dims()
			m, sd := stat.MeanStdDev(train.T, nil)
			t := make([]float64, len(train.T))
			for i, v := range train.T {
				t[i] = (v - m) / sd
			}
			ps = append(ps, problem{fmt.Sprintf("boston %d", s+1), standardise(train.X), t, vrvm.Polynomial{Degree: 3, Scale: 1 / float64(d)}, false})
		}
	}
	if only == "" || only == "ripley" {
		for s := range datasets.NumRipleySubsets {
			sub, err := datasets.RipleySubset(s)
			if err != nil {
				return nil, err
			}
			ps = append(ps, problem{fmt.Sprintf("ripley %d", s+1), sub.X, sub.T, vrvm.Gaussian{Width: 0.5}, true})
		}
	}
	if only == "" || only == "pima" {
		train, _, err := datasets.LoadPima()
		if err != nil {
			return nil, err
		}
		for _, w := range []float64{3, 6} {
			ps = append(ps, problem{fmt.Sprintf("pima width %g", w), standardise(train.X), train.T, vrvm.Gaussian{Width: w}, true})
		}
	}
	return ps, nil
}

type result struct {
	Full, Noise  float64
	RV, Iters    int
	Status       vrvm.Status
	Elapsed      time.Duration
	err          error
	nonMonotone  int
	worstDecline float64
}

func fit(p problem, solver vrvm.Method, maxIter int) result {
	var r result
	prev := math.Inf(-1)
	mon := func(pr vrvm.Progress) bool {
		if pr.Bound < prev {
			r.nonMonotone++
			r.worstDecline = math.Max(r.worstDecline, prev-pr.Bound)
		}
		prev = pr.Bound
		return false
	}
	var e vrvm.Estimator
	if p.classify {
		e = &vrvm.Classifier{Kernel: p.k, Method: solver, MaxIter: maxIter, Monitor: mon}
	} else {
		e = &vrvm.Regressor{Kernel: p.k, Method: solver, MaxIter: maxIter, Monitor: mon}
	}
	start := time.Now()
	r.err = e.FitContext(context.Background(), p.x, p.t)
	r.Elapsed = time.Since(start)
	if r.err != nil {
		return r
	}
	r.Full, r.Noise, r.RV, r.Iters, r.Status = e.FullModelBound(), e.NoiseSD(), len(e.RelevanceVectors()), e.Iterations(), e.Status()
	return r
}

func main() {
	only := flag.String("only", "", "sinc, boston, ripley or pima: one family only")
	workers := flag.Int("workers", 2, "fits run at once")
	ref := flag.String("ref", "", "file caching the schedule's results (read if it exists, else written)")
	flag.Parse()
	ps, err := problems(*only)
	if err != nil {
		log.Fatal(err)
	}
	seq := make([]result, len(ps))
	sch := make([]result, len(ps))
	cached := false
	if *ref != "" {
		if b, err := os.ReadFile(*ref); err == nil {
			if err := json.Unmarshal(b, &sch); err != nil || len(sch) != len(ps) {
				log.Fatalf("%s: not the schedule's results for these %d problems (%v)", *ref, len(ps), err)
			}
			cached = true
		}
	}
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				seq[i] = fit(ps[i], vrvm.Sequential{}, 0)
				if !cached {
					sch[i] = fit(ps[i], vrvm.PaperSchedule{}, 1000000)
				}
			}
		}()
	}
	for i := range ps {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if *ref != "" && !cached {
		b, err := json.Marshal(sch)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*ref, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%-16s %14s %14s %9s %7s %7s %9s %9s %s\n", "problem", "default L", "schedule L", "diff", "RVs", "RVs", "time", "time", "default: status, bound declines")
	below, worse := 0, 0.0
	var tSeq, tSch time.Duration
	for i, p := range ps {
		a, b := seq[i], sch[i]
		if a.err != nil || b.err != nil {
			fmt.Fprintf(os.Stdout, "%-16s errors: %v / %v\n", p.name, a.err, b.err)
			continue
		}
		d := a.Full - b.Full
		if d < -0.1 {
			below++
			worse = math.Min(worse, d)
		}
		tSeq += a.Elapsed
		tSch += b.Elapsed
		fmt.Printf("%-16s %14.4f %14.4f %9.4f %7d %7d %8.2fs %8.2fs %v (%d iters), %d declines (worst %.3g); schedule %v (%d iters)\n",
			p.name, a.Full, b.Full, d, a.RV, b.RV, a.Elapsed.Seconds(), b.Elapsed.Seconds(), a.Status, a.Iters, a.nonMonotone, a.worstDecline, b.Status, b.Iters)
	}
	fmt.Printf("default below the schedule by more than 0.1 nats on %d of %d problems (worst %.3f); total time %.1fs against %.1fs\n", below, len(ps), worse, tSeq.Seconds(), tSch.Seconds())
}
