package vrvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// The dense products that dominate the solvers' cost go through
// internal/dense (a packed, AVX2/FMA-vectorised, parallel product; gonum
// where the processor lacks AVX2 or FMA) rather than gonum's BLAS.

// mul sets dst = a·b like dst.Mul(a, b), by dense.Mul: by dense.Gemm
// when a and b are *mat.Dense or their transposes, by dst.Mul otherwise.
func mul(dst *mat.Dense, a, b mat.Matrix) { dense.Mul(dst, a, b) }
