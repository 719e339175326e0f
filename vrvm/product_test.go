package vrvm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

func prodDense(rnd *rand.Rand, r, c int) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = rnd.NormFloat64()
	}
	return mat.NewDense(r, c, d)
}

// closeTo fails unless got and want agree to 1e-12 relative to the
// largest entry of want.
func closeTo(t *testing.T, name string, got, want mat.Matrix) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: %d × %d, want %d × %d", name, gr, gc, r, c)
	}
	s := mat.Norm(want, math.Inf(1)) + 1
	for i := range r {
		for j := range c {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-12*s || math.IsNaN(got.At(i, j)) {
				t.Fatalf("%s: [%d,%d] = %v, want %v", name, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

// TestProductMul compares mul with mat.Dense.Mul: transposes, views, and
// dst sharing storage with an operand.
func TestProductMul(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 2}, {13, 7, 30}, {9, 9, 9}, {30, 30, 30}, {40, 41, 39}, {70, 9, 65}} {
		m, k, n := sh[0], sh[1], sh[2]
		a, b := prodDense(rnd, m, k), prodDense(rnd, k, n)
		at, bt := mat.DenseCopyOf(a.T()), mat.DenseCopyOf(b.T())
		var want mat.Dense
		want.Mul(a, b)
		for _, c := range []struct {
			name string
			a, b mat.Matrix
		}{{"NN", a, b}, {"TN", at.T(), b}, {"NT", a, bt.T()}, {"TT", at.T(), bt.T()}} {
			var got mat.Dense
			mul(&got, c.a, c.b)
			closeTo(t, fmt.Sprintf("%s %v", c.name, sh), &got, &want)
		}
		// Views with strides larger than their widths.
		big := prodDense(rnd, m+3, k+4)
		av := big.Slice(1, m+1, 2, k+2).(*mat.Dense)
		av.Copy(a)
		out := prodDense(rnd, m+2, n+5)
		dv := out.Slice(1, m+1, 3, n+3).(*mat.Dense)
		before := mat.DenseCopyOf(out)
		mul(dv, av, b)
		closeTo(t, fmt.Sprintf("views %v", sh), dv, &want)
		for i := range m + 2 {
			for j := range n + 5 {
				if (i < 1 || i > m || j < 3 || j >= n+3) && out.At(i, j) != before.At(i, j) {
					t.Fatalf("views %v: element [%d,%d] outside dst written", sh, i, j)
				}
			}
		}
		if m == k && k == n {
			// dst = a, dst = b.
			d := mat.DenseCopyOf(a)
			mul(d, d, b)
			closeTo(t, fmt.Sprintf("dst=a %v", sh), d, &want)
			d = mat.DenseCopyOf(b)
			mul(d, a, d)
			closeTo(t, fmt.Sprintf("dst=b %v", sh), d, &want)
			d = mat.DenseCopyOf(a)
			var sq mat.Dense
			sq.Mul(a, a.T())
			mul(d, d, d.T())
			closeTo(t, fmt.Sprintf("dst=a=bᵀ %v", sh), d, &sq)
		}
	}
}

// TestProductMulTri compares mulTri with y·T for the four kinds of
// triangle, the other triangle and (with Unit) the diagonal holding
// garbage that must not be read.
func TestProductMulTri(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][2]int{{1, 1}, {5, 3}, {17, 13}, {60, 41}} {
		n, m := sh[0], sh[1]
		y := prodDense(rnd, n, m)
		for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, diag := range []blas.Diag{blas.NonUnit, blas.Unit} {
				raw := prodDense(rnd, m, m)
				tri := blas64.Triangular{Uplo: uplo, Diag: diag, N: m, Stride: m, Data: raw.RawMatrix().Data}
				ref := mat.NewDense(m, m, nil)
				for i := range m {
					for j := range m {
						switch {
						case i == j && diag == blas.Unit:
							ref.Set(i, j, 1)
						case i == j, uplo == blas.Upper && j > i, uplo == blas.Lower && j < i:
							ref.Set(i, j, raw.At(i, j))
						}
					}
				}
				var want mat.Dense
				want.Mul(y, ref)
				name := fmt.Sprintf("%v %v %v", sh, uplo, diag)
				closeTo(t, name, vec.MulTri(nil, y, tri), &want)
				yc := mat.DenseCopyOf(y)
				closeTo(t, name+" dst=y", vec.MulTri(yc, yc, tri), &want)
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("mulTri: no panic on a triangle of the wrong size")
			}
		}()
		vec.MulTri(nil, prodDense(rnd, 4, 3), blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: 4, Stride: 4, Data: make([]float64, 16)})
	}()
}

// TestProductGram compares gramBlocks with aᵀa.
func TestProductGram(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][2]int{{1, 1}, {7, 3}, {100, 13}, {3000, 15}, {500, 70}} {
		a := prodDense(rnd, sh[0], sh[1])
		var want mat.Dense
		want.Mul(a.T(), a)
		closeTo(t, fmt.Sprint(sh), vec.GramBlocks(a), &want)
	}
}
