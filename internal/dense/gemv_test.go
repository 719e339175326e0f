package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func TestGemv(t *testing.T) {
	paths(t, func(t *testing.T, e products) {
		rnd := rand.New(rand.NewPCG(4, 4))
		sizes := []int{0, 1, 3, 4, 5, 7, 8, 9, 17, 64, 130}
		scalars := [][2]float64{{1, 0}, {1, 1}, {-0.5, 2}, {0, 0.5}, {2, 0}}
		for trial := range 300 {
			m, n := sizes[rnd.IntN(len(sizes))], sizes[rnd.IntN(len(sizes))]
			if trial%10 == 0 {
				m, n = 1+rnd.IntN(2000), 1+rnd.IntN(500)
			}
			tA := []blas.Transpose{blas.NoTrans, blas.Trans}[rnd.IntN(2)]
			s := scalars[rnd.IntN(len(scalars))]
			alpha, beta := s[0], s[1]
			a := general(rnd, m, n, rnd.IntN(3))
			lx, ly := n, m
			if tA == blas.Trans {
				lx, ly = m, n
			}
			x := general(rnd, 1, lx, 0)
			yg := general(rnd, 1, ly, 0)
			if beta == 0 && ly > 0 {
				yg.Data[rnd.IntN(ly)] = math.NaN()
			}
			want, got := clone(yg), clone(yg)
			if beta == 0 && m > 0 && n > 0 { // gonum leaves y alone when a is empty
				for i := range want.Data {
					want.Data[i] = 0
				}
			}
			blas64.Gemv(tA, alpha, a, blas64.Vector{N: lx, Inc: 1, Data: x.Data}, beta, blas64.Vector{N: ly, Inc: 1, Data: want.Data})
			e.gemv(tA, alpha, a, blas64.Vector{N: lx, Inc: 1, Data: x.Data}, beta, blas64.Vector{N: ly, Inc: 1, Data: got.Data})
			// The scale of each entry's rounding error: |alpha|·|op(a)|·|x| + |beta|·|y|.
			var xm, ym blas64.General
			xm, ym = clone(x), clone(yg)
			for i := range xm.Data {
				xm.Data[i] = math.Abs(xm.Data[i])
			}
			for i := range ym.Data {
				ym.Data[i] = math.Abs(ym.Data[i])
				if beta == 0 && m > 0 && n > 0 {
					ym.Data[i] = 0
				}
			}
			am := clone(a)
			for i := range am.Data {
				am.Data[i] = math.Abs(am.Data[i])
			}
			blas64.Gemv(tA, math.Abs(alpha), am, blas64.Vector{N: lx, Inc: 1, Data: xm.Data}, math.Abs(beta), blas64.Vector{N: ly, Inc: 1, Data: ym.Data})
			gy := blas64.General{Rows: 1, Cols: ly, Stride: max(ly, 1), Data: got.Data}
			wy := blas64.General{Rows: 1, Cols: ly, Stride: max(ly, 1), Data: want.Data}
			my := blas64.General{Rows: 1, Cols: ly, Stride: max(ly, 1), Data: ym.Data}
			compare(t, fmt.Sprintf("%v m=%d n=%d α=%v β=%v", tA, m, n, alpha, beta), gy, wy, my, wy)
		}
	})
}

func BenchmarkGemvT(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, s := range [][2]int{{1257, 1257}, {1800, 1800}, {20000, 262}, {1257, 8}} {
		a := general(rnd, s[0], s[1], 0)
		x, y := general(rnd, 1, s[0], 0).Data[:s[0]], make([]float64, s[1])
		name := fmt.Sprintf("%dx%d", s[0], s[1])
		b.Run(name+"/dense", func(b *testing.B) {
			for b.Loop() {
				Gemv(blas.Trans, 1, a, blas64.Vector{N: s[0], Inc: 1, Data: x}, 0, blas64.Vector{N: s[1], Inc: 1, Data: y})
			}
		})
		b.Run(name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				blas64.Gemv(blas.Trans, 1, a, blas64.Vector{N: s[0], Inc: 1, Data: x}, 0, blas64.Vector{N: s[1], Inc: 1, Data: y})
			}
		})
	}
}
