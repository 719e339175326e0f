package vrvm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// slowKernel is a Gaussian kernel that takes about a microsecond per
// evaluation, as an interpreted kernel function does.
type slowKernel struct{ width float64 }

func (k slowKernel) Eval(x, y []float64) float64 {
	t := time.Now()
	for time.Since(t) < time.Microsecond {
	}
	return Gaussian{Width: k.width}.Eval(x, y)
}

// TestContextReachesSetUp: a fit stopped during the design columns, the
// pivoted Cholesky or ΦᵀΦ returns soon after the context is cancelled.
func TestContextReachesSetUp(t *testing.T) {
	const n = 1500
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		v := 20*rng.Float64() - 10
		x.Set(i, 0, v)
		y[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
	}
	for _, c := range []struct {
		name string
		r    *Regressor
	}{
		{"paper schedule, slow kernel (design)", &Regressor{Kernel: slowKernel{3}, Solver: PaperSchedule}},
		{"fast solver, slow kernel (design)", &Regressor{Kernel: slowKernel{3}}},
		{"paper schedule, Gaussian (Gram matrix)", &Regressor{Kernel: Gaussian{Width: 3}, Solver: PaperSchedule}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- c.r.FitContext(ctx, x, y) }()
		time.Sleep(150 * time.Millisecond)
		t0 := time.Now()
		cancel()
		err := <-done
		if lat := time.Since(t0); lat > 500*time.Millisecond {
			t.Errorf("%s: returned %v after the cancellation", c.name, lat)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", c.name, err)
		}
	}
}

func TestGramCtx(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, dims := range [][2]int{{0, 0}, {1, 1}, {5, 70}, {70, 5}, {40, 65}} {
		phi := mat.NewDense(max(dims[0], 1), max(dims[1], 1), nil)
		if dims[0] > 0 {
			for i := range dims[0] {
				for j := range dims[1] {
					phi.Set(i, j, rng.NormFloat64())
				}
			}
		}
		g, err := gramCtx(context.Background(), phi)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.SymDense
		want.SymOuterK(1, phi.T())
		if !mat.EqualApprox(g, &want, 1e-12) {
			t.Errorf("%v: gramCtx differs from ΦᵀΦ", dims)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := gramCtx(ctx, mat.NewDense(3, 3, nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
