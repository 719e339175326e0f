package vrvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// Small helpers on slices and matrices.

func seq(n int) []int { return subset.Seq(n) }

func constant(n int, v float64) []float64 { return vec.Constant(n, v) }

func sum(v []float64) float64 { return vec.Sum(v) }

func resize(s []float64, n int) []float64 { return vec.Resize(s, n) }

// dims returns the dimensions of a, 0 × 0 for nil.
func dims(a *mat.Dense) (r, c int) {
	if a == nil || a.IsEmpty() {
		return 0, 0
	}
	return a.Dims()
}

// selectCols, selectRows, selectSym, selectVec and selectInts are
// subset's Cols, Rows, Sym, Vec and Ints.
func selectCols(a *mat.Dense, keep []int) *mat.Dense      { return subset.Cols(a, keep) }
func selectRows(a *mat.Dense, keep []int) *mat.Dense      { return subset.Rows(a, keep) }
func selectSym(a *mat.SymDense, keep []int) *mat.SymDense { return subset.Sym(a, keep) }
func selectVec(a []float64, keep []int) []float64         { return subset.Vec(a, keep) }
func selectInts(a []int, keep []int) []int                { return subset.Ints(a, keep) }

// variance returns the variance of t about its mean.
func variance(t []float64) float64 {
	mean := sum(t) / float64(len(t))
	var s float64
	for _, v := range t {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(t))
}
