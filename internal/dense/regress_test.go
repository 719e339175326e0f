package dense

import (
	"fmt"
	"math"
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
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(5, 5))
		for _, r := range []int{9, 13, 14, 15, 21, 23, 29, 31, 45} {
			n := 3*e.parallelWork/(r*r) + 1
			a := guarded(rnd, n, r, 3, 4)
			c := guarded(rnd, r, r, 2, 9)
			want := clone(c)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, a, 0, want)
			e.gram(1, a, 0, c)
			name := fmt.Sprintf("n=%d r=%d", n, r)
			checkGuards(t, name, c)
			compare(t, name, c, want, magnitude(blas.Trans, blas.NoTrans, 1, a, a, 0, c), c)
		}
	})
}

// TestGemmSplitBounds does the same for the row and column splits of Gemm.
func TestGemmSplitBounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(6, 6))
		for _, mn := range [][2]int{{7, 5}, {13, 11}, {23, 23}, {5, 13}, {11, 15}, {31, 47}, {47, 31}} {
			m, n := mn[0], mn[1]
			k := 3*e.parallelWork/(m*n) + 1
			a, b := guarded(rnd, m, k, 1, 3), guarded(rnd, n, k, 2, 5)
			c := guarded(rnd, m, n, 3, 7)
			want := clone(c)
			blas64.Gemm(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, want)
			mag := magnitude(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, c)
			e.gemm(blas.NoTrans, blas.Trans, -1.5, a, b, 0.5, c)
			name := fmt.Sprintf("m=%d n=%d k=%d", m, n, k)
			checkGuards(t, name, c)
			compare(t, name, c, want, mag, c)
		}
	})
}

// TestGemmAlias checks that c sharing storage with a or b (which BLAS
// forbids) gives the product of the operands as they were, on both paths.
func TestGemmAlias(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(7, 7))
		for _, n := range []int{3, 8, 30, 70} {
			x := general(rnd, n, n, 1)
			y := general(rnd, n, n, 0)
			for _, which := range []string{"c=a", "c=b", "c=a=b"} {
				c := clone(x)
				a, b := clone(x), clone(y)
				want := clone(c)
				blas64.Gemm(blas.NoTrans, blas.Trans, 0.5, a, b, 0.25, want)
				switch which {
				case "c=a":
					e.gemm(blas.NoTrans, blas.Trans, 0.5, c, b, 0.25, c)
				case "c=b":
					want = clone(c)
					blas64.Gemm(blas.NoTrans, blas.Trans, 0.5, b, a, 0.25, want)
					e.gemm(blas.NoTrans, blas.Trans, 0.5, b, c, 0.25, c)
				default:
					want = clone(c)
					blas64.Gemm(blas.NoTrans, blas.Trans, 0.5, a, a, 0.25, want)
					e.gemm(blas.NoTrans, blas.Trans, 0.5, c, c, 0.25, c)
				}
				compare(t, fmt.Sprintf("%s n=%d", which, n), c, want, magnitude(blas.NoTrans, blas.Trans, 0.5, a, b, 0.25, x), c)
			}
			// Gram with c inside a's storage.
			big := general(rnd, n+n, n, 0)
			a := blas64.General{Rows: n + n, Cols: n, Stride: n, Data: clone(big).Data}
			c := blas64.General{Rows: n, Cols: n, Stride: n, Data: a.Data[n*n:]}
			want := clone(c)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, big, big, 0, want)
			e.gram(1, a, 0, c)
			compare(t, fmt.Sprintf("Gram c in a n=%d", n), c, want, magnitude(blas.Trans, blas.NoTrans, 1, big, big, 0, c), c)
		}
	})
}

