package dense

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// benchShapes are the library's products that dominate its profiles
// (m × n × k of C = op(A) op(B)): the weighted Gram UᵀWU of the N = 20000
// classification design at rank 262, B W̃ and B L over P candidates, and
// the multi-class products, and the explicit design's cross products
// ΦᵀWΦ_A over P = N = 1,500 candidates (the type-II RVM classifier, (R9)).
var benchShapes = []struct {
	name    string
	tA, tB  blas.Transpose
	m, n, k int
}{
	{"gram/20000x262", blas.Trans, blas.NoTrans, 262, 262, 20000},
	{"BW/2000x262x262", blas.NoTrans, blas.NoTrans, 2000, 262, 262},
	{"UBt/20000x100x262", blas.NoTrans, blas.Trans, 20000, 100, 262},
	{"small/50x50x50", blas.NoTrans, blas.NoTrans, 50, 50, 50},
	{"BPhiA/1500x67x1500", blas.NoTrans, blas.Trans, 1500, 67, 1500},
}

func BenchmarkGemm(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
		ar, ac := s.m, s.k
		if s.tA == blas.Trans {
			ar, ac = s.k, s.m
		}
		br, bc := s.k, s.n
		if s.tB == blas.Trans {
			br, bc = s.n, s.k
		}
		x, y, c := general(rnd, ar, ac, 0), general(rnd, br, bc, 0), general(rnd, s.m, s.n, 0)
		b.Run(s.name+"/dense", func(b *testing.B) {
			for b.Loop() {
				Gemm(s.tA, s.tB, 1, x, y, 0, c)
			}
		})
		b.Run(s.name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				blas64.Gemm(s.tA, s.tB, 1, x, y, 0, c)
			}
		})
	}
}

func BenchmarkGram(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a, c := general(rnd, 20000, 262, 0), general(rnd, 262, 262, 0)
	b.Run("20000x262/dense", func(b *testing.B) {
		for b.Loop() {
			Gram(1, a, 0, c)
		}
	})
	b.Run("20000x262/gonumSyrk", func(b *testing.B) {
		for b.Loop() {
			blas64.Syrk(blas.Trans, 1, a, 0, blas64.Symmetric{Uplo: blas.Upper, N: 262, Stride: 262, Data: c.Data})
		}
	})
}
