// Package vec holds the small operations on vectors and matrix–vector
// products that the facade and the internal solvers share.
package vec

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// Dot returns Σᵢ xᵢyᵢ over the length of x.
func Dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

// Constant returns a new slice of n copies of v.
func Constant(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// Sum returns Σᵢ vᵢ.
func Sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// MaxRelChange returns maxᵢ |aᵢ − bᵢ| / |aᵢ| (|aᵢ − bᵢ| where aᵢ = 0),
// or +Inf when the lengths differ.
func MaxRelChange(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i, v := range a {
		d := math.Abs(b[i] - v)
		if v != 0 {
			d /= math.Abs(v)
		}
		m = math.Max(m, d)
	}
	return m
}

// MulTVec sets dst = aᵀx (dense.Gemv: four rows per pass, AVX2,
// parallel).
func MulTVec(dst []float64, a *mat.Dense, x []float64) {
	r, c := a.Dims()
	dense.Gemv(blas.Trans, 1, a.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: x}, 0, blas64.Vector{N: c, Inc: 1, Data: dst})
}

// MulVec sets dst = ax.
func MulVec(dst []float64, a *mat.Dense, x []float64) {
	r, c := a.Dims()
	blas64.Gemv(blas.NoTrans, 1, a.RawMatrix(), blas64.Vector{N: c, Inc: 1, Data: x}, 0, blas64.Vector{N: r, Inc: 1, Data: dst})
}

// Resize returns s with length n, reusing its storage where its capacity
// allows (the contents are then s's, not zero).
func Resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
