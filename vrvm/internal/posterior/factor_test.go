package posterior

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestFactorInvMatchesFactor checks that the sequential solver's
// factorisation (FactorInv, SolveMeanInv, PotrsVec, SigmaTo) gives the
// same ln|Σ|, diag Σ, U⁻¹, μ and Σ as Factor, SolveMean and
// Sigma, bit for bit: the sequential fits are sensitive to rounding, and
// these replace the general ones only to save time.
func TestFactorInvMatchesFactor(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 2, 5, 17, 64, 178, 300} {
		a := randomPrecision(m, uint64(m))
		h := make([]float64, m)
		for i := range h {
			h[i] = rnd.NormFloat64()
		}
		var want, got Gauss
		if err := want.Factor(symCopy(a), 0); err != nil {
			t.Fatal(err)
		}
		if err := want.SolveMean(h); err != nil {
			t.Fatal(err)
		}
		if err := got.FactorInv(symCopy(a), 0); err != nil {
			t.Fatal(err)
		}
		if err := got.SolveMeanInv(h); err != nil {
			t.Fatal(err)
		}
		same := func(what string, g, w []float64) {
			t.Helper()
			for i := range w {
				if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
					t.Fatalf("m=%d: %s[%d] = %v, want %v", m, what, i, g[i], w[i])
				}
			}
		}
		same("ln|Σ|", []float64{got.LogDet}, []float64{want.LogDet})
		same("diag Σ", got.Diag, want.Diag)
		same("μ", got.Mu, want.Mu)
		gu, wu := got.Uinv.RawTriangular(), want.Uinv.RawTriangular()
		for i := range m {
			same("U⁻¹", gu.Data[i*gu.Stride+i:i*gu.Stride+m], wu.Data[i*wu.Stride+i:i*wu.Stride+m])
		}
		var bufs [2][]float64
		gs, ws := got.SigmaTo(&bufs), want.Sigma()
		for i := range m {
			for j := i; j < m; j++ {
				same("Σ", []float64{gs.At(i, j)}, []float64{ws.At(i, j)})
			}
		}
	}
}

// TestPotrsVec checks PotrsVec against LAPACK's Dpotrs bit for bit,
// with zeros in the factor (which Dtrsm skips).
func TestPotrsVec(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 2, 5, 17, 64, 178} {
		a := make([]float64, m*m)
		for i := range m {
			for j := i; j < m; j++ {
				a[i*m+j] = rnd.NormFloat64()
				if rnd.IntN(7) == 0 {
					a[i*m+j] = 0
				}
			}
			a[i*m+i] = 1 + math.Abs(a[i*m+i])
		}
		b := make([]float64, m)
		for i := range b {
			b[i] = rnd.NormFloat64()
		}
		want := append([]float64(nil), b...)
		lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: a}, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: want})
		got := append([]float64(nil), b...)
		PotrsVec(a, m, got)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("m=%d: x[%d] = %v, want %v", m, i, got[i], want[i])
			}
		}
	}
}
