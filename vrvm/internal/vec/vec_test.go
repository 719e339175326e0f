package vec

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestProducts checks MulVec and MulTVec against the sums written out,
// on a matrix with more rows than the kernels' blocks of four.
func TestProducts(t *testing.T) {
	t.Parallel()
	const r, c = 11, 5
	a := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			a.Set(i, j, math.Sin(float64(3*i+7*j+1)))
		}
	}
	x, y := make([]float64, c), make([]float64, r)
	for j := range x {
		x[j] = float64(j) - 1.5
	}
	for i := range y {
		y[i] = math.Cos(float64(i))
	}
	ax, aty := make([]float64, r), make([]float64, c)
	MulVec(ax, a, x)
	MulTVec(aty, a, y)
	for i := range r {
		if want := Dot(a.RawRowView(i), x); math.Abs(ax[i]-want) > 1e-13 {
			t.Errorf("(ax)[%d] = %g, want %g", i, ax[i], want)
		}
	}
	for j := range c {
		var want float64
		for i := range r {
			want += a.At(i, j) * y[i]
		}
		if math.Abs(aty[j]-want) > 1e-13 {
			t.Errorf("(aᵀy)[%d] = %g, want %g", j, aty[j], want)
		}
	}
}

func TestSmall(t *testing.T) {
	t.Parallel()
	if got := Sum(Constant(4, 2.5)); got != 10 {
		t.Errorf("Sum(Constant(4, 2.5)) = %g", got)
	}
	if got := MaxRelChange([]float64{2, 0, -4}, []float64{3, 0.25, -4}); got != 0.5 {
		t.Errorf("MaxRelChange = %g, want 0.5", got)
	}
	if got := MaxRelChange([]float64{1}, []float64{1, 2}); !math.IsInf(got, 1) {
		t.Errorf("MaxRelChange of different lengths = %g, want +Inf", got)
	}
}
