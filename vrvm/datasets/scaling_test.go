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
