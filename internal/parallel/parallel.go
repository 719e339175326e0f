// Package parallel runs numbered jobs on a fixed number of goroutines,
// for the model-selection search and the reproduction of the paper.
package parallel

import (
	"context"
	"sync"
)

// Run runs job(0), …, job(n−1) on the given number of goroutines and
// returns the first error; an error or a cancelled ctx stops the jobs not
// yet started.
func Run(ctx context.Context, workers, n int, job func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := job(ctx, i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
