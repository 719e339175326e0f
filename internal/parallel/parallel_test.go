package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	var n atomic.Int64
	if err := Run(context.Background(), 3, 50, func(ctx context.Context, i int) error { n.Add(int64(i)); return nil }); err != nil || n.Load() != 49*50/2 {
		t.Errorf("sum %d, err %v", n.Load(), err)
	}
	boom := errors.New("boom")
	var started atomic.Int64
	err := Run(context.Background(), 1, 100, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || started.Load() > 5 {
		t.Errorf("error %v after %d jobs", err, started.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, 2, 10, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
