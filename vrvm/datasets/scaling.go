package datasets

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Scaling is the standardisation of input columns: each column j is mapped
// to (x − Mean[j])/SD[j], mean 0 and standard deviation 1 over the rows it
// was computed from. Compute it on the training rows (NewScaling) and
// apply the same Scaling to the training rows and to every row predicted
// (Apply), as vrvm fit does with its -standardize default: then one kernel
// width suits every column, and the library's default widths, which start
// from the distances between the inputs, see every input on one scale.
type Scaling struct {
	Mean []float64 // column means
	// SD holds the columns' population standard deviations, or 1 for a
	// column with one value in every row (only centred: see Constant).
	SD []float64
	// constant marks the columns whose standard deviation was 0.
	constant []bool
}

// ErrOutOfRange is returned (wrapped, with the row and column) by
// Scaling.Apply for a value whose standardised value overflows float64.
var ErrOutOfRange = errors.New("standardised value out of float64's range")

// ErrNonFinite is returned (wrapped, with the row and column) by
// NewScaling and Scaling.Apply for an input that is NaN or infinite.
var ErrNonFinite = errors.New("value is NaN or infinite")

// NewScaling returns the Scaling of the columns of x: their means and
// population standard deviations. Columns of any finite scale are
// standardised alike: deviations whose squares would leave float64's
// normal range (beyond 1e150 or below 1e-150) are summed divided by the
// column's largest deviation. It returns an error if x has no rows or
// columns, or holds a value that is NaN or infinite (wrapping
// ErrNonFinite, naming its row and column, 0-based).
func NewScaling(x mat.Matrix) (*Scaling, error) {
	if x == nil {
		return nil, errors.New("datasets: NewScaling of a nil matrix")
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("datasets: NewScaling of a %d×%d matrix: need at least one row and one column", n, d)
	}
	if err := checkFinite("NewScaling", x); err != nil {
		return nil, err
	}
	s := &Scaling{Mean: make([]float64, d), SD: make([]float64, d), constant: make([]bool, d)}
	for j := range d {
		s.Mean[j], s.SD[j] = meanSD(x, j)
		if s.SD[j] == 0 {
			s.SD[j], s.constant[j] = 1, true
		}
	}
	return s, nil
}

// meanSD returns the mean and population standard deviation of column j
// of x, whose values are finite. A column whose largest |x| is beyond
// sdSafe is summed divided by it (its sums and deviations would
// overflow), and deviations from the mean below 1/sdSafe are squared
// divided by the largest of them (their squares would underflow); other
// columns are summed plainly.
func meanSD(x mat.Matrix, j int) (mean, sd float64) {
	n, _ := x.Dims()
	var big float64
	for i := range n {
		big = math.Max(big, math.Abs(x.At(i, j)))
	}
	s1 := 1.0
	if big > sdSafe {
		s1 = big
	}
	for i := range n {
		mean += x.At(i, j) / s1
	}
	mean /= float64(n)
	var top float64
	for i := range n {
		top = math.Max(top, math.Abs(x.At(i, j)/s1-mean))
	}
	if top == 0 {
		return mean * s1, 0
	}
	s2 := 1.0
	if top < 1/sdSafe {
		s2 = top
	}
	for i := range n {
		v := (x.At(i, j)/s1 - mean) / s2
		sd += v * v
	}
	return mean * s1, s1 * s2 * math.Sqrt(sd/float64(n))
}

// sdSafe bounds the values and deviations that meanSD sums and squares
// without scaling: their squares stay within the normal range of float64.
const sdSafe = 1e150

// Constant returns the indices of the columns that had one value in every
// row NewScaling saw: they are only centred (SD 1), and a model fitted on
// them learns nothing from them.
func (s *Scaling) Constant() []int {
	var out []int
	for j, c := range s.constant {
		if c {
			out = append(out, j)
		}
	}
	return out
}

// Apply returns (x − Mean)/SD column by column as a new matrix. It returns
// an error if x's number of columns is not len(Mean), if x holds a value
// that is NaN or infinite (wrapping ErrNonFinite), or one whose
// standardised value overflows float64 (wrapping ErrOutOfRange), naming
// its row and column.
func (s *Scaling) Apply(x mat.Matrix) (*mat.Dense, error) {
	if x == nil {
		return nil, errors.New("datasets: Scaling.Apply to a nil matrix")
	}
	n, d := x.Dims()
	if d != len(s.Mean) || d != len(s.SD) {
		return nil, fmt.Errorf("datasets: Scaling.Apply to %d columns, scaling of %d", d, len(s.Mean))
	}
	if err := checkFinite("Scaling.Apply", x); err != nil {
		return nil, err
	}
	out := mat.NewDense(n, d, nil)
	for i := range n {
		row := out.RawRowView(i)
		for j := range d {
			v := x.At(i, j)
			z := (v - s.Mean[j]) / s.SD[j]
			if math.IsInf(z, 0) { // v − Mean overflowed, or z does
				z = v/s.SD[j] - s.Mean[j]/s.SD[j]
			}
			if math.IsInf(z, 0) || math.IsNaN(z) {
				return nil, fmt.Errorf("datasets: Scaling.Apply: row %d, column %d: %v is %v standard deviations from the mean %v: %w", i, j, v, z, s.Mean[j], ErrOutOfRange)
			}
			row[j] = z
		}
	}
	return out, nil
}

// ApplyTo returns a copy of d with its inputs standardised by s (Apply);
// the targets and names are copied unchanged.
func (s *Scaling) ApplyTo(d *Dataset) (*Dataset, error) {
	x, err := s.Apply(d.X)
	if err != nil {
		return nil, err
	}
	return &Dataset{X: x, T: append([]float64(nil), d.T...), Columns: append([]string(nil), d.Columns...), Target: d.Target}, nil
}

// checkFinite returns an error naming the first non-finite value of x.
func checkFinite(op string, x mat.Matrix) error {
	n, d := x.Dims()
	for i := range n {
		for j := range d {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("datasets: %s: row %d, column %d: %v: %w", op, i, j, v, ErrNonFinite)
			}
		}
	}
	return nil
}
