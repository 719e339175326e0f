package dense

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// guard is the value of the elements around a matrix's storage that no
// product may write.
const guard = -7.25e300

// guarded returns an r × c matrix with stride c+pad, its entries from rnd
// and every other element of its backing slice (between rows and after
// the last one, tail of them) set to guard.
func guarded(rnd *rand.Rand, r, c, pad, tail int) blas64.General {
	s := max(c+pad, 1)
	data := make([]float64, max(r*s, 1)+tail)
	for i := range data {
		data[i] = guard
	}
	for i := range r {
		for j := range c {
			data[i*s+j] = rnd.NormFloat64()
		}
	}
	return blas64.General{Rows: r, Cols: c, Stride: s, Data: data}
}

// checkGuards fails if an element of g's backing slice outside its
// entries is not guard.
func checkGuards(t *testing.T, name string, g blas64.General) {
	t.Helper()
	for k, v := range g.Data {
		i, j := k/g.Stride, k%g.Stride
		if (i >= g.Rows || j >= g.Cols) && v != guard {
			t.Fatalf("%s: element %d (row %d, column %d) outside the %d × %d matrix written: %v", name, k, i, j, g.Rows, g.Cols, v)
		}
	}
}

// TestGramSplitBounds covers the parallel split of Gram's upper triangle
// at sizes where rounding a worker's share up to whole tiles overshot C
// (r = 13: √½·13 rounds up to 16), which made the worker read a and write
// c out of bounds: a crash, or silent writes into the storage around a
// view.
func TestGramSplitBounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	paths(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(5, 5))
		for _, r := range []int{9, 13, 14, 15, 21, 23, 29, 31, 45} {
			n := 3*parallelWork/(r*r) + 1
			a := guarded(rnd, n, r, 3, 4)
			c := guarded(rnd, r, r, 2, 9)
			want := clone(c)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, a, 0, want)
			Gram(1, a, 0, c)
			name := fmt.Sprintf("n=%d r=%d", n, r)
			checkGuards(t, name, c)
			compare(t, name, c, want, magnitude(blas.Trans, blas.NoTrans, 1, a, a, 0, c), c)
		}
	})
}

// TestGemmSplitBounds does the same for the row and column splits of Gemm.
func TestGemmSplitBounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	paths(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(6, 6))
		for _, mn := range [][2]int{{7, 5}, {13, 11}, {23, 23}, {5, 13}, {11, 15}, {31, 47}, {47, 31}} {
			m, n := mn[0], mn[1]
			k := 3*parallelWork/(m*n) + 1
			a, b := guarded(rnd, m, k, 1, 3), guarded(rnd, n, k, 2, 5)
			c := guarded(rnd, m, n, 3, 7)
			want := clone(c)
			blas64.Gemm(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, want)
			mag := magnitude(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, c)
			Gemm(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, c)
			name := fmt.Sprintf("m=%d n=%d k=%d", m, n, k)
			checkGuards(t, name, c)
			compare(t, name, c, want, mag, c)
		}
	})
}


