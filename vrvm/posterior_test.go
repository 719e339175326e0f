package vrvm

import (
	"context"
	"errors"
	"testing"
	"time"
)

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
