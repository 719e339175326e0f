package vrvm

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// crawlTarget is a learnTarget with V(u) = −10(u − ln 2)² for a Gaussian
// width e^u, whose fits take 50 iterations within 0.8 of the maximum and
// crawl for 100,000 iterations further out, their traces rising linearly
// to V. It records every fit.
type crawlTarget struct {
	fits []crawlRecord
}

type crawlRecord struct {
	d         float64 // u − ln 2
	iters     int     // iterations run
	budget    bool    // an abandon test was given
	abandoned bool
}

type crawlFit struct {
	d, v float64
	n    int
	ab   bool
}

func (f *crawlFit) full() float64   { return f.v }
func (f *crawlFit) halted() bool    { return false }
func (f *crawlFit) abandoned() bool { return f.ab }
func (f *crawlFit) iters() int      { return f.n }
func (f *crawlFit) crowded() bool   { return false }
func (f *crawlFit) gradient(_ Learnable, g []float64) {
	g[0] = -20 * f.d
}

func (t *crawlTarget) check(Learnable) error { return nil }
func (t *crawlTarget) warmable() bool        { return false }
func (t *crawlTarget) unlimit()              {}

func (t *crawlTarget) fit(_ context.Context, k Learnable, _ learnFit, abandon func(Progress) bool) (learnFit, error) {
	d := k.LogParams()[0] - math.Ln2
	v := -10 * d * d
	n, drop := 50, 10.0
	if math.Abs(d) >= 0.8 {
		n, drop = 100000, 100
	}
	f := &crawlFit{d: d, v: v, n: n}
	for i := 1; i <= n; i++ {
		b := v - drop*(1-float64(i)/float64(n))
		if abandon != nil && abandon(Progress{Iteration: i, Bound: b}) {
			f.v, f.n, f.ab = b, i, true
			break
		}
	}
	t.fits = append(t.fits, crawlRecord{d: d, iters: f.n, budget: abandon != nil, abandoned: f.ab})
	return f, nil
}

// TestLearnBudget checks that kernel learning abandons a refit whose trace
// has not passed the best V after sequential.SecondBudget iterations of the longest
// finished fit, scores it by the bound reached, rejects its step, and
// still ends at the maximum of V.
func TestLearnBudget(t *testing.T) {
	t.Parallel()
	tg := &crawlTarget{}
	k0 := Gaussian{Width: 2 * math.Exp(0.6)}
	x := mat.NewDense(2, 1, []float64{0, 1})
	best, k, trace, err := learnWith(context.Background(), tg, x, k0, KernelLearning{MaxRefits: 8})
	if err != nil {
		t.Fatal(err)
	}
	if best.abandoned() {
		t.Error("the best fit is an abandoned one")
	}
	if d := k.LogParams()[0] - math.Ln2; math.Abs(d) > 0.15 {
		t.Errorf("learned ln width %.3f from the maximum, want within 0.15", d)
	}
	total, abandoned := 0, 0
	for i, f := range tg.fits {
		total += f.iters
		if i == 0 && f.budget {
			t.Error("the first fit had a budget")
		}
		if math.Abs(f.d) >= 0.8 {
			if !f.abandoned || f.iters != sequential.SecondBudget(50) {
				t.Errorf("fit %d (u − ln 2 = %.2f): abandoned %v after %d iterations, want after %d", i, f.d, f.abandoned, f.iters, sequential.SecondBudget(50))
			}
			abandoned++
			if want := -10*f.d*f.d - 100*(1-float64(f.iters)/100000); math.Abs(trace[i]-want) > 1e-9 {
				t.Errorf("trace[%d] = %g, want the bound reached, %g", i, trace[i], want)
			}
		} else if f.abandoned {
			t.Errorf("fit %d (u − ln 2 = %.2f) abandoned", i, f.d)
		}
	}
	if abandoned == 0 {
		t.Error("no step reached the crawling region: the test does not test the budget")
	}
	if total > 5000 {
		t.Errorf("%d iterations in all, want at most 5,000", total)
	}
}

// TestAbandonWhen checks that the user's Monitor is called first and that
// its stop is not an abandonment.
func TestAbandonWhen(t *testing.T) {
	t.Parallel()
	var calls []int
	s := settings{monitor: func(p Progress) bool { calls = append(calls, p.Iteration); return p.Iteration == 3 }}
	ab := s.abandonWhen(func(p Progress) bool { return p.Iteration >= 2 })
	if s.monitor(Progress{Iteration: 1}) || ab.done {
		t.Fatal("stopped at iteration 1")
	}
	if !s.monitor(Progress{Iteration: 2, Bound: -7}) || !ab.done || ab.bound != -7 {
		t.Fatalf("abandon at iteration 2: done %v, bound %g", ab.done, ab.bound)
	}
	s2 := settings{monitor: func(p Progress) bool { return true }}
	ab2 := s2.abandonWhen(func(Progress) bool { return true })
	if !s2.monitor(Progress{Iteration: 1}) || ab2.done {
		t.Error("the user's stop was recorded as an abandonment")
	}
	if len(calls) != 2 {
		t.Errorf("the user's Monitor was called %d times, want 2", len(calls))
	}
	s3 := settings{}
	if ab3 := s3.abandonWhen(nil); s3.monitor != nil || ab3.done {
		t.Error("a nil abandon test changed the Monitor")
	}
}
