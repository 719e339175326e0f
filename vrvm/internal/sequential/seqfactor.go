package sequential

import (
	"gonum.org/v1/gonum/blas/blas64"
)

// rowsShared reports whether the rows of B of the active functions are
// read from the full B in place instead of from a copy, B_A: with the
// explicit design and uniform precisions, where B_A is used only for
// products that the rows of B give as well. B_A is M × N there, and with
// its growth by append as much memory again as the N × P design's share
// of M functions, all of it
// live, which the garbage collector lets the heap exceed by as much.
func (s *seqFit) rowsShared() bool { return s.f.Ident && s.uniform() }

// activeProducts sets out[i] = bₐᵀx for the active functions a = act[i]
// and out[M] = xᵀx (the column of G for a function with row x of B, added
// as the last active function).
func (s *seqFit) activeProducts(x, out []float64) {
	v := blas64.Vector{N: len(x), Inc: 1, Data: x}
	for i, a := range s.act {
		out[i] = blas64.Dot(blas64.Vector{N: len(x), Inc: 1, Data: s.f.BFull.RawRowView(a)}, v)
	}
	out[len(s.act)] = blas64.Dot(v, v)
}
