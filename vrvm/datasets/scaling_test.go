package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestScaling: the means and population standard deviations are gonum's
// (stat.PopMeanStdDev), Apply maps the rows to mean 0 and standard
// deviation 1, a constant column is only centred and listed by Constant,
// and columns of 1e200 and 1e-300 times the same values get the same
// standardised values (their squares leave float64's range).
func TestScaling(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	n := 50
	x := mat.NewDense(n, 5, nil)
	for i := range n {
		v := 3*rnd.NormFloat64() + 7
		x.SetRow(i, []float64{v, 2 - rnd.Float64(), 4.5, 1e200 * v, 1e-300 * v})
	}
	s, err := NewScaling(x)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		m, sd := stat.PopMeanStdDev(mat.Col(nil, j, x), nil)
		if sd == 0 {
			sd = 1
		}
		if !scalar.EqualWithinAbsOrRel(s.Mean[j], m, 1e-13, 1e-13) || !scalar.EqualWithinAbsOrRel(s.SD[j], sd, 1e-13, 1e-13) {
			t.Errorf("column %d: mean %g, sd %g; want %g, %g", j, s.Mean[j], s.SD[j], m, sd)
		}
	}
	if c := s.Constant(); len(c) != 1 || c[0] != 2 {
		t.Errorf("Constant() = %v, want [2]", c)
	}
	z, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 5 {
		m, sd := stat.PopMeanStdDev(mat.Col(nil, j, z), nil)
		wantSD := 1.0
		if j == 2 {
			wantSD = 0
		}
		if math.Abs(m) > 1e-12 || math.Abs(sd-wantSD) > 1e-12 {
			t.Errorf("standardised column %d: mean %g, sd %g; want 0, %g", j, m, sd, wantSD)
		}
	}
	for i := range n {
		for _, j := range []int{3, 4} {
			if d := math.Abs(z.At(i, j) - z.At(i, 0)); d > 1e-10 {
				t.Fatalf("row %d: column %d standardised to %g, the unit column to %g", i, j, z.At(i, j), z.At(i, 0))
			}
		}
	}
	d := &Dataset{X: x, T: make([]float64, n), Columns: []string{"a", "b", "c", "d", "e"}, Target: "y"}
	ds, err := s.ApplyTo(d)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ds.X, z) || ds.Target != "y" || len(ds.Columns) != 5 || ds.X == d.X {
		t.Errorf("ApplyTo: a different result from Apply, or shares d's inputs")
	}
}

// TestScalingErrors: bad input gets an error naming the problem.
func TestScalingErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{1, 2, math.NaN(), 4, 5, 6})
	if _, err := NewScaling(x); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1, column 0") {
		t.Errorf("NaN input: %v", err)
	}
	if _, err := NewScaling(nil); err == nil {
		t.Error("nil matrix accepted")
	}
	if _, err := NewScaling(&mat.Dense{}); err == nil {
		t.Error("empty matrix accepted")
	}
	s, err := NewScaling(mat.NewDense(2, 2, []float64{1, 2, 3, 4}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(mat.NewDense(1, 3, nil)); err == nil || !strings.Contains(err.Error(), "3 columns, scaling of 2") {
		t.Errorf("wrong number of columns: %v", err)
	}
	if _, err := s.Apply(mat.NewDense(1, 2, []float64{0, math.Inf(1)})); !errors.Is(err, ErrNonFinite) {
		t.Errorf("infinite input: %v", err)
	}
	if _, err := s.Apply(nil); err == nil {
		t.Error("nil matrix accepted by Apply")
	}
}

// FuzzScaling: any finite inputs get finite means and positive standard
// deviations, Apply of the training rows gives finite values with mean 0
// and, unless the column is constant, standard deviation 1 (where the
// spread is above the values' rounding and not subnormal), or an error; never a panic, NaN
// or infinity.
func FuzzScaling(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
	f.Add(1.7e308, -1.7e308, 1.7e308, 0.0, 5e-324, -5e-324)
	f.Add(1e-160, 1e-160*(1+1e-15), 1e-160, 1e200, -1e200, 3.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g float64) {
		x := mat.NewDense(3, 2, []float64{a, d, b, e, c, g})
		s, err := NewScaling(x)
		if err != nil {
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("NewScaling: %v", err)
			}
			return
		}
		for j := range 2 {
			if m, sd := s.Mean[j], s.SD[j]; math.IsNaN(m) || math.IsInf(m, 0) || !(sd > 0) || math.IsInf(sd, 0) {
				t.Fatalf("column %d: mean %v, sd %v", j, m, sd)
			}
		}
		z, err := s.Apply(x)
		if err != nil {
			if !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("Apply: %v", err)
			}
			return
		}
		constant := map[int]bool{}
		for _, j := range s.Constant() {
			constant[j] = true
		}
		for j := range 2 {
			col := mat.Col(nil, j, z)
			for _, v := range col {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("standardised column %d: %v", j, col)
				}
			}
			if !constant[j] && (s.SD[j] < 1e-10*math.Abs(s.Mean[j]) || s.SD[j] < 0x1p-1000) {
				// A spread of a few ulps (the mean's rounding is as
				// large), or a subnormal one (SD itself keeps few digits).
				continue
			}
			m, sd := stat.PopMeanStdDev(col, nil)
			want := 1.0
			if constant[j] {
				want = 0
			}
			if math.Abs(m) > 1e-6 || math.Abs(sd-want) > 1e-6 {
				t.Fatalf("column %d %v standardised to %v: mean %g, sd %g; want 0, %g", j, mat.Col(nil, j, x), col, m, sd, want)
			}
		}
	})
}
