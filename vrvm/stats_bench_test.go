package vrvm

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkStatsPass measures the statistics pass of a streamed fit on a
// block of 4,096 rows of 8 inputs with C = 1,000 centres (vrvm fit
// -stream's shape): "gram" is Stats.AddRows alone, whose ΦᵀΦ is the
// project's dense Gram (compare its GFLOP/s with internal/dense's
// BenchmarkGram in the same run), "design" the kernel evaluation
// Basis.Design, and "class" ClassStats.AddRows on a second pass (ξ from a
// posterior of 50 functions).
func BenchmarkStatsPass(b *testing.B) {
	const (
		rows = 4096
		d    = 8
		c    = 1000
	)
	rng := rand.New(rand.NewPCG(1, 46))
	rnd := func(r, k int) *mat.Dense {
		m := mat.NewDense(r, k, nil)
		for i := range r {
			for j := range k {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	x, centres := rnd(rows, d), rnd(c, d)
	t := make([]float64, rows)
	for i := range t {
		t[i] = float64(i % 2)
	}
	basis := Basis{Kernel: Gaussian{Width: 3}, Centres: centres}
	phi, err := basis.Design(x)
	if err != nil {
		b.Fatal(err)
	}
	dim := basis.Dim()
	flops := float64(rows) * float64(dim) * float64(dim+1) // 2 flops per multiply–add, upper triangle
	b.Run("gram", func(b *testing.B) {
		s := NewStats(dim)
		for b.Loop() {
			if err := s.AddRows(phi, t); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("design", func(b *testing.B) {
		for b.Loop() {
			if _, err := basis.Design(x); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("class", func(b *testing.B) {
		cols := make([]int, 50)
		mu := make([]float64, 50)
		sig := mat.NewSymDense(50, nil)
		for i := range cols {
			cols[i], mu[i] = 20*i, rng.NormFloat64()
			sig.SetSym(i, i, 0.1)
		}
		s := newClassStats(dim, 2, 1, cols, mu, sig)
		for b.Loop() {
			if err := s.AddRows(phi, t); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
