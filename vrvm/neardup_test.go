package vrvm

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSequentialNearDuplicates: training rows that differ from earlier
// ones by 1e-12 (a data set with rows saved twice through a lossy
// conversion) give basis functions equal to within the accuracy of the
// kernel values; the sequential solver treats them as twins, as exact
// duplicates, so that a data set with every row twice converges
// well before the iteration limit (it stalled there: two functions that
// the data cannot tell apart share a weight, and coordinate ascent
// between them crawls), with at most one active function of each pair.
func TestSequentialNearDuplicates(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(120, 5)
	n, _ := x.Dims()
	x2 := mat.NewDense(2*n, 1, nil)
	y2 := make([]float64, 2*n)
	labels2 := make([]float64, 2*n)
	for i := range n {
		x2.Set(i, 0, x.At(i, 0))
		x2.Set(n+i, 0, x.At(i, 0)*(1+1e-12))
		y2[i], y2[n+i] = y[i], y[i]+0.01*float64(i%3-1)
		if y[i] > 0.2 {
			labels2[i], labels2[n+i] = 1, 1
		}
	}
	for _, m := range []Estimator{&Regressor{Kernel: Gaussian{Width: 3}, MaxIter: 2000}, &Classifier{Kernel: Gaussian{Width: 2}, MaxIter: 2000}} {
		tt := pick(m.Task(), y2, labels2)
		if err := m.FitContext(context.Background(), x2, tt); err != nil {
			t.Fatal(err)
		}
		if m.Status() != Converged {
			t.Errorf("%T on near-duplicated rows: %v after %d iterations", m, m.Status(), m.Iterations())
		}
		act := map[int]bool{}
		for _, r := range m.ActiveSet() {
			act[r] = true
		}
		for i := range n {
			if act[i] && act[n+i] {
				t.Errorf("%T: both functions of near-duplicated row %d are active", m, i)
			}
		}
		t.Logf("%T: %v after %d iterations, %d active", m, m.Status(), m.Iterations(), len(act))
	}
}
