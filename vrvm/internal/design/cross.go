package design

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// CrossChunk is the length of the pieces of the rows of B over which
// CrossProducts accumulates its dot products, so that the pieces of the
// rows of a stay in cache while every row of B passes.
const CrossChunk = 4096

// CrossProducts adds aₖᵀbⱼ to out[k][j] for the rows aₖ of a and the rows
// bⱼ of b, j in cols, in parallel over cols, four rows of a at a time
// (dense.Dots4: AVX2 and FMA where the processor has them). It replaces
// the Gemm of a Bᵀ, which was slower on the explicit design, as was
// dense.Gemm with its packing of the selected rows of b (docs/benchmarks.md, "Measurements behind choices in the code").
func CrossProducts(a [][]float64, b *mat.Dense, out [][]float64, cols []int) {
	_, r := b.Dims()
	_ = ParallelRange(len(cols), func(clo, chi int) error {
		for lo := 0; lo < r; lo += CrossChunk {
			hi := min(r, lo+CrossChunk)
			for _, j := range cols[clo:chi] {
				bj := b.RawRowView(j)[lo:hi]
				k := 0
				for ; k+4 <= len(a); k += 4 {
					a0, a1, a2, a3 := a[k][lo:hi], a[k+1][lo:hi], a[k+2][lo:hi], a[k+3][lo:hi]
					s0, s1, s2, s3 := dense.Dots4(a0, a1, a2, a3, bj)
					out[k][j] += s0
					out[k+1][j] += s1
					out[k+2][j] += s2
					out[k+3][j] += s3
				}
				for ; k < len(a); k++ {
					out[k][j] += blas64.Dot(blas64.Vector{N: len(bj), Inc: 1, Data: a[k][lo:hi]}, blas64.Vector{N: len(bj), Inc: 1, Data: bj})
				}
			}
		}
		return nil
	})
}
