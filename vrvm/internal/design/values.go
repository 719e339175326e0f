package design

import (
	"math"
	"runtime"
	"sync"
)

// Values sets out[i] = K(rows[i], rows[c(i)]) for every row, in parallel
// (a kernel's diagonal, or one of its columns); a non-finite value is a
// *NonFiniteError at row i, centre c(i).
func Values(k Kernel, rows [][]float64, out []float64, c func(i int) int) error {
	return ParallelRange(len(rows), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			v := k.Eval(rows[i], rows[c(i)])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &NonFiniteError{Row: i, Col: c(i), Value: v}
			}
			out[i] = v
		}
		return nil
	})
}

// ParallelRange runs f over [0, n) split among the available processors,
// at least 256 indices to each, and returns the error of the lowest part
// that failed.
func ParallelRange(n int, f func(lo, hi int) error) error {
	w := runtime.GOMAXPROCS(0)
	if w > n/256 {
		w = max(1, n/256)
	}
	if w == 1 {
		return f(0, n)
	}
	errs := make([]error, w)
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