// TestGemmBadStorage checks that operands whose stride is shorter than
// their rows or whose data is shorter than their last row panic, as in
// gonum, rather than reading past them.
func TestGemmBadStorage(t *testing.T) {
	ok := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	}
	short := blas64.General{Rows: 20, Cols: 20, Stride: 20, Data: make([]float64, 399, 1000)}
	narrow := blas64.General{Rows: 20, Cols: 20, Stride: 19, Data: make([]float64, 1000)}
	paths(t, func(t *testing.T, e products) {
		for i, f := range []func(){
			func() { e.gemm(blas.NoTrans, blas.NoTrans, 1, short, ok(20, 20), 0, ok(20, 20)) },
			func() { e.gemm(blas.NoTrans, blas.NoTrans, 1, ok(20, 20), short, 0, ok(20, 20)) },
			func() { e.gemm(blas.NoTrans, blas.NoTrans, 1, ok(20, 20), ok(20, 20), 0, short) },
			func() { e.gemm(blas.Trans, blas.NoTrans, 1, narrow, ok(20, 20), 0, ok(20, 20)) },
			func() { e.gemm(blas.NoTrans, blas.Trans, 1, ok(20, 20), narrow, 0, ok(20, 20)) },
			func() { e.gram(1, short, 0, ok(20, 20)) },
			func() { e.gram(1, narrow, 0, ok(20, 20)) },
			func() { e.gram(1, ok(20, 20), 0, narrow) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("case %d: no panic on bad storage", i)
					}
				}()
				f()
			}()
		}
	})
}

// TestGemmSpecial checks NaN and Inf propagation and alpha = 0.
func TestGemmSpecial(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(8, 8))
		for _, n := range []int{5, 13, 40} {
			a, b := general(rnd, n, n, 0), general(rnd, n, n, 0)
			a.Data[2*n+1] = math.NaN()  // row 2
			b.Data[3*n+4] = math.Inf(1) // row 3: column 4 of op(b) = bᵀ… here b is NoTrans: column 4
			c := general(rnd, n, n, 0)
			e.gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
			for i := range n {
				for j := range n {
					v := c.Data[i*n+j]
					switch {
					case i == 2 && !math.IsNaN(v):
						t.Fatalf("n=%d: c[2,%d] = %v, want NaN", n, j, v)
					case i != 2 && j == 4 && !math.IsInf(v, 0):
						t.Fatalf("n=%d: c[%d,4] = %v, want ±Inf", n, i, v)
					case i != 2 && j != 4 && (math.IsNaN(v) || math.IsInf(v, 0)):
						t.Fatalf("n=%d: c[%d,%d] = %v", n, i, j, v)
					}
				}
			}
			// alpha = 0: c = beta·c, a and b not read.
			c = general(rnd, n, n, 0)
			want := clone(c)
			for i := range want.Data {
				want.Data[i] *= 0.5
			}
			e.gemm(blas.NoTrans, blas.NoTrans, 0, a, b, 0.5, c)
			for i := range c.Data {
				if c.Data[i] != want.Data[i] {
					t.Fatalf("n=%d alpha=0: c.Data[%d] = %v, want %v", n, i, c.Data[i], want.Data[i])
				}
			}
		}
	})
}

// TestGemmEmpty checks that an empty c with a short backing slice is
// left alone, as gonum does.
func TestGemmEmpty(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		c := blas64.General{Rows: 3, Cols: 0, Stride: 1}
		a := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float64, 6)}
		b := blas64.General{Rows: 2, Cols: 0, Stride: 1}
		e.gemm(blas.NoTrans, blas.NoTrans, 0, a, b, 0.5, c)
		e.gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0.5, c)
	})
}

// TestShortVectors checks that Gemv and Dots4 panic on slices shorter
// than their sizes even where the capacity would cover them.
func TestShortVectors(t *testing.T) {
	a := blas64.General{Rows: 20, Cols: 20, Stride: 20, Data: make([]float64, 400)}
	shortA := blas64.General{Rows: 20, Cols: 20, Stride: 20, Data: make([]float64, 399, 400)}
	v := make([]float64, 20)
	short := make([]float64, 19, 20)
	paths(t, func(t *testing.T, e products) {
		for i, f := range []func(){
			func() {
				e.gemv(blas.Trans, 1, a, blas64.Vector{N: 20, Inc: 1, Data: short}, 0, blas64.Vector{N: 20, Inc: 1, Data: v})
			},
			func() {
				e.gemv(blas.Trans, 1, a, blas64.Vector{N: 20, Inc: 1, Data: v}, 0, blas64.Vector{N: 20, Inc: 1, Data: short})
			},
			func() {
				e.gemv(blas.Trans, 1, shortA, blas64.Vector{N: 20, Inc: 1, Data: v}, 0, blas64.Vector{N: 20, Inc: 1, Data: v})
			},
			func() { e.dots4(v, v, short, v, v) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("case %d: no panic", i)
					}
				}()
				f()
			}()
		}
	})
}
