package posterior

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// TestCrossKernels checks design.CrossProducts and QuadForms against mat's
// products on random matrices of several shapes (row lengths across
// design.CrossChunk, column counts across QuadBlock, rows across QuadGemmMin).
func TestCrossKernels(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	rnd := rand.New(rand.NewPCG(1, 1))
	randDense := func(r, c int) *mat.Dense {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rnd.NormFloat64()
		}
		return mat.NewDense(r, c, d)
	}
	for _, sz := range []struct{ k, p, r int }{{1, 3, 5}, {4, 10, 7}, {7, 300, 4100}, {9, 1030, 50}} {
		t.Run("cross/"+strconv.Itoa(sz.k)+"x"+strconv.Itoa(sz.p)+"x"+strconv.Itoa(sz.r), func(t *testing.T) {
			a, b := randDense(sz.k, sz.r), randDense(sz.p, sz.r)
			rows := make([][]float64, sz.k)
			out := make([][]float64, sz.k)
			for i := range rows {
				rows[i] = a.RawRowView(i)
				out[i] = make([]float64, sz.p)
			}
			design.CrossProducts(rows, b, out, subset.Seq(sz.p))
			var want mat.Dense
			want.Mul(a, b.T())
			for i := range out {
				for j, v := range out[i] {
					if w := want.At(i, j); !scalar.EqualWithinAbsOrRel(v, w, tol, tol) {
						t.Fatalf("(%d,%d): %v, want %v", i, j, v, w)
					}
				}
			}
		})
	}
	for _, sz := range []struct{ m, p int }{{1, 1}, {3, 5}, {20, 255}, {33, 600}, {QuadGemmMin, 100}, {90, 600}} {
		t.Run("quad/"+strconv.Itoa(sz.m)+"x"+strconv.Itoa(sz.p), func(t *testing.T) {
			l := randDense(sz.m, sz.m)
			var sig mat.SymDense
			sig.SymOuterK(1, l)
			c := randDense(sz.m, sz.p)
			out := make([]float64, sz.p)
			for i := range out {
				out[i] = 99 // overwritten
			}
			var work []float64
			QuadForms(sig.RawSymmetric(), c, out, &work)
			for j, v := range out {
				w := mat.Inner(c.ColView(j), &sig, c.ColView(j))
				if !scalar.EqualWithinAbsOrRel(v, w, tol, tol) {
					t.Fatalf("column %d: %v, want %v", j, v, w)
				}
			}
		})
	}
}
