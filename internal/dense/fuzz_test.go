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

// FuzzGemm compares Gemm (and Gram, for gram) with gonum's blas64 on
// shapes up to 40, both transposes, several alpha and beta, strided
// operands with guard values around c's storage, on the packed path (acc,
// with the AVX2 or AVX-512 micro-kernel where the processor has it) or
// the fallback, and with split (a low
// parallel threshold and four goroutines) the parallel split.
func FuzzGemm(f *testing.F) {
	f.Add(uint8(6), uint8(8), uint8(4), false, false, uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint64(1), true, false, false)
	f.Add(uint8(13), uint8(17), uint8(5), true, false, uint8(1), uint8(2), uint8(1), uint8(2), uint8(3), uint64(2), true, false, false)
	f.Add(uint8(7), uint8(9), uint8(1), false, true, uint8(2), uint8(1), uint8(2), uint8(0), uint8(1), uint64(3), true, true, false)
	f.Add(uint8(40), uint8(33), uint8(40), true, true, uint8(3), uint8(3), uint8(0), uint8(1), uint8(2), uint64(4), true, true, false)
	f.Add(uint8(15), uint8(15), uint8(30), false, false, uint8(0), uint8(0), uint8(1), uint8(1), uint8(1), uint64(5), true, true, true)
	f.Add(uint8(9), uint8(23), uint8(2), false, false, uint8(4), uint8(4), uint8(1), uint8(1), uint8(5), uint64(6), false, false, false)
	alphas := []float64{1, -1, 0.5, 2.5, 0, -0.75, 1e-3}
	betas := []float64{0, 1, -0.5, 2, 0.25, 0, 1}
	f.Fuzz(func(t *testing.T, m8, n8, k8 uint8, ta, tb bool, ai, bi, pa, pb, pc uint8, seed uint64, acc, split, gram bool) {
		m, n, k := int(m8%41), int(n8%41), int(k8%41)
		tA, tB := blas.NoTrans, blas.NoTrans
		if ta {
			tA = blas.Trans
		}
		if tb {
			tB = blas.Trans
		}
		alpha, beta := alphas[int(ai)%len(alphas)], betas[int(bi)%len(betas)]
		// acc: the AVX2 or (where the processor has it) the AVX-512
		// micro-kernel, as the seed says.
		e := products{level: portable, parallelWork: host.parallelWork}
		if acc {
			e.level = min(cpuLevel(), avx2+level(seed%2))
		}
		if split {
			e.parallelWork = 64
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
		}
		rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		if gram {
			// Gram: a is k × n, c is n × n.
			a := guarded(rnd, k, n, int(pa%4), int(pb%5))
			c := guarded(rnd, n, n, int(pc%4), 3)
			mirror(c)
			if beta == 0 && n > 0 {
				c.Data[0] = math.NaN()
			}
			want := clone(c)
			if beta == 0 && n > 0 {
				want.Data[0] = 0
			}
			blas64.Gemm(blas.Trans, blas.NoTrans, alpha, a, a, beta, want)
			mag := magnitude(blas.Trans, blas.NoTrans, alpha, a, a, beta, c)
			e.gram(alpha, a, beta, c)
			name := fmt.Sprintf("Gram k=%d n=%d α=%v β=%v acc=%v split=%v", k, n, alpha, beta, e.level, split)
			checkGuards(t, name, c)
			compare(t, name, c, want, mag, c)
			return
		}
		ar, ac := m, k
		if ta {
			ar, ac = k, m
		}
		br, bc := k, n
		if tb {
			br, bc = n, k
		}
		a := guarded(rnd, ar, ac, int(pa%4), int(pa%3))
		b := guarded(rnd, br, bc, int(pb%4), int(pb%3))
		c := guarded(rnd, m, n, int(pc%4), 1+int(pc%5))
		if beta == 0 && m*n > 0 {
			c.Data[rnd.IntN(m)*c.Stride+rnd.IntN(n)] = math.NaN()
		}
		want := clone(c)
		if beta == 0 {
			for i, v := range want.Data {
				if math.IsNaN(v) {
					want.Data[i] = 0
				}
			}
		}
		blas64.Gemm(tA, tB, alpha, a, b, beta, want)
		mag := magnitude(tA, tB, alpha, a, b, beta, c)
		e.gemm(tA, tB, alpha, a, b, beta, c)
		name := fmt.Sprintf("%v%v m=%d n=%d k=%d α=%v β=%v acc=%v split=%v", tA, tB, m, n, k, alpha, beta, e.level, split)
		checkGuards(t, name, c)
		compare(t, name, c, want, mag, c)
		for _, g := range []blas64.General{a, b} {
			checkGuards(t, name+" (operand)", g)
		}
	})
}
