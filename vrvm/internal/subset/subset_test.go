package subset

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSelect checks every selection against the entries it picks, with
// Cols on both sides of its parallel threshold and keep out of order.
func TestSelect(t *testing.T) {
	t.Parallel()
	for _, n := range []int{5, 3000} {
		a := mat.NewDense(n, 4, nil)
		for i := range n {
			for j := range 4 {
				a.Set(i, j, float64(10*i+j))
			}
		}
		keep := []int{3, 0, 3}
		c := Cols(a, keep)
		if r, k := c.Dims(); r != n || k != 3 {
			t.Fatalf("Cols: %d × %d, want %d × 3", r, k, n)
		}
		for i := range n {
			for j, k := range keep {
				if c.At(i, j) != a.At(i, k) {
					t.Fatalf("Cols(%d): (%d, %d) = %v, want %v", n, i, j, c.At(i, j), a.At(i, k))
				}
			}
		}
		r := Rows(a, []int{n - 1, 1})
		if !slices.Equal(r.RawRowView(0), a.RawRowView(n-1)) || !slices.Equal(r.RawRowView(1), a.RawRowView(1)) {
			t.Fatalf("Rows(%d): %v", n, mat.Formatted(r))
		}
	}
	s := mat.NewSymDense(3, []float64{1, 2, 3, 2, 4, 5, 3, 5, 6})
	g := Sym(s, []int{2, 0})
	if g.At(0, 0) != 6 || g.At(0, 1) != 3 || g.At(1, 1) != 1 {
		t.Errorf("Sym: %v", mat.Formatted(g))
	}
	if v := Vec([]float64{1, 2, 3}, []int{2, 2, 0}); !slices.Equal(v, []float64{3, 3, 1}) {
		t.Errorf("Vec: %v", v)
	}
	if v := Ints([]int{7, 8, 9}, []int{1}); !slices.Equal(v, []int{8}) {
		t.Errorf("Ints: %v", v)
	}
	if v := Seq(4); !slices.Equal(v, []int{0, 1, 2, 3}) {
		t.Errorf("Seq: %v", v)
	}
}
