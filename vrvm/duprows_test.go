package vrvm

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestRepeatedRows: rows that repeat an earlier row, inputs and target,
// are fitted once (D1): the fit is the fit of the distinct rows, its
// relevance vectors are rows of the data given, and Duplicates counts
// the rows left out. Fitted as well (KeepDuplicates), they pull the
// noise estimate far below the truth.
func TestRepeatedRows(t *testing.T) {
	t.Parallel()
	d, err := datasets.Friedman1(300, 10, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	n, p := d.X.Dims()
	// Rows 0, 2, 4, … of the first 240 again, interleaved after the data.
	x := mat.NewDense(n+120, p, nil)
	y := make([]float64, n+120)
	x.Slice(0, n, 0, p).(*mat.Dense).Copy(d.X)
	copy(y, d.T)
	for i := range 120 {
		x.SetRow(n+i, d.X.RawRowView(2*i))
		y[n+i] = d.T[2*i]
	}
	once := &Regressor{}
	if err := once.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if once.Duplicates() != 120 {
		t.Errorf("Duplicates %d, want 120", once.Duplicates())
	}
	distinct := &Regressor{}
	if err := distinct.Fit(d.X, d.T); err != nil {
		t.Fatal(err)
	}
	if distinct.Duplicates() != 0 {
		t.Errorf("Duplicates %d on distinct rows", distinct.Duplicates())
	}
	if a, b := once.FullModelBound(), distinct.FullModelBound(); a != b {
		t.Errorf("bound %v with the repeats, %v on the distinct rows", a, b)
	}
	ra, rb := once.RelevanceVectors(), distinct.RelevanceVectors()
	if len(ra) != len(rb) {
		t.Fatalf("%d relevance vectors with the repeats, %d on the distinct rows", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i] != rb[i] { // the distinct rows come first, in order
			t.Errorf("relevance vector %d: row %d, want %d", i, ra[i], rb[i])
		}
	}
	// Every row, at the width of (W4) alone: (W5), which doubles the
	// width of a fit whose γ exceeds half the rows, hides part of the
	// damage (checked below).
	keepAll := func(widen bool) *Regressor {
		r := &Regressor{KeepDuplicates: true, ctl: controls{noWiden: !widen}}
		if err := r.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		return r
	}
	all, widened := keepAll(false), keepAll(true)
	if all.Duplicates() != 0 {
		t.Errorf("KeepDuplicates: Duplicates %d", all.Duplicates())
	}
	t.Logf("noise sd: distinct rows %.4g, every row %.4g (truth 1); with (W5) %.4g, %d doublings", once.NoiseSD(), all.NoiseSD(), widened.NoiseSD(), widened.WidthDoublings())
	if widened.WidthDoublings() < 1 || !(math.Abs(math.Log(widened.NoiseSD())) < math.Abs(math.Log(all.NoiseSD()))) {
		t.Errorf("every row fitted with (W5): %d doublings, noise sd %g (without: %g)", widened.WidthDoublings(), widened.NoiseSD(), all.NoiseSD())
	}
	if sd := once.NoiseSD(); math.Abs(sd-1) > 0.3 {
		t.Errorf("noise sd %g, want about 1", sd)
	}
	if sd := all.NoiseSD(); sd > 0.5*once.NoiseSD() {
		t.Errorf("every row fitted: noise sd %g, want far below the distinct rows' %g (the test no longer shows why (D1))", sd, once.NoiseSD())
	}
	// A repeated input with another target is a measurement, and is kept.
	y2 := append([]float64(nil), y...)
	y2[n] += 0.5
	two := &Regressor{}
	if err := two.Fit(x, y2); err != nil {
		t.Fatal(err)
	}
	if two.Duplicates() != 119 {
		t.Errorf("Duplicates %d with one repeat's target changed, want 119", two.Duplicates())
	}
}

// TestRepeatedRowsBadData: a NaN in a repeated row is reported at its row
// in the data given.
func TestRepeatedRowsBadData(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(6, 1, []float64{0, 1, 0, 2, 3, math.NaN()})
	y := []float64{1, 2, 1, 3, 4, 5}
	err := (&Regressor{Kernel: Gaussian{Width: 1}}).Fit(x, y)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Row != 5 {
		t.Errorf("error %v, want a NaN at row 5", err)
	}
}
