// Package subset selects rows, columns and entries of matrices and
// slices by index: the active set's rows and columns of a design, the
// kept functions' entries of a weight vector. The facade and the
// internal solvers share it.
package subset

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// Seq returns the indices 0, 1, …, n−1.
func Seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Cols returns the columns keep of a, in that order; large selections
// run on all processors (the gather misses the cache once per element of
// a wide a, and the misses overlap).
func Cols(a *mat.Dense, keep []int) *mat.Dense {
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

// Rows returns the rows keep of a, in that order.
func Rows(a *mat.Dense, keep []int) *mat.Dense {
	_, c := a.Dims()
	out := mat.NewDense(len(keep), c, nil)
	for i, k := range keep {
		copy(out.RawRowView(i), a.RawRowView(k))
	}
	return out
}

// Sym returns the rows and columns keep of a.
func Sym(a *mat.SymDense, keep []int) *mat.SymDense {
	out := mat.NewSymDense(len(keep), nil)
	for i, ki := range keep {
		for j := i; j < len(keep); j++ {
			out.SetSym(i, j, a.At(ki, keep[j]))
		}
	}
	return out
}

// Vec returns the entries keep of a.
func Vec(a []float64, keep []int) []float64 {
	out := make([]float64, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}

// Ints returns the entries keep of a.
func Ints(a []int, keep []int) []int {
	out := make([]int, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}
