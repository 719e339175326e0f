package vrvm

import (
	"context"
	"math"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"gonum.org/v1/gonum/mat"
)

// dupRipley returns n of Ripley's rows with rows 0..n/2 twice more, row 1
// a fourth time, and a row at row 2's input with the other label.
func dupRipley(n int) (*mat.Dense, []float64) {
	x, t := benchRipley(n, 11)
	rows := subset.Seq(n)
	for i := 0; i <= n/2; i++ {
		rows = append(rows, i, i)
	}
	rows = append(rows, 1, 2)
	xd := subset.Rows(x, rows)
	td := subset.Vec(t, rows)
	td[len(td)-1] = 1 - t[2]
	return xd, td
}

// TestCollapsedRowsSameModel checks that the likelihood of the distinct
// rows with counts (likelihood.Count) gives, for the same active set, ⟨α⟩ and ξ,
// the same Q_w, bound, ξ update and candidate statistics as every row.
func TestCollapsedRowsSameModel(t *testing.T) {
	t.Parallel()
	x, y := dupRipley(60)
	_, d := x.Dims()
	set, err := options{defPrune: defaultClassificationPrune}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	p := &problem{basis: basis{kernel: Gaussian{Width: 0.5}, bias: true, centers: mat.DenseCopyOf(x), dim: d}, x: x, lik: newLogitLik(y, 1), set: set}
	c := collapseRows(p)
	if c == nil {
		t.Fatal("no duplicated rows found")
	}
	if n, _ := c.prob.x.Dims(); n != 61 {
		t.Fatalf("%d distinct rows, want 61", n)
	}
	if len(c.cols) != 61 || c.twins[1] != 2 || c.twins[2] != 3 || c.twins[3] != 3 || c.twins[40] != 0 {
		t.Fatalf("distinct functions %v, copies left out %v", c.cols, c.twins)
	}
	fit := func(p *problem, twins []float64) *seqFit {
		f, err := newSeqDesign(context.Background(), p.basis, p.x)
		if err != nil {
			t.Fatal(err)
		}
		s := newSeqFit(f, p.lik, set)
		s.cls.twins = twins
		// The first 61 functions are the bias and the distinct centres in
		// both bases.
		s.setActive([]int{0, 4, 11, 30, 45, 58}, []float64{0.3, 2, 0.5, 7, 1, 40})
		return s
	}
	all, dist := fit(p, nil), fit(c.prob, c.twins)
	close := func(what string, a, b float64) {
		t.Helper()
		if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(a)) {
			t.Errorf("%s: every row %.15g, distinct rows %.15g", what, a, b)
		}
	}
	for it := range 6 {
		for _, s := range []*seqFit{all, dist} {
			if err := s.rebuild(it); err != nil {
				t.Fatal(err)
			}
		}
		close("bound", all.bound(), dist.bound())
		for i := range all.act {
			close("μ", all.q.Mu[i], dist.q.Mu[i])
			for j := range all.act {
				close("Σ", all.sig.At(i, j), dist.sig.At(i, j))
			}
		}
		_, dvA, _ := all.weighted(0)
		_, dvD, _ := dist.weighted(0)
		sA, qA := all.candidateStats(dvA, nil)
		sD, qD := dist.candidateStats(dvD, nil)
		for j, o := range c.cols {
			close("d", dvA[o], dvD[j])
			close("s", sA[o], sD[j])
			close("q", qA[o], qD[j])
		}
		close("excluded", all.excluded(), dist.excluded())
		all.holdExcluded(dvA)
		dist.holdExcluded(dvD)
		close("trace bound", all.objective(), dist.objective())
		close("ξ change", all.lik.Update(), dist.lik.Update())
	}
	c.expand()
	orig, dxi := p.lik.Factor(nil), c.prob.lik.Factor(nil)
	for n, u := range c.of {
		if orig[n] != dxi[u] {
			t.Fatalf("row %d: ξ %v, its distinct row's %v", n, orig[n], dxi[u])
		}
	}
}

// TestCollapsedRowsFit compares the default fit of a data set with
// duplicated rows, collapsed, with the fit of every row: the same active
// set, and bounds, weights, probabilities and ξ to 1e-8.
func TestCollapsedRowsFit(t *testing.T) {
	t.Parallel()
	x, y := dupRipley(120)
	fit := func(collapse bool) *Classifier {
		m := &Classifier{Kernel: Gaussian{Width: 0.5}, Tol: 1e-13, ParamTol: 1e-10, MaxIter: 5000, ctl: controls{noCollapse: !collapse}}
		if err := m.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		if m.Status() != Converged {
			t.Fatalf("collapse=%v: %v", collapse, m.Status())
		}
		return m
	}
	all, dist := fit(false), fit(true)
	t.Logf("every row: %d iterations, distinct rows: %d", all.Iterations(), dist.Iterations())
	if a, b := all.ActiveSet(), dist.ActiveSet(); !equalInts(a, b) {
		t.Fatalf("active sets %v and %v", a, b)
	}
	const tol = 1e-8
	if a, b := all.FullModelBound(), dist.FullModelBound(); math.Abs(a-b) > tol*math.Abs(a) {
		t.Errorf("bound %.15g and %.15g", a, b)
	}
	if a, b := all.LowerBound(), dist.LowerBound(); math.Abs(a-b) > tol*math.Abs(a) {
		t.Errorf("trace's last bound %.15g and %.15g", a, b)
	}
	for i, v := range all.Mean() {
		if w := dist.Mean()[i]; math.Abs(v-w) > tol*math.Max(1, math.Abs(v)) {
			t.Errorf("μ[%d]: %.15g and %.15g", i, v, w)
		}
	}
	pa, _ := all.ProbModerated(x)
	pd, _ := dist.ProbModerated(x)
	for i, v := range pa {
		if math.Abs(v-pd[i]) > tol {
			t.Errorf("p[%d]: %.15g and %.15g", i, v, pd[i])
		}
	}
	for n, v := range all.Xi() {
		if w := dist.Xi()[n]; math.Abs(v-w) > tol*math.Max(1, v) {
			t.Errorf("ξ[%d]: %.15g and %.15g", n, v, w)
		}
	}
}
