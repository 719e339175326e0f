package rvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// Small helpers on slices and matrices (as the facade's helpers.go).

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func constant(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// variance returns the variance of t about its mean.
func variance(t []float64) float64 {
	var sum float64
	for _, v := range t {
		sum += v
	}
	mean := sum / float64(len(t))
	var s float64
	for _, v := range t {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(t))
}

// selectCols returns the columns keep of a, in that order; large
// selections run on all processors (the gather misses the cache once
// per element of a wide a, and the misses overlap).
func selectCols(a *mat.Dense, keep []int) *mat.Dense {
	n, _ := a.Dims()
	out := mat.NewDense(n, len(keep), nil)
	gather := func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			src, dst := a.RawRowView(i), out.RawRowView(i)
			for j, k := range keep {
				dst[j] = src[k]
			}
		}
		return nil
	}
	if n*len(keep) < 1<<12 {
		_ = gather(0, n)
		return out
	}
	_ = design.ParallelRange(n, gather)
	return out
}

func selectRows(a *mat.Dense, keep []int) *mat.Dense {
	_, c := a.Dims()
	out := mat.NewDense(len(keep), c, nil)
	for i, k := range keep {
		copy(out.RawRowView(i), a.RawRowView(k))
	}
	return out
}

func selectSym(a *mat.SymDense, keep []int) *mat.SymDense {
	out := mat.NewSymDense(len(keep), nil)
	for i, ki := range keep {
		for j := i; j < len(keep); j++ {
			out.SetSym(i, j, a.At(ki, keep[j]))
		}
	}
	return out
}

func selectVec(a []float64, keep []int) []float64 {
	out := make([]float64, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}

func selectInts(a []int, keep []int) []int {
	out := make([]int, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}

// scaleBy sets dst[n] = beta[n]·src[n].
func scaleBy(dst, beta, src []float64) {
	for n, v := range src {
		dst[n] = beta[n] * v
	}
}
