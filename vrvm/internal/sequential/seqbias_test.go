package sequential

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// TestSequentialBiasStartSteps checks the fit from the bias (S8) step by
// step on 15 seeded regression problems with a bias, as
// TestSequentialMonotone does for the first fit: the first iteration
// starts with the bias and one other function active, and no ⟨αₘ⟩ step, extrapolation, joint step
// (S7) or update of Q_τ decreases L of the active model.
func TestSequentialBiasStartSteps(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	checked := 0
	for seed := uint64(0); checked < 15; seed++ {
		p := newTestProblem(900+seed, false)
		if !p.bias {
			continue
		}
		checked++
		s := seqProblem(t, p)
		s.biasStart = true
		var prev float64
		first, have := true, false
		s.hook = func(step string) {
			if first {
				first = false
				if len(s.act) != 2 || !slices.Contains(s.act, 0) {
					t.Fatalf("%s: the fit from the bias started with %v", p.name, s.act)
				}
			}
			if err := s.rebuild(0); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			l := s.bound()
			switch step {
			case "alpha", "extrapolate", "likelihood", "newton":
				if have && l < prev-tol*math.Max(1, math.Abs(prev)) {
					t.Fatalf("%s: bound decreased after a %s step: %.15g -> %.15g", p.name, step, prev, l)
				}
			}
			prev, have = l, true
		}
		if _, _, _, err := s.run(context.Background()); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
	}
}

// TestStalled checks the stall rule (S9) on made-up traces: a bound that
// goes up and down by 10⁻¹² relative over the window has stalled; one that
// rises by as little monotonically (a crawl, (S7)) has not, nor one that
// rises by more than the tolerance, nor a window that spans a change of
// the active set.
func TestStalled(t *testing.T) {
	t.Parallel()
	const tol = 1e-10
	flat, crawl, rising := make([]float64, 150), make([]float64, 150), make([]float64, 150)
	for i := range flat {
		flat[i] = -3313.0922697 + 3e-9*math.Sin(float64(i))
		crawl[i] = -3313.0922697 + 1e-12*float64(i)
		rising[i] = -3313 + 1e-4*float64(i) + 3e-9*math.Sin(float64(i))
	}
	for _, c := range []struct {
		name  string
		trace []float64
		span  int
		want  bool
	}{
		{"flat", flat, 120, true},
		{"flat, active set changed", flat, seqStallWindow - 1, false},
		{"monotone crawl", crawl, 120, false},
		{"rising", rising, 120, false},
		{"short trace", flat[:seqStallWindow], 120, false},
	} {
		if got := engine.Stalled(c.trace, c.span, seqStallWindow, tol); got != c.want {
			t.Errorf("%s: stalled %v, want %v", c.name, got, c.want)
		}
	}
}
