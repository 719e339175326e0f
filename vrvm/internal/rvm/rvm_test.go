package rvm

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// sincDesign returns the design [1 | K] of a Gaussian kernel of width 3
// (the paper's sinc problem) at n evenly spaced inputs on [−10, 10], and
// targets sin(x)/x with a deterministic perturbation.
func sincDesign(n int) (*mat.Dense, []float64) {
	x := make([]float64, n)
	t := make([]float64, n)
	for i := range n {
		x[i] = -10 + 20*float64(i)/float64(n-1)
		t[i] = 0.1 * math.Sin(7.3*float64(i))
		if x[i] != 0 {
			t[i] += math.Sin(x[i]) / x[i]
		} else {
			t[i]++
		}
	}
	phi := mat.NewDense(n, n+1, nil)
	for i := range n {
		phi.Set(i, 0, 1)
		for j := range n {
			d := x[i] - x[j]
			phi.Set(i, j+1, math.Exp(-d*d/(2*9)))
		}
	}
	return phi, t
}

// explicit returns the explicit Design of phi (B = Φᵀ, U = I).
func explicit(phi *mat.Dense) *Design {
	_, m := phi.Dims()
	cols := make([]int, m)
	for i := range cols {
		cols[i] = i
	}
	return &Design{B: mat.DenseCopyOf(phi.T()), Cols: cols, Explicit: true}
}

func settings() Settings {
	return Settings{Alpha0: 1, PruneAt: 1e12, MaxIter: 1000, Tol: 1e-6}
}

// TestSequentialAndSchedule fits the sinc problem by both algorithms: both
// converge to a sparse model whose evidence, β and posterior are
// consistent, the sequential algorithm's evidence never falls, and its
// active functions come in increasing order.
func TestSequentialAndSchedule(t *testing.T) {
	t.Parallel()
	phi, tv := sincDesign(60)
	lik := Likelihood{T: tv, Beta0: 1 / variance(tv)}
	seqRes, err := Sequential(context.Background(), explicit(phi), lik, settings())
	if err != nil {
		t.Fatal(err)
	}
	schRes, err := Schedule(context.Background(), phi, lik, settings())
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]Result{"Sequential": seqRes, "Schedule": schRes} {
		k := len(res.Cols)
		if res.Status != engine.Done || k == 0 || k > 20 {
			t.Errorf("%s: status %v, %d active functions", name, res.Status, k)
		}
		if len(res.Alpha) != k || len(res.Mu) != k || res.Sigma.SymmetricDim() != k || !(res.Beta > 0) {
			t.Errorf("%s: %d functions, %d αₘ, %d μₘ, Σ of %d, β %v", name, k, len(res.Alpha), len(res.Mu), res.Sigma.SymmetricDim(), res.Beta)
		}
		for i := 1; i < k; i++ {
			if res.Cols[i] <= res.Cols[i-1] {
				t.Errorf("%s: active functions %v not increasing", name, res.Cols)
			}
		}
		t.Logf("%s: %v after %d iterations, %d active, log evidence %.6g, β %.4g", name, res.Status, res.Iters, k, res.Trace[len(res.Trace)-1], res.Beta)
		if res.Iters != len(res.Trace) {
			t.Errorf("%s: %d iterations, %d evidence values", name, res.Iters, len(res.Trace))
		}
	}
	tr := seqRes.Trace
	for i := 1; i < len(tr); i++ {
		if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i-1]) {
			t.Errorf("Sequential: evidence fell from %v to %v at iteration %d", tr[i-1], tr[i], i)
		}
	}
	if a, b := seqRes.Trace[len(seqRes.Trace)-1], schRes.Trace[len(schRes.Trace)-1]; math.Abs(a-b) > 0.05*math.Abs(b) {
		t.Errorf("log evidence: Sequential %v, Schedule %v", a, b)
	}
}

// TestLogistic fits labels by both algorithms.
func TestLogistic(t *testing.T) {
	t.Parallel()
	phi, tv := sincDesign(60)
	labels := make([]float64, len(tv))
	for i, v := range tv {
		if v > 0.2 {
			labels[i] = 1
		}
	}
	lik := Likelihood{T: labels, Logistic: true}
	for name, fit := range map[string]func() (Result, error){
		"Sequential": func() (Result, error) { return Sequential(context.Background(), explicit(phi), lik, settings()) },
		"Schedule":   func() (Result, error) { return Schedule(context.Background(), phi, lik, settings()) },
	} {
		res, err := fit()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Cols) == 0 || len(res.Trace) == 0 || res.Beta != 0 {
			t.Errorf("%s: %d active functions, %d iterations, β %v", name, len(res.Cols), len(res.Trace), res.Beta)
		}
	}
}

// TestZeroBasis requires ErrZeroBasis from Sequential on a zero design,
// and a cancelled Schedule to end before its first iteration.
func TestZeroBasis(t *testing.T) {
	t.Parallel()
	phi := mat.NewDense(5, 3, nil)
	tv := []float64{1, 2, 3, 4, 6}
	_, err := Sequential(context.Background(), explicit(phi), Likelihood{T: tv, Beta0: 1}, settings())
	if !errors.Is(err, ErrZeroBasis) {
		t.Errorf("zero design: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, tv := sincDesign(20)
	res, err := Schedule(ctx, p, Likelihood{T: tv, Beta0: 1}, settings())
	if err != nil || res.Status != engine.Canceled || len(res.Trace) != 0 {
		t.Errorf("cancelled: error %v, status %v, %d iterations", err, res.Status, len(res.Trace))
	}
}
