package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestSumRows checks SumRows, with the processor's kernels and the
// portable loop, against clearing t and one blas64.Axpy per row, bit for
// bit, on random rows of several lengths (across the kernel's tile of 32)
// and counts, with zero and negative weights and offsets that overlap.
func TestSumRows(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 7))
	for _, e := range []products{host, {level: portable}} {
		for _, n := range []int{0, 1, 31, 32, 33, 64, 161, 256} {
			for _, nk := range []int{0, 1, 2, 7, 40} {
				c := make([]float64, 50*n+nk+5)
				for i := range c {
					c[i] = rnd.NormFloat64() * math.Exp(8*rnd.NormFloat64())
				}
				w := make([]float64, nk)
				offs := make([]int, nk)
				for k := range w {
					w[k] = rnd.NormFloat64()
					if k%5 == 3 {
						w[k] = 0
					}
					offs[k] = rnd.IntN(len(c) - n + 1)
				}
				want := make([]float64, n)
				for k, wk := range w {
					blas64.Axpy(wk, blas64.Vector{N: n, Inc: 1, Data: c[offs[k] : offs[k]+n]}, blas64.Vector{N: n, Inc: 1, Data: want})
				}
				got := make([]float64, n)
				for j := range got {
					got[j] = math.NaN() // overwritten
				}
				e.sumRows(got, w, offs, c)
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("level %v, n %d, nk %d, column %d: %v, want %v", e.level, n, nk, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestScaleSub checks ScaleSub, with the processor's kernels and the
// portable loop, against the loop of its statement, bit for bit.
func TestScaleSub(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 9))
	for _, e := range []products{host, {level: portable}} {
		for _, n := range []int{0, 1, 15, 16, 17, 64, 161, 256} {
			src, q := make([]float64, n+3), make([]float64, n+2)
			for i := range src {
				src[i] = rnd.NormFloat64() * math.Exp(8*rnd.NormFloat64())
			}
			for i := range q {
				q[i] = rnd.NormFloat64()
			}
			a, b := rnd.NormFloat64(), rnd.NormFloat64()
			wantD, wantQ := make([]float64, n), append([]float64(nil), q...)
			for j := range wantD {
				wantD[j] = a * src[j]
				wantQ[j] -= wantD[j] * b
			}
			dst := make([]float64, n)
			e.scaleSub(dst, q, src, a, b)
			for j := range dst {
				if math.Float64bits(dst[j]) != math.Float64bits(wantD[j]) || math.Float64bits(q[j]) != math.Float64bits(wantQ[j]) {
					t.Fatalf("level %v, n %d, value %d: (%v, %v), want (%v, %v)", e.level, n, j, dst[j], q[j], wantD[j], wantQ[j])
				}
			}
			if q[n] != wantQ[n] || q[n+1] != wantQ[n+1] {
				t.Fatalf("level %v, n %d: q changed beyond dst", e.level, n)
			}
		}
	}
}

// TestQuadRow checks QuadRow, with the processor's kernels and the
// portable loop, against SumRows and the loop of its statement, bit for
// bit.
func TestQuadRow(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 13))
	for _, e := range []products{host, {level: portable}} {
		for _, n := range []int{0, 1, 31, 32, 33, 64, 161, 256} {
			for _, nk := range []int{0, 1, 5, 40} {
				c := make([]float64, 50*n+nk+5)
				for i := range c {
					c[i] = rnd.NormFloat64() * math.Exp(4*rnd.NormFloat64())
				}
				w, offs := make([]float64, nk), make([]int, nk)
				for k := range w {
					w[k] = rnd.NormFloat64()
					offs[k] = rnd.IntN(len(c) - n + 1)
				}
				ci, o := make([]float64, n), make([]float64, n)
				for j := range ci {
					ci[j], o[j] = rnd.NormFloat64(), rnd.NormFloat64()
				}
				d := rnd.ExpFloat64()
				tw := make([]float64, n)
				portableSum := products{level: portable}
				portableSum.sumRows(tw, w, offs, c)
				want := append([]float64(nil), o...)
				for j, v := range ci {
					want[j] += v * (d*v + 2*tw[j])
				}
				e.quadRow(o, ci, make([]float64, n), w, offs, c, d)
				for j := range o {
					if math.Float64bits(o[j]) != math.Float64bits(want[j]) {
						t.Fatalf("level %v, n %d, nk %d, column %d: %v, want %v", e.level, n, nk, j, o[j], want[j])
					}
				}
			}
		}
	}
}

// TestAxpy checks Axpy, with the processor's kernels and the portable
// loop, against blas64.Axpy, bit for bit.
func TestAxpy(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 19))
	for _, e := range []products{host, {level: portable}} {
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 31, 64, 100} {
			for _, a := range []float64{0, rnd.NormFloat64(), -3.5e-7} {
				x, y := make([]float64, n+2), make([]float64, n+1)
				for i := range x {
					x[i] = rnd.NormFloat64() * math.Exp(8*rnd.NormFloat64())
				}
				for i := range y {
					y[i] = rnd.NormFloat64()
				}
				want := append([]float64(nil), y...)
				blas64.Axpy(a, blas64.Vector{N: n, Inc: 1, Data: x}, blas64.Vector{N: n, Inc: 1, Data: want})
				e.axpy(a, x, y[:n])
				for j := range y {
					if math.Float64bits(y[j]) != math.Float64bits(want[j]) {
						t.Fatalf("level %v, n %d, a %v, value %d: %v, want %v", e.level, n, a, j, y[j], want[j])
					}
				}
			}
		}
	}
}
