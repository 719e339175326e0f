package vrvm_test

import (
	"testing"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// The indices reported for the active set and the relevance vectors are
// training rows whether or not the bias survived pruning.
func TestActiveRowsAfterBiasPruned(t *testing.T) {
	t.Parallel()
	d, err := datasets.Sinc(50, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, tt := d.X, d.T
	for _, noBias := range []bool{false, true} {
		r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, MaxIter: 500, NoBias: noBias}
		if err := r.Fit(x, tt); err != nil {
			t.Fatal(err)
		}
		if !noBias && r.HasBias() {
			t.Fatal("the test needs a fit whose bias is pruned")
		}
		in, rows := r.Inputs(), r.ActiveSet()
		if n, _ := in.Dims(); n != len(rows) || len(r.Mean()) != len(rows) {
			t.Fatalf("%d inputs, %d rows, %d weights", n, len(rows), len(r.Mean()))
		}
		for i, row := range rows {
			if in.At(i, 0) != x.At(row, 0) {
				t.Errorf("noBias=%v: active %d is row %d, x = %g, but its centre is %g", noBias, i, row, x.At(row, 0), in.At(i, 0))
			}
		}
		rv := r.RelevanceVectors()
		for _, row := range rv {
			found := false
			for _, a := range rows {
				found = found || a == row
			}
			if !found {
				t.Errorf("relevance vector %d is not in the active set %v", row, rows)
			}
		}
	}
}
