package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGaussRows compares GaussRows with the pairwise exp(s‖x − c‖²) of
// the math package, to 5e-16 relative plus the rounding of the argument
// (|v|·2⁻⁵²), on odd numbers of centres and inputs, arguments from 0 to
// beyond the underflow, and checks the symmetry to the bit.
func TestGaussRows(t *testing.T) {
	if cpuLevel() < avx512 {
		if GaussRows(nil, 0, nil, 0, 1, 1, nil, 0, 1, -1, nil) {
			t.Fatal("GaussRows without AVX-512 reported values")
		}
		t.Skip("no AVX-512")
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][3]int{{1, 1, 1}, {3, 8, 2}, {5, 17, 8}, {9, 33, 3}, {4, 1001, 8}} {
		n, m, d := sh[0], sh[1], sh[2]
		for _, s := range []float64{-1e-3, -0.3, -4, -400} {
			x := make([]float64, n*d)
			c := make([]float64, m*d)
			for i := range x {
				x[i] = 3 * rnd.NormFloat64()
			}
			for i := range c {
				c[i] = 3 * rnd.NormFloat64()
			}
			mp := roundUp(m, 8)
			ct := make([]float64, d*mp)
			for j := range m {
				for l := range d {
					ct[l*mp+j] = c[j*d+l]
				}
			}
			out := make([]float64, n*m)
			if !GaussRows(out, m, x, d, n, d, ct, mp, m, s, make([]float64, mp)) {
				t.Fatal("GaussRows reported no values")
			}
			for i := range n {
				for j := range m {
					var d2 float64
					for l := range d {
						e := x[i*d+l] - c[j*d+l]
						d2 = math.FMA(e, e, d2)
					}
					v := s * d2
					want := math.Exp(v)
					got := out[i*m+j]
					if math.Abs(got-want) > (5e-16+math.Abs(v)*0x1p-52)*want || want == 0 && got != 0 {
						t.Fatalf("n=%d m=%d d=%d s=%v: (%d,%d) = %v, want %v (v = %v)", n, m, d, s, i, j, got, want, v)
					}
				}
			}
			// Symmetry: the centres as inputs and the inputs as centres.
			nt := roundUp(n, 8)
			xt := make([]float64, d*nt)
			for i := range n {
				for l := range d {
					xt[l*nt+i] = x[i*d+l]
				}
			}
			back := make([]float64, m*n)
			GaussRows(back, n, c, d, m, d, xt, nt, n, s, make([]float64, nt))
			for i := range n {
				for j := range m {
					if back[j*n+i] != out[i*m+j] {
						t.Fatalf("(%d,%d): %v one way, %v the other", i, j, out[i*m+j], back[j*n+i])
					}
				}
			}
		}
	}
}
