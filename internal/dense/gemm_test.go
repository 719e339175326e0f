package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// tol is the tolerance of a product's entry relative to the sum of the
// absolute values of its terms: FMA and the blocked order of the sums
// change only the last few bits.
const tol = 1e-13

// paths runs f with each micro-kernel of the packed product that the
// processor has (AVX-512, AVX2) and with the fallback to gonum.
func paths(t *testing.T, f func(t *testing.T, e products)) {
	for l := cpuLevel(); l >= portable; l-- {
		e := products{level: l, parallelWork: host.parallelWork}
		t.Run("level="+strconv.Itoa(int(l)), func(t *testing.T) { f(t, e) })
	}
}

// general returns an r × c matrix with stride c+pad inside a larger
// backing slice filled with values from rnd, and the slice.
func general(rnd *rand.Rand, r, c, pad int) blas64.General {
	s := max(c+pad, 1)
	data := make([]float64, max(r*s, 1)+pad)
	for i := range data {
		data[i] = rnd.NormFloat64()
	}
	return blas64.General{Rows: r, Cols: c, Stride: s, Data: data}
}

func clone(g blas64.General) blas64.General {
	g.Data = append([]float64(nil), g.Data...)
	return g
}

// magnitude returns |alpha|·|op(a)|·|op(b)| + |beta|·|c| entrywise, the
// scale of each entry's rounding error.
func magnitude(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) blas64.General {
	abs := func(g blas64.General) blas64.General {
		g = clone(g)
		for i, v := range g.Data {
			g.Data[i] = math.Abs(v)
		}
		return g
	}
	m := abs(c)
	if beta == 0 {
		for i := range m.Data {
			m.Data[i] = 0
		}
	}
	blas64.Gemm(tA, tB, math.Abs(alpha), abs(a), abs(b), math.Abs(beta), m)
	return m
}

// compare checks got against want over the matrix entries (and that the
// padding outside them is untouched, as in orig).
func compare(t *testing.T, name string, got, want, mag, orig blas64.General) {
	t.Helper()
	inside := make([]bool, len(got.Data))
	for i := range got.Rows {
		for j := range got.Cols {
			k := i*got.Stride + j
			inside[k] = true
			g, w := got.Data[k], want.Data[k]
			if math.Abs(g-w) > tol*(mag.Data[k]+1e-300) || math.IsNaN(g) != math.IsNaN(w) {
				t.Fatalf("%s: c[%d,%d] = %v, want %v (scale %v)", name, i, j, g, w, mag.Data[k])
			}
		}
	}
	for k, in := range inside {
		if !in && got.Data[k] != orig.Data[k] && !(math.IsNaN(got.Data[k]) && math.IsNaN(orig.Data[k])) {
			t.Fatalf("%s: padding at %d changed", name, k)
		}
	}
}

func TestGemm(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(1, 1))
		sizes := []int{0, 1, 2, 3, 5, 6, 7, 8, 9, 13, 17, 23, 24, 25, 31, 64, 97, 130, 193}
		trans := []blas.Transpose{blas.NoTrans, blas.Trans}
		scalars := [][2]float64{{1, 0}, {1, 1}, {-0.5, 2}, {2.5, 0}, {0, 0.5}, {0, 0}, {1.5, -1}}
		for trial := range 400 {
			m := sizes[rnd.IntN(len(sizes))]
			n := sizes[rnd.IntN(len(sizes))]
			k := sizes[rnd.IntN(len(sizes))]
			if trial%5 == 0 {
				m, n, k = 1+rnd.IntN(300), 1+rnd.IntN(300), 1+rnd.IntN(300)
			}
			tA, tB := trans[rnd.IntN(2)], trans[rnd.IntN(2)]
			s := scalars[rnd.IntN(len(scalars))]
			alpha, beta := s[0], s[1]
			pad := rnd.IntN(3)
			ar, ac := m, k
			if tA == blas.Trans {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB == blas.Trans {
				br, bc = n, k
			}
			a, b := general(rnd, ar, ac, pad), general(rnd, br, bc, rnd.IntN(3))
			c := general(rnd, m, n, rnd.IntN(3))
			if beta == 0 && m*n > 0 {
				c.Data[rnd.IntN(m)*c.Stride+rnd.IntN(n)] = math.NaN()
			}
			want, got := clone(c), clone(c)
			if beta == 0 {
				for i := range want.Data {
					if math.IsNaN(want.Data[i]) {
						want.Data[i] = 0 // gonum's reference ignores c too
					}
				}
			}
			blas64.Gemm(tA, tB, alpha, a, b, beta, want)
			e.gemm(tA, tB, alpha, a, b, beta, got)
			name := fmt.Sprintf("%v%v m=%d n=%d k=%d α=%v β=%v", tA, tB, m, n, k, alpha, beta)
			orig := c
			if beta == 0 {
				orig = want // padding holds no NaN here; inside is checked
			}
			compare(t, name, got, want, magnitude(tA, tB, alpha, a, b, beta, c), orig)
		}
	})
}

func TestGemmLarge(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(2, 2))
		for _, sh := range [][3]int{{300, 262, 1000}, {20, 2100, 300}, {2100, 20, 300}, {600, 262, 262}} {
			m, n, k := sh[0], sh[1], sh[2]
			for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.Trans, blas.NoTrans}, {blas.NoTrans, blas.Trans}, {blas.Trans, blas.Trans}} {
				ar, ac := m, k
				if tr[0] == blas.Trans {
					ar, ac = k, m
				}
				br, bc := k, n
				if tr[1] == blas.Trans {
					br, bc = n, k
				}
				a, b, c := general(rnd, ar, ac, 1), general(rnd, br, bc, 0), general(rnd, m, n, 2)
				want, got := clone(c), clone(c)
				blas64.Gemm(tr[0], tr[1], 0.7, a, b, 0.3, want)
				e.gemm(tr[0], tr[1], 0.7, a, b, 0.3, got)
				compare(t, fmt.Sprintf("%v%v %v", tr[0], tr[1], sh), got, want, magnitude(tr[0], tr[1], 0.7, a, b, 0.3, c), c)
			}
		}
	})
}

func TestGram(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(3, 3))
		for trial := range 200 {
			n, r := rnd.IntN(200), rnd.IntN(100)
			if trial%10 == 0 {
				n, r = 1+rnd.IntN(3000), 1+rnd.IntN(300)
			}
			alpha, beta := []float64{1, -1, 0.5, 0}[rnd.IntN(4)], []float64{0, 1, 0.25}[rnd.IntN(3)]
			a := general(rnd, n, r, rnd.IntN(3))
			c := general(rnd, r, r, rnd.IntN(3))
			mirror(c) // symmetric input for beta ≠ 0
			if beta == 0 && r > 0 {
				c.Data[0] = math.NaN()
			}
			want, got := clone(c), clone(c)
			if beta == 0 && r > 0 {
				want.Data[0] = 0
			}
			blas64.Gemm(blas.Trans, blas.NoTrans, alpha, a, a, beta, want)
			e.gram(alpha, a, beta, got)
			orig := c
			if beta == 0 {
				orig = want
			}
			compare(t, fmt.Sprintf("n=%d r=%d α=%v β=%v", n, r, alpha, beta), got, want, magnitude(blas.Trans, blas.NoTrans, alpha, a, a, beta, c), orig)
		}
	})
}

func TestGemmPanics(t *testing.T) {
	for _, f := range []func(){
		func() {
			Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float64, 6)}, blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)}, 0, blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)})
		},
		func() {
			Gram(1, blas64.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float64, 6)}, 0, blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on mismatched sizes")
				}
			}()
			f()
		}()
	}
}
