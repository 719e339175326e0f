package sequential

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSequentialMonotone checks, on 50 seeded regression and 50
// classification problems (four kernels, three priors, with and without
// the bias), that no step of the sequential solver decreases the bound it
// maximises: setting one ⟨αₘ⟩ to its optimum (S1), an accepted
// extrapolation, accepted joint steps (S7) and updating Q_τ or ξ never
// decrease L of the active model, and adding a function never
// decreases L of the full model (FullModelBound, (S2)). Removing a
// function (pruning) may lower both, and so may holding an ⟨αₘ⟩ at a
// pruning threshold lowered by the annealing ("cap", (S5)); they are the
// only such steps.
func TestSequentialMonotone(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	steps := map[string]int{}
	for _, classify := range []bool{false, true} {
		for seed := range uint64(50) {
			p := newTestProblem(100+seed, classify)
			s := seqProblem(t, p)
			var prevActive, prevFull float64
			have := false
			s.hook = func(step string) {
				if err := s.rebuild(0); err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				active := s.bound()
				full := math.NaN()
				if step == "likelihood" || step == "add" {
					// An addition follows a likelihood update or another
					// addition.
					full = active + s.excluded()
				}
				if have {
					switch step {
					case "alpha", "extrapolate", "likelihood", "newton":
						if active < prevActive-tol*math.Max(1, math.Abs(prevActive)) {
							t.Fatalf("%s (classify=%v): bound decreased after a %s step: %.15g -> %.15g", p.name, classify, step, prevActive, active)
						}
					case "add":
						if full < prevFull-tol*math.Max(1, math.Abs(prevFull)) {
							t.Fatalf("%s (classify=%v): full-model bound decreased after an addition: %.15g -> %.15g", p.name, classify, prevFull, full)
						}
					}
				}
				steps[step]++
				prevActive, prevFull, have = active, full, true
			}
			if _, _, _, err := s.run(context.Background()); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
		}
	}
	if steps["alpha"] < 1000 || steps["likelihood"] < 200 || steps["add"] < 120 {
		t.Errorf("too few steps checked: %v", steps)
	}
	t.Logf("steps checked: %v", steps)
}

// TestLargestGains checks the shortlist's selection against a sort of
// every candidate.
func TestLargestGains(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 63, 64, 65, 200, 4000} {
		all := make([]addCand, n)
		for i := range all {
			all[i] = addCand{j: i, g: rng.NormFloat64()}
		}
		want := append([]addCand(nil), all...)
		sort.Slice(want, func(a, b int) bool { return want[a].g > want[b].g })
		want = want[:min(n, seqShortlist)]
		if got := largestGains(all, seqShortlist); !slices.Equal(got, want) {
			t.Errorf("%d candidates: %v, want %v", n, got, want)
		}
	}
}

// TestSequentialTraceIsFullBound checks, on 30 seeded regression and 30
// classification problems, that the sequential solver's trace holds the
// bound of the full model: each entry is the active model's L plus the
// excluded functions' terms at the factors held since the last addition
// round, (S4), so at most the bound with those factors at their optimum,
// every entry is finite, and FullModelBound is at least the last entry.
func TestSequentialTraceIsFullBound(t *testing.T) {
	t.Parallel()
	for _, classify := range []bool{false, true} {
		for seed := range uint64(30) {
			p := newTestProblem(300+seed, classify)
			s := seqProblem(t, p)
			s.hook = func(step string) {
				if step != "likelihood" {
					return
				}
				held, opt := s.objective(), s.bound()+s.excluded()
				if tol := 1e-9 * math.Max(1, math.Abs(opt)); held > opt+tol {
					t.Fatalf("%s: trace bound %.12g, full-model bound at the optimal excluded factors %.12g", p.name, held, opt)
				}
			}
			trace, _, _, err := s.run(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			for i, v := range trace {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: trace[%d] = %v", p.name, i, v)
				}
			}
		}
	}
}
