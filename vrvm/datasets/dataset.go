package datasets

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Dataset is a supervised data set: N examples of D real inputs and one
// real target each.
//
// Row n of X is the input vector xₙ and T[n] its target tₙ. For the
// classification sets the targets are the class labels 0 and 1. Columns
// names the D input columns in the order of the columns of X, and Target
// names the target.
type Dataset struct {
	X       *mat.Dense // N×D inputs, one row per example
	T       []float64  // N targets
	Columns []string   // D input column names
	Target  string     // target column name
}

// Len returns the number of examples N.
func (d *Dataset) Len() int { return len(d.T) }

// Dim returns the number of inputs D.
func (d *Dataset) Dim() int {
	_, c := d.X.Dims()
	return c
}

// Subset returns a new data set holding the listed rows of d, in the order
// given. Rows may repeat. The result shares no memory with d.
//
// Subset panics if rows is empty or holds an index outside [0, d.Len()):
// an empty data set cannot be represented by a mat.Dense, and an index out
// of range is a programmer error, as it is for slices. Loaders that read row
// numbers from files check them before calling Subset.
func (d *Dataset) Subset(rows []int) *Dataset {
	if len(rows) == 0 {
		panic("datasets: Subset of no rows")
	}
	n, dim := d.X.Dims()
	x := mat.NewDense(len(rows), dim, nil)
	t := make([]float64, len(rows))
	for i, r := range rows {
		if r < 0 || r >= n {
			panic(fmt.Sprintf("datasets: Subset row %d out of range [0, %d)", r, n))
		}
		x.SetRow(i, d.X.RawRowView(r))
		t[i] = d.T[r]
	}
	return &Dataset{X: x, T: t, Columns: append([]string(nil), d.Columns...), Target: d.Target}
}

// Exclude returns a new data set holding every row of d that is not listed
// in rows, in their original order; it is the complement of Subset (repeated
// indices are excluded once). Exclude(test) is the training set of a
// train/test split given by the test rows.
//
// Exclude panics, as Subset does, if an index is outside [0, d.Len()) or if
// no row would remain.
func (d *Dataset) Exclude(rows []int) *Dataset {
	n := d.Len()
	drop := make([]bool, n)
	for _, r := range rows {
		if r < 0 || r >= n {
			panic(fmt.Sprintf("datasets: Exclude row %d out of range [0, %d)", r, n))
		}
		drop[r] = true
	}
	keep := make([]int, 0, n)
	for r, dr := range drop {
		if !dr {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		panic("datasets: Exclude leaves no rows")
	}
	return d.Subset(keep)
}
