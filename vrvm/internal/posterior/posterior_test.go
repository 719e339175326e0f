package posterior

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomPrecision returns a random symmetric positive definite n × n matrix.
func randomPrecision(n int, seed uint64) *mat.SymDense {
	rnd := rand.New(rand.NewPCG(seed, 3))
	g := mat.NewDense(n+5, n, nil)
	for i := range n + 5 {
		for j := range n {
			g.Set(i, j, rnd.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, g.T())
	for i := range n {
		a.SetSym(i, i, a.At(i, i)+0.1)
	}
	return a
}

func symCopy(a *mat.SymDense) *mat.SymDense {
	c := mat.NewSymDense(a.SymmetricDim(), nil)
	c.CopySym(a)
	return c
}

// TestFactorBlocked checks the blocked factorisation (used with a context
// for M ≥ BlockedMin) against the unblocked one.
func TestFactorBlocked(t *testing.T) {
	t.Parallel()
	for _, n := range []int{BlockedMin, BlockedMin + 77} {
		a := randomPrecision(n, uint64(n))
		var plain, blocked Gauss
		if err := plain.Factor(symCopy(a), 1); err != nil {
			t.Fatal(err)
		}
		blocked.Ctx = context.Background()
		if done, err := blocked.factorBlocked(symCopy(a)); !done || err != nil {
			t.Fatalf("n=%d: blocked factorisation: %v %v", n, done, err)
		}
		if math.Abs(plain.LogDet-blocked.LogDet) > 1e-9*math.Abs(plain.LogDet) {
			t.Errorf("n=%d: ln|Σ| %v, blocked %v", n, plain.LogDet, blocked.LogDet)
		}
		for i := range n {
			if math.Abs(plain.Diag[i]-blocked.Diag[i]) > 1e-9*plain.Diag[i] {
				t.Fatalf("n=%d: Σ[%d,%d] %v, blocked %v", n, i, i, plain.Diag[i], blocked.Diag[i])
			}
		}
		h := make([]float64, n)
		for i := range h {
			h[i] = float64(i%7) - 3
		}
		if err := plain.SolveMean(h); err != nil {
			t.Fatal(err)
		}
		if err := blocked.SolveMean(h); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if math.Abs(plain.Mu[i]-blocked.Mu[i]) > 1e-8*(1+math.Abs(plain.Mu[i])) {
				t.Fatalf("n=%d: μ[%d] %v, blocked %v", n, i, plain.Mu[i], blocked.Mu[i])
			}
		}
		// Not positive definite: not done, nothing changed.
		bad := symCopy(a)
		bad.SetSym(n-1, n-1, -1)
		var q Gauss
		q.Ctx = context.Background()
		if done, err := q.factorBlocked(bad); done || err != nil || q.Diag != nil {
			t.Errorf("n=%d: indefinite matrix: done %v, err %v", n, done, err)
		}
	}
}

// TestFactorCanceled checks that a cancelled context stops the blocked
// factorisation with the context's error and leaves q as it was.
func TestFactorCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := Gauss{Ctx: ctx, LogDet: 7}
	err := q.Factor(randomPrecision(BlockedMin, 1), 1)
	if !errors.Is(err, context.Canceled) || q.LogDet != 7 {
		t.Errorf("error %v, ln|Σ| %v", err, q.LogDet)
	}
}
