package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDots4(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(5, 5))
		for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 64, 257, 1000} {
			rows := make([][]float64, 4)
			for k := range rows {
				rows[k] = general(rnd, 1, n+k, 0).Data // longer than b is fine
			}
			b := general(rnd, 1, n, 0).Data[:n]
			s0, s1, s2, s3 := e.dots4(rows[0], rows[1], rows[2], rows[3], b)
			for k, got := range []float64{s0, s1, s2, s3} {
				var want, mag float64
				for j, v := range b {
					want += rows[k][j] * v
					mag += math.Abs(rows[k][j] * v)
				}
				if math.Abs(got-want) > tol*(mag+1e-300) {
					t.Errorf("n=%d row %d: %v, want %v", n, k, got, want)
				}
			}
		}
	})
}

func BenchmarkDots4(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	const n = 4000
	a := general(rnd, 4, n, 0).Data
	x := general(rnd, 1, n, 0).Data[:n]
	for b.Loop() {
		Dots4(a[:n], a[n:], a[2*n:], a[3*n:], x)
	}
}
