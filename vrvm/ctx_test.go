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
	// Not parallel: it measures how soon a cancelled fit returns, which
	// tests running beside it on a loaded machine would lengthen.
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
		{"paper schedule, slow kernel (design)", &Regressor{Kernel: slowKernel{3}, Method: PaperSchedule{}}},
		{"sequential solver, slow kernel (pivoted Cholesky)", &Regressor{Kernel: slowKernel{3}}},
		{"newton solver, slow kernel (pivoted Cholesky)", &Regressor{Kernel: slowKernel{3}, Method: Newton{}}},
		{"paper schedule, Gaussian (Gram matrix)", &Regressor{Kernel: Gaussian{Width: 3}, Method: PaperSchedule{}}},
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

// TestGramBlocks checks the row-blocked ΦᵀΦ of a large design against
// SymOuterK, and that a cancelled context stops it.
func TestGramBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	phi := mat.NewDense(blockedMin+70, 40, nil)
	for i := range blockedMin + 70 {
		for j := range 40 {
			phi.Set(i, j, rng.NormFloat64())
		}
	}
	y := make([]float64, blockedMin+70)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	s, err := newScheduleStateContext(context.Background(), phi, newGaussLik(y, Prior{C: 1, D: 1}, 1), Prior{A: 1, B: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.SymDense
	want.SymOuterK(1, phi.T())
	if !mat.EqualApprox(s.gram, &want, 1e-10) {
		t.Error("blocked ΦᵀΦ differs from SymOuterK")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newScheduleStateContext(ctx, phi, newGaussLik(y, Prior{C: 1, D: 1}, 1), Prior{A: 1, B: 1}, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
