package datasets

import (
	"math"
	"testing"
)

func TestFriedman1(t *testing.T) {
	t.Parallel()
	a, err := Friedman1(200, 10, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Friedman1(200, 10, 1, 3)
	if a.Len() != 200 || a.Dim() != 10 || a.Columns[9] != "x10" {
		t.Fatalf("got %d rows × %d inputs, last column %q", a.Len(), a.Dim(), a.Columns[a.Dim()-1])
	}
	var res, lo, hi float64
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range a.Len() {
		if a.T[i] != b.T[i] {
			t.Fatalf("row %d differs between draws with the same seed", i)
		}
		for _, v := range a.X.RawRowView(i) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		r := a.T[i] - Friedman1True(a.X.RawRowView(i))
		res += r * r
	}
	if lo < 0 || hi > 1 {
		t.Errorf("inputs span [%g, %g], want within [0, 1]", lo, hi)
	}
	// The residuals are the N(0, 1) noise: their mean square is 1 within
	// a few standard errors (√(2/200) = 0.1).
	if ms := res / 200; math.Abs(ms-1) > 0.35 {
		t.Errorf("mean squared noise %.3g, want about 1", ms)
	}
	if got := Friedman1True([]float64{0.5, 1, 0.5, 0, 0}); math.Abs(got-10) > 1e-12 {
		t.Errorf("Friedman1True(½, 1, ½, 0, 0) = %g, want 10", got)
	}
	for _, c := range []struct {
		n, d  int
		noise float64
	}{{0, 10, 1}, {10, 4, 1}, {10, 10, -1}, {10, 10, math.NaN()}} {
		if _, err := Friedman1(c.n, c.d, c.noise, 1); err == nil {
			t.Errorf("Friedman1(%d, %d, %g): no error", c.n, c.d, c.noise)
		}
	}
}
