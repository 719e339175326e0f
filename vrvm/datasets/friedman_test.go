package datasets

import (
	"math"
	"testing"
)

func TestFriedman1(t *testing.T) {
	d, err := Friedman1(200, 10, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n, c := d.X.Dims(); n != 200 || c != 10 || len(d.Columns) != 10 {
		t.Fatalf("dims %d×%d, %d columns", n, c, len(d.Columns))
	}
	for i, v := range d.T {
		x := d.X.RawRowView(i)
		for _, u := range x {
			if u < 0 || u >= 1 {
				t.Fatalf("row %d: input %v outside [0, 1)", i, u)
			}
		}
		if v != FriedmanTrue(x) {
			t.Fatalf("row %d: noise-free target %v, want %v", i, v, FriedmanTrue(x))
		}
	}
	noisy, err := Friedman1(200, 10, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ss float64
	for i, v := range noisy.T {
		e := v - FriedmanTrue(noisy.X.RawRowView(i))
		ss += e * e
	}
	if sd := math.Sqrt(ss / 200); sd < 0.8 || sd > 1.2 {
		t.Errorf("noise sd %.3f, want about 1", sd)
	}
	for _, c := range []struct {
		n, d  int
		noise float64
	}{{0, 10, 1}, {10, 4, 1}, {10, 10, -1}, {10, 10, math.NaN()}, {10, 10, math.Inf(1)}} {
		if _, err := Friedman1(c.n, c.d, c.noise, 1); err == nil {
			t.Errorf("Friedman1(%d, %d, %v): no error", c.n, c.d, c.noise)
		}
	}
}
