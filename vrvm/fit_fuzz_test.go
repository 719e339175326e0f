package vrvm

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzFit fits every estimator to small random data decoded from the
// fuzzer's bytes (1–12 rows, 1–3 columns, arbitrary float64 values, a
// kernel, a solver and options chosen by the bytes): a fit must never
// panic, and a fit without an error must predict finite values at its own
// inputs, or return an error.
func FuzzFit(f *testing.F) {
	f.Add([]byte{3, 1, 0, 0, 0})
	f.Add([]byte{12, 2, 1, 2, 1, 0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64})
	f.Add([]byte{5, 3, 2, 1, 3, 255, 255, 255, 255, 255, 255, 239, 127})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 5 {
			return
		}
		n, d := 1+int(data[0])%12, 1+int(data[1])%3
		kernels := []Kernel{Gaussian{Width: 1}, Gaussian{Width: 0.1}, Polynomial{Degree: 3, Scale: 0.5}, Linear{}, Polynomial{Degree: 50}}
		k := kernels[int(data[2])%len(kernels)]
		solver := []Method{Sequential{}, PaperSchedule{}, Newton{}}[int(data[3])%3]
		noPrune := data[4]&1 == 1
		vals := data[5:]
		next := func(i int) float64 {
			if len(vals) < 8 {
				return float64(i%7) - 3
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(vals[:8]))
			vals = vals[8:]
			return v
		}
		x := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				x.Set(i, j, next(i*d+j))
			}
		}
		t0 := make([]float64, n)
		labels := make([]float64, n)
		for i := range n {
			t0[i] = next(i + 17)
			if t0[i] > 0 {
				labels[i] = 1
			}
		}
		for _, m := range []Estimator{
			&Regressor{Kernel: k, Method: solver, NoPrune: noPrune, MaxIter: 200},
			&Classifier{Kernel: k, Method: solver, NoPrune: noPrune, MaxIter: 200},
			&RVMRegressor{Kernel: k, MaxIter: 200},
			&RVMClassifier{Kernel: k, MaxIter: 200},
		} {
			tt := t0
			if m.Task() == Classification {
				tt = labels
			}
			if err := m.FitContext(context.Background(), x, tt); err != nil {
				if m.Status() != NotFitted {
					t.Fatalf("%T: failed fit (%v) left status %v", m, err, m.Status())
				}
				continue
			}
			checkFinitePredictions(t, m, x)
		}
	})
}
