package datasets

import (
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

func smallDataset() *Dataset {
	return &Dataset{
		X:       mat.NewDense(4, 2, []float64{0, 1, 10, 11, 20, 21, 30, 31}),
		T:       []float64{0, 1, 2, 3},
		Columns: []string{"a", "b"},
		Target:  "y",
	}
}

func TestSubsetExclude(t *testing.T) {
	t.Parallel()
	d := smallDataset()
	s := d.Subset([]int{3, 1, 3})
	if !mat.Equal(s.X, mat.NewDense(3, 2, []float64{30, 31, 10, 11, 30, 31})) || !reflect.DeepEqual(s.T, []float64{3, 1, 3}) {
		t.Errorf("Subset(3, 1, 3) = %v, %v", mat.Formatted(s.X), s.T)
	}
	if !reflect.DeepEqual(s.Columns, d.Columns) || s.Target != "y" {
		t.Errorf("Subset names %q %q, want %q y", s.Columns, s.Target, d.Columns)
	}
	// No shared memory.
	s.X.Set(0, 0, -1)
	s.T[0] = -1
	s.Columns[0] = "z"
	if d.X.At(3, 0) != 30 || d.T[3] != 3 || d.Columns[0] != "a" {
		t.Error("Subset shares memory with its source")
	}

	e := d.Exclude([]int{2, 0, 2})
	if !mat.Equal(e.X, mat.NewDense(2, 2, []float64{10, 11, 30, 31})) || !reflect.DeepEqual(e.T, []float64{1, 3}) {
		t.Errorf("Exclude(2, 0, 2) = %v, %v", mat.Formatted(e.X), e.T)
	}
	if e := d.Exclude(nil); !mat.Equal(e.X, d.X) || !reflect.DeepEqual(e.T, d.T) {
		t.Error("Exclude(nil) is not a copy")
	}
}

func TestSubsetPanics(t *testing.T) {
	t.Parallel()
	d := smallDataset()
	for name, f := range map[string]func(){
		"Subset()":            func() { d.Subset(nil) },
		"Subset(4)":           func() { d.Subset([]int{4}) },
		"Subset(-1)":          func() { d.Subset([]int{-1}) },
		"Exclude(4)":          func() { d.Exclude([]int{4}) },
		"Exclude(everything)": func() { d.Exclude([]int{0, 1, 2, 3}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
