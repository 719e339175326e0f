package sequential

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/testgen"
)

// TestCollapsedRowsSameModel checks that the likelihood of the distinct
// rows with counts (likelihood.Count) gives, for the same active set, ⟨α⟩ and ξ,
// the same Q_w, bound, ξ update and candidate statistics as every row.
func TestCollapsedRowsSameModel(t *testing.T) {
	t.Parallel()
	x, y := dupRows(60)
	lik := lh.NewLogit(y, 1)
	set := Settings{Prior: lb.Prior{A: 1e-6, B: 1e-6}, Bias: true, PruneAt: 10, Alpha0: 1, MaxIter: 2000, Tol: 1e-10, ParamTol: 1e-6}
	// The distinct rows with their counts, and the distinct centres with
	// the number of copies of each left out (the facade's collapseRows).
	of, first := design.DistinctRows(x, y)
	if len(first) != 61 {
		t.Fatalf("%d distinct rows, want 61", len(first))
	}
	count := make([]float64, len(first))
	for _, u := range of {
		count[u]++
	}
	cl, expand := lik.CountRows(of, first, count)
	rep, keep := design.DistinctRows(x, nil)
	twins := make([]float64, 1+len(keep))
	for m := range rep {
		if keep[rep[m]] != m {
			twins[1+rep[m]]++
		}
	}
	cols := []int{0}
	for _, m := range keep {
		cols = append(cols, 1+m)
	}
	if len(cols) != 61 || twins[1] != 2 || twins[2] != 3 || twins[3] != 3 || twins[40] != 0 {
		t.Fatalf("distinct functions %v, copies left out %v", cols, twins)
	}
	fit := func(rows, centres *mat.Dense, lik lh.Likelihood, twins []float64) *seqFit {
		s := newSeqFit(design.DenseFactor(gaussDesign(rows, centres, 0.5)), lik, set)
		s.cls.twins = twins
		// The first 61 functions are the bias and the distinct centres in
		// both bases.
		s.setActive([]int{0, 4, 11, 30, 45, 58}, []float64{0.3, 2, 0.5, 7, 1, 40})
		return s
	}
	all, dist := fit(x, x, lik, nil), fit(subset.Rows(x, first), subset.Rows(x, keep), cl, twins)
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
		for j, o := range cols {
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
	expand()
	orig, dxi := lik.Factor(nil), cl.Factor(nil)
	for n, u := range of {
		if orig[n] != dxi[u] {
			t.Fatalf("row %d: ξ %v, its distinct row's %v", n, orig[n], dxi[u])
		}
	}
}

// dupRows returns n random rows of two inputs with labels, followed by
// copies of its first n/2 + 1 rows, each twice, and of rows 1 and 2, the
// last with the other label.
func dupRows(n int) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(11, 5))
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	for i := range n {
		x.Set(i, 0, 2*rnd.Float64()-1)
		x.Set(i, 1, 2*rnd.Float64()-1)
		if x.At(i, 0)+0.5*x.At(i, 1)+0.3*rnd.NormFloat64() > 0 {
			t[i] = 1
		}
	}
	return testgen.Duplicated(x, t)
}

// gaussDesign returns the design of the bias and a Gaussian kernel of
// width w centred at the rows of centres, at the rows of x.
func gaussDesign(x, centres *mat.Dense, w float64) *mat.Dense {
	n, _ := x.Dims()
	m, _ := centres.Dims()
	phi := mat.NewDense(n, m+1, nil)
	for i := range n {
		phi.Set(i, 0, 1)
		for j := range m {
			phi.Set(i, j+1, math.Exp(-dist2(x.RawRowView(i), centres.RawRowView(j))/(w*w)))
		}
	}
	return phi
}
