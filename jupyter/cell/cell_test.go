package cell

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// reset puts the package back in its initial state with cell counter n.
func reset(t *testing.T, n *int) {
	t.Helper()
	mu.Lock()
	ctx, cancel, seen = nil, nil, 0
	mu.Unlock()
	if n == nil {
		SetCellCounter(nil)
	} else {
		SetCellCounter(func() int { return *n })
	}
	t.Cleanup(func() { SetCellCounter(nil) })
}

func TestContextLifetime(t *testing.T) {
	n := 1
	reset(t, &n)

	c1 := Context()
	if c1.Err() != nil {
		t.Fatalf("fresh context already done: %v", c1.Err())
	}
	if Context() != c1 {
		t.Fatal("second call in the same cell returned a different context")
	}

	n = 2 // a new cell without an interrupt keeps the context
	if Context() != c1 {
		t.Fatal("uncancelled context replaced in a new cell")
	}

	Interrupt()
	if !errors.Is(c1.Err(), context.Canceled) {
		t.Fatalf("Err after Interrupt = %v, want context.Canceled", c1.Err())
	}
	if got := context.Cause(c1); got != ErrInterrupted {
		t.Fatalf("Cause after Interrupt = %v, want ErrInterrupted", got)
	}
	if Context() != c1 || !Interrupted() {
		t.Fatal("the interrupted cell must keep seeing its cancelled context")
	}

	n = 3
	c3 := Context()
	if c3 == c1 || c3.Err() != nil {
		t.Fatalf("next cell got context %p (err %v), want a fresh one", c3, c3.Err())
	}
	if Interrupted() {
		t.Fatal("Interrupted true in a fresh cell")
	}
}

func TestInterruptBeforeContext(t *testing.T) {
	reset(t, nil)
	Interrupt() // nothing to cancel: must not panic, must not poison later cells
	if Context().Err() != nil {
		t.Fatal("context made after an interrupt with no context is already cancelled")
	}
}

func TestWithoutKernel(t *testing.T) {
	reset(t, nil)
	c := Context()
	Interrupt()
	if Context() != c || c.Err() == nil {
		t.Fatal("without a cell counter the whole program is one cell")
	}
}

// TestInterruptStopsWaiter interrupts from another goroutine, as the
// kernel's signal handler does, while the cell waits on its context.
func TestInterruptStopsWaiter(t *testing.T) {
	n := 1
	reset(t, &n)
	ctx := Context()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(10 * time.Millisecond)
		Interrupt()
	}()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("context not cancelled by Interrupt from another goroutine")
	}
	wg.Wait()
}

func TestErrInterruptedIsCanceled(t *testing.T) {
	if !errors.Is(ErrInterrupted, context.Canceled) {
		t.Fatal("ErrInterrupted does not wrap context.Canceled")
	}
}
