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
