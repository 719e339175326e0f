package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// toy is a Problem whose objective follows a given sequence: obj[i] after
// i moves. It converges when the sequence ends (or at settleAt), and its
// polish adds polishMoves more moves once.
type toy struct {
	obj         []float64
	moves       int
	settleAt    int
	polishMoves int
	calls       []string
	kept        int
	failAt      int
}

func (p *toy) Statistics(k int) error {
	p.calls = append(p.calls, "statistics")
	if k == p.failAt {
		return errors.New("statistics failed")
	}
	return nil
}

func (p *toy) Decide(int) (Move, bool, error) {
	p.calls = append(p.calls, "decide")
	return Move{Kind: Sweep}, p.moves == len(p.obj)-1, nil
}

func (p *toy) Act(int, Move) error {
	p.calls = append(p.calls, "act")
	p.moves++
	return nil
}

func (p *toy) Likelihood(int) error { p.calls = append(p.calls, "likelihood"); return nil }
func (p *toy) Candidates(int) error { p.calls = append(p.calls, "candidates"); return nil }
func (p *toy) Objective() (float64, error) {
	return p.obj[min(p.moves, len(p.obj)-1)], nil
}
func (p *toy) Change(c float64) float64 { return c }
func (p *toy) Active() int              { return 1 }
func (p *toy) Limit() bool              { return false }
func (p *toy) Settle(k int, _ []float64) (Verdict, error) {
	p.calls = append(p.calls, "settle")
	if p.settleAt > 0 && k >= p.settleAt {
		return Converged, nil
	}
	return Continue, nil
}
func (p *toy) Polish(int) (bool, error) {
	p.calls = append(p.calls, "polish")
	if p.polishMoves == 0 {
		return false, nil
	}
	p.settleAt += p.polishMoves
	p.polishMoves = 0
	return true, nil
}
func (p *toy) Keep(k int) { p.kept = k }
func (p *toy) Restore() (float64, error) {
	p.moves = p.kept - 1
	return p.obj[p.moves], nil
}

func TestRunOrderAndTrace(t *testing.T) {
	t.Parallel()
	p := &toy{obj: []float64{-3, -2, -1}, settleAt: 2}
	r, err := Run(context.Background(), p, Controls{MaxIter: 10, Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Done || r.Iters != 2 || !slices.Equal(r.Trace, []float64{-3, -2, -1}) {
		t.Errorf("got %+v, want Done after 2 iterations with trace [-3 -2 -1]", r)
	}
	want := []string{"statistics", "decide", "act", "likelihood", "candidates", "settle"}
	if !slices.Equal(p.calls[:6], want) {
		t.Errorf("first iteration called %v, want %v", p.calls[:6], want)
	}
	if p.calls[len(p.calls)-1] != "polish" {
		t.Errorf("convergence did not polish: %v", p.calls)
	}
}

func TestRunPolishOnce(t *testing.T) {
	t.Parallel()
	p := &toy{obj: []float64{0, 1, 2, 3, 4, 5, 6}, settleAt: 2, polishMoves: 2}
	r, err := Run(context.Background(), p, Controls{MaxIter: 10, Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	var polishes int
	for _, c := range p.calls {
		if c == "polish" {
			polishes++
		}
	}
	if r.Status != Done || r.Iters != 4 || polishes != 1 {
		t.Errorf("got %+v with %d polishes, want Done after 4 iterations, 1 polish", r, polishes)
	}
}

func TestRunLimitMonitorCancel(t *testing.T) {
	t.Parallel()
	p := &toy{obj: []float64{0, 1, 2, 3, 4, 5, 6}}
	r, err := Run(context.Background(), p, Controls{MaxIter: 3, Initial: true})
	if err != nil || r.Status != IterationLimit || r.Iters != 3 || len(r.Trace) != 4 {
		t.Errorf("limit: got %+v, %v; want IterationLimit after 3 iterations, 4 values", r, err)
	}
	p = &toy{obj: []float64{0, 1, 2, 3, 4, 5, 6}}
	var seen []Progress
	mon := func(pr Progress) bool { seen = append(seen, pr); return pr.Iteration == 2 }
	r, err = Run(context.Background(), p, Controls{MaxIter: 10, Initial: true, Monitor: mon})
	if err != nil || r.Status != Stopped || r.Iters != 2 || len(seen) != 2 || seen[1].Bound != 2 || seen[1].Change != 0.5 {
		t.Errorf("monitor: got %+v, %v, progress %+v; want Stopped after 2, bound 2, change 0.5", r, err, seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = Run(ctx, &toy{obj: []float64{0, 1}}, Controls{MaxIter: 10, Initial: true})
	if err != nil || r.Status != Canceled || r.Iters != 0 {
		t.Errorf("cancel: got %+v, %v; want Canceled after 0 iterations", r, err)
	}
	r, err = Run(context.Background(), &toy{obj: []float64{0, 1, 2, 3}, failAt: 2}, Controls{MaxIter: 10})
	if err == nil || r.Iters != 1 {
		t.Errorf("failing statistics: got %+v, %v; want an error after 1 iteration", r, err)
	}
}

func TestRunStall(t *testing.T) {
	t.Parallel()
	// The objective at the start of each iteration rises to 5 at the
	// third and then falls: with Stall 3 the fit ends three iterations
	// later, back at the third's state.
	p := &toy{obj: []float64{1, 3, 5, 4, 4, 4, 4, 4, 4, 4}}
	r, err := Run(context.Background(), p, Controls{MaxIter: 20, RecordFirst: true, Stall: 3, StallTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Done || r.Iters != 6 || r.Trace[len(r.Trace)-1] != 5 || p.kept != 3 {
		t.Errorf("got %+v, kept %d; want Done after 6 iterations at objective 5, iteration 3 kept", r, p.kept)
	}
}

func TestStalled(t *testing.T) {
	t.Parallel()
	flat := make([]float64, 12)
	for i := range flat {
		flat[i] = -100
		if i%2 == 1 {
			flat[i] -= 1e-12
		}
	}
	rising := make([]float64, 12)
	for i := range rising {
		rising[i] = float64(i)
	}
	for _, c := range []struct {
		name  string
		trace []float64
		span  int
		want  bool
	}{
		{"flat", flat, 20, true},
		{"short span", flat, 5, false},
		{"rising", rising, 20, false},
	} {
		if got := Stalled(c.trace, c.span, 10, 1e-10); got != c.want {
			t.Errorf("%s: Stalled = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPrune checks that Prune keeps the precisions at most the threshold,
// and the smallest one when every precision exceeds it.
func TestPrune(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		alphas []float64
		keep   []int
		pruned bool
	}{
		{[]float64{1, 5, 2}, []int{0, 1, 2}, false},
		{[]float64{1, 50, 2, 11}, []int{0, 2}, true},
		{[]float64{30, 12, 40}, []int{1}, true},
		{[]float64{10}, []int{0}, false},
	} {
		keep, pruned := Prune(c.alphas, 10)
		if !slices.Equal(keep, c.keep) || pruned != c.pruned {
			t.Errorf("Prune(%v, 10) = %v, %v; want %v, %v", c.alphas, keep, pruned, c.keep, c.pruned)
		}
	}
}
