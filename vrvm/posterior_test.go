package vrvm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// randomPrecision returns a random symmetric positive definite n × n matrix.
func randomPrecision(n int, seed uint64) *mat.SymDense {
	rnd := rand.New(rand.NewPCG(seed, 3))
	g := mat.NewDense(n+5, n, nil)
	for i := range n + 5 {
		for j := range n {
			g.Set(i, j, rnd.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, g.T())
	for i := range n {
		a.SetSym(i, i, a.At(i, i)+0.1)
	}
	return a
}

// TestFactorBlocked checks the blocked factorisation (used with a context
// for M ≥ blockedMin) against the unblocked one.
func TestFactorBlocked(t *testing.T) {
	t.Parallel()
	for _, n := range []int{blockedMin, blockedMin + 77} {
		a := randomPrecision(n, uint64(n))
		var plain, blocked gaussQ
		if err := plain.factor(symCopy(a), 1); err != nil {
			t.Fatal(err)
		}
		blocked.ctx = context.Background()
		if done, err := blocked.factorBlocked(symCopy(a)); !done || err != nil {
			t.Fatalf("n=%d: blocked factorisation: %v %v", n, done, err)
		}
		if math.Abs(plain.logDet-blocked.logDet) > 1e-9*math.Abs(plain.logDet) {
			t.Errorf("n=%d: ln|Σ| %v, blocked %v", n, plain.logDet, blocked.logDet)
		}
		for i := range n {
			if math.Abs(plain.diag[i]-blocked.diag[i]) > 1e-9*plain.diag[i] {
				t.Fatalf("n=%d: Σ[%d,%d] %v, blocked %v", n, i, i, plain.diag[i], blocked.diag[i])
			}
		}
		h := make([]float64, n)
		for i := range h {
			h[i] = float64(i%7) - 3
		}
		if err := plain.solveMean(h); err != nil {
			t.Fatal(err)
		}
		if err := blocked.solveMean(h); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if math.Abs(plain.mu[i]-blocked.mu[i]) > 1e-8*(1+math.Abs(plain.mu[i])) {
				t.Fatalf("n=%d: μ[%d] %v, blocked %v", n, i, plain.mu[i], blocked.mu[i])
			}
		}
		// Not positive definite: not done, nothing changed.
		bad := symCopy(a)
		bad.SetSym(n-1, n-1, -1)
		var q gaussQ
		q.ctx = context.Background()
		if done, err := q.factorBlocked(bad); done || err != nil || q.diag != nil {
			t.Errorf("n=%d: indefinite matrix: done %v, err %v", n, done, err)
		}
	}
}

// TestFactorCanceled checks that a cancelled context stops the blocked
// factorisation with the context's error and leaves q as it was.
func TestFactorCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := gaussQ{ctx: ctx, logDet: 7}
	err := q.factor(randomPrecision(blockedMin, 1), 1)
	if !errors.Is(err, context.Canceled) || q.logDet != 7 {
		t.Errorf("error %v, ln|Σ| %v", err, q.logDet)
	}
}

// TestScheduleInterrupt cancels a paper-schedule fit without pruning at
// N = 1,500 inside an iteration's O(N³) Q_w update (the CLI's Ctrl-C),
// and requires the fit to return promptly with status Canceled and the
// state of the previous iteration. The bound on the delay is generous for
// a loaded machine: the blocks of the factorisation take milliseconds.
func TestScheduleInterrupt(t *testing.T) {
	// Not parallel: it measures how soon a cancelled fit returns, which
	// tests running beside it on a loaded machine would lengthen.
	if testing.Short() {
		t.Skip("a fit at N = 1,500")
	}
	x, y := benchSinc(1500, 9)
	ctx, cancel := context.WithCancel(context.Background())
	var stop time.Time
	r := &Regressor{Kernel: Gaussian{Width: 3}, Method: PaperSchedule{}, NoPrune: true, MaxIter: 50,
		Monitor: func(p Progress) bool {
			if p.Iteration == 1 {
				go func() {
					time.Sleep(50 * time.Millisecond)
					stop = time.Now()
					cancel()
				}()
			}
			return false
		}}
	err := r.FitContext(ctx, x, y)
	delay := time.Since(stop)
	if !errors.Is(err, context.Canceled) || r.Status() != Canceled {
		t.Fatalf("error %v, status %v", err, r.Status())
	}
	t.Logf("returned %v after the cancellation, after %d iterations", delay, r.Iterations())
	if delay > 3*time.Second {
		t.Errorf("returned %v after the cancellation", delay)
	}
	if _, _, err := r.Predict(x); err != nil || len(r.BoundTrace()) != r.Iterations()+1 {
		t.Errorf("cancelled model: %v, %d bounds for %d iterations", err, len(r.BoundTrace()), r.Iterations())
	}
}

func symCopy(a *mat.SymDense) *mat.SymDense {
	c := mat.NewSymDense(a.SymmetricDim(), nil)
	c.CopySym(a)
	return c
}
