package selection

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// checkPartition fails unless folds partition 0, …, n−1 into k sorted
// folds whose sizes differ by at most one.
func checkPartition(t *testing.T, folds [][]int, n, k int) {
	t.Helper()
	if len(folds) != k {
		t.Fatalf("%d folds, want %d", len(folds), k)
	}
	seen := make([]bool, n)
	lo, hi := n, 0
	for _, f := range folds {
		if !slices.IsSorted(f) {
			t.Errorf("fold %v is not sorted", f)
		}
		lo, hi = min(lo, len(f)), max(hi, len(f))
		for _, r := range f {
			if r < 0 || r >= n || seen[r] {
				t.Fatalf("row %d out of range or repeated", r)
			}
			seen[r] = true
		}
	}
	for r, s := range seen {
		if !s {
			t.Fatalf("row %d in no fold", r)
		}
	}
	if hi-lo > 1 {
		t.Errorf("fold sizes range from %d to %d", lo, hi)
	}
}

func TestKFold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, k int }{{2, 2}, {10, 5}, {11, 5}, {100, 5}, {7, 7}} {
		f, err := KFold(c.n, c.k, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, f, c.n, c.k)
		g, _ := KFold(c.n, c.k, 1)
		if !slices.EqualFunc(f, g, slices.Equal) {
			t.Errorf("n=%d k=%d: same seed, different folds", c.n, c.k)
		}
	}
	a, _ := KFold(100, 5, 1)
	b, _ := KFold(100, 5, 2)
	if slices.EqualFunc(a, b, slices.Equal) {
		t.Error("seeds 1 and 2 give the same folds")
	}
}

func TestStratifiedKFold(t *testing.T) {
	t.Parallel()
	labels := make([]float64, 103)
	for i := range 31 {
		labels[(i*7)%103] = 1
	}
	f, err := StratifiedKFold(labels, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, f, len(labels), 5)
	for i, fold := range f {
		ones := 0
		for _, r := range fold {
			ones += int(labels[r])
		}
		if ones < 31/5 || ones > 31/5+1 {
			t.Errorf("fold %d has %d of the 31 ones", i, ones)
		}
	}
	if _, err := StratifiedKFold([]float64{0, 1, math.NaN()}, 2, 1); err == nil {
		t.Error("NaN label accepted")
	}
}

func TestFoldsErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, k int }{{10, 1}, {10, 0}, {10, -3}, {4, 5}, {0, 2}} {
		_, err := KFold(c.n, c.k, 1)
		var fe *FoldsError
		if !errors.As(err, &fe) || fe.Folds != c.k || fe.Rows != c.n {
			t.Errorf("KFold(%d, %d): error %v, want a *FoldsError", c.n, c.k, err)
		}
		_, err = StratifiedKFold(make([]float64, c.n), c.k, 1)
		if !errors.As(err, &fe) {
			t.Errorf("StratifiedKFold(%d rows, %d): error %v, want a *FoldsError", c.n, c.k, err)
		}
	}
}

// sinc returns a small noisy sinc problem.
func sinc(t *testing.T, n int) (*mat.Dense, []float64) {
	t.Helper()
	d, err := datasets.Sinc(n, 0.1, 7)
	if err != nil {
		t.Fatal(err)
	}
	return d.X, d.T
}

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	x, y := sinc(t, 20)
	reg := &vrvm.Regressor{MaxIter: 50}
	ks := GaussianKernels(1, 3)
	bad := mat.DenseCopyOf(x)
	bad.Set(7, 0, math.Inf(1))
	labels := make([]float64, 20)
	labels[3] = 1
	twoLabels := slices.Clone(labels)
	twoLabels[5] = 2
	var fe *FoldsError
	var ne *vrvm.NonFiniteError
	var de *vrvm.DimensionError
	var le *vrvm.LabelError
	for _, c := range []struct {
		name string
		s    Search
		x    mat.Matrix
		t    []float64
		ok   func(error) bool
	}{
		{"empty grid", Search{Estimator: reg}, x, y, func(e error) bool { return errors.Is(e, ErrNoKernels) }},
		{"nil kernel", Search{Estimator: reg, Kernels: []vrvm.Kernel{vrvm.Gaussian{Width: 1}, nil}}, x, y, func(e error) bool { return e != nil }},
		{"no estimator", Search{Kernels: ks}, x, y, func(e error) bool { return errors.Is(e, ErrEstimator) }},
		{"k = 1", Search{Estimator: reg, Kernels: ks, Folds: 1}, x, y, func(e error) bool { return errors.As(e, &fe) && fe.Folds == 1 }},
		{"k < 0", Search{Estimator: reg, Kernels: ks, Folds: -2}, x, y, func(e error) bool { return errors.As(e, &fe) }},
		{"k > N", Search{Estimator: reg, Kernels: ks, Folds: 21}, x, y, func(e error) bool { return errors.As(e, &fe) && fe.Rows == 20 }},
		{"negative workers", Search{Estimator: reg, Kernels: ks, Workers: -1}, x, y, func(e error) bool { return e != nil }},
		{"nil x", Search{Estimator: reg, Kernels: ks}, nil, y, func(e error) bool { return errors.Is(e, vrvm.ErrNoData) }},
		{"targets", Search{Estimator: reg, Kernels: ks}, x, y[:19], func(e error) bool { return errors.As(e, &de) }},
		{"infinite x", Search{Estimator: reg, Kernels: ks}, bad, y, func(e error) bool { return errors.As(e, &ne) && ne.Row == 7 }},
		{"label 2", Search{Estimator: &vrvm.Classifier{}, Kernels: ks}, x, twoLabels, func(e error) bool { return errors.As(e, &le) && le.Row == 5 }},
		{"one class", Search{Estimator: &vrvm.Classifier{}, Kernels: ks}, x, make([]float64, 20), func(e error) bool { return errors.Is(e, vrvm.ErrSingleClass) }},
	} {
		fits := 0
		c.s.Progress = func(Step) { fits++ }
		_, err := c.s.Run(context.Background(), c.x, c.t)
		if !c.ok(err) {
			t.Errorf("%s: error %v", c.name, err)
		}
		if fits != 0 {
			t.Errorf("%s: %d fits before the error", c.name, fits)
		}
	}
}

func TestSearchRegression(t *testing.T) {
	t.Parallel()
	x, y := sinc(t, 40)
	// The paper's schedule: with the default (sequential) solver the
	// bound picks width 0.2 here, see the package documentation.
	tmpl := &vrvm.Regressor{MaxIter: 400, Method: vrvm.PaperSchedule{}}
	s := Search{Estimator: tmpl, Kernels: GaussianKernels(0.2, 2, 30), Folds: 4, Seed: 5, Workers: 1}
	var steps []Step
	s.Progress = func(st Step) { steps = append(steps, st) }
	r1, err := s.Run(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3*5 || steps[len(steps)-1].Done != 15 || steps[0].Total != 15 {
		t.Errorf("progress: %d steps, last %+v", len(steps), steps[len(steps)-1])
	}
	if tmpl.Kernel != nil || tmpl.Status() != vrvm.NotFitted {
		t.Error("the template was modified")
	}
	// Width 2 suits sinc(x) on (−10, 10); 0.2 interpolates the noise and
	// 30 is nearly a constant.
	if r1.ByCV != 1 {
		t.Errorf("CV chose %d, want 1; CV errors %v %v %v", r1.ByCV, r1.Candidates[0].CVError, r1.Candidates[1].CVError, r1.Candidates[2].CVError)
	}
	if r1.ByBound != 1 {
		t.Errorf("bound chose %d, want 1", r1.ByBound)
	}
	if !r1.Agree() {
		t.Error("Agree is false")
	}

	// Independent recomputation of candidate 1's pooled CV error and the
	// fit to all rows.
	var sum float64
	for f, rows := range r1.Folds {
		xtr, ttr := subset(mat.DenseCopyOf(x), y, complement(40, rows))
		xte, tte := subset(mat.DenseCopyOf(x), y, rows)
		m := &vrvm.Regressor{MaxIter: 400, Kernel: vrvm.Gaussian{Width: 2}, Method: vrvm.PaperSchedule{}}
		if err := m.Fit(xtr, ttr); err != nil {
			t.Fatal(err)
		}
		mean, _, err := m.Predict(xte)
		if err != nil {
			t.Fatal(err)
		}
		var fold float64
		for i, v := range mean {
			fold += (v - tte[i]) * (v - tte[i])
		}
		sum += fold
		if got, want := r1.Candidates[1].FoldErrors[f], fold/float64(len(rows)); got != want {
			t.Errorf("fold %d error %v, want %v", f, got, want)
		}
	}
	if got, want := r1.Candidates[1].CVError, sum/40; math.Abs(got-want) > 1e-12*want {
		t.Errorf("CV error %v, want %v", got, want)
	}
	full := &vrvm.Regressor{MaxIter: 400, Kernel: vrvm.Gaussian{Width: 2}, Method: vrvm.PaperSchedule{}}
	if err := full.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	c := r1.Candidates[1]
	if c.Bound != full.LowerBound() || c.RelevanceVectors != len(full.RelevanceVectors()) || c.Model == nil || c.FullBound != full.FullModelBound() {
		t.Errorf("full fit: bound %v, %d RVs; want %v, %d", c.Bound, c.RelevanceVectors, full.LowerBound(), len(full.RelevanceVectors()))
	}
	if !(c.FullBound < c.Bound) {
		t.Errorf("full bound %v not below the bound %v of the active set", c.FullBound, c.Bound)
	}

	// The result does not depend on the number of workers.
	s.Workers, s.Progress = 3, nil
	r3, err := s.Run(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1.Candidates {
		a, b := r1.Candidates[i], r3.Candidates[i]
		if a.CVError != b.CVError || a.NLP != b.NLP || a.Bound != b.Bound {
			t.Errorf("candidate %d differs with 3 workers", i)
		}
	}
}

func TestSearchClassification(t *testing.T) {
	t.Parallel()
	d, err := datasets.Ripley(60, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Search{
		{Estimator: &vrvm.Classifier{MaxIter: 300}, Kernels: GaussianKernels(0.5, 1), Seed: 1},
		{Estimator: &vrvm.RVMClassifier{MaxIter: 100}, Kernels: GaussianKernels(0.5, 1), Seed: 1, Folds: 3, PlainFolds: true},
	} {
		r, err := s.Run(context.Background(), d.X, d.T)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range r.Candidates {
			if c.Err != nil || !(c.CVError >= 0 && c.CVError <= 0.5) || !(c.NLP > 0) {
				t.Errorf("candidate %d: CV error %v, NLP %v, err %v", i, c.CVError, c.NLP, c.Err)
			}
			if c.Model == nil || c.Model.Task() != vrvm.Classification {
				t.Errorf("candidate %d: full fit not kept", i)
			}
			// The pooled rate is the size-weighted mean of the fold rates.
			var w float64
			for f, e := range c.FoldErrors {
				w += e * float64(len(r.Folds[f]))
			}
			if math.Abs(w/60-c.CVError) > 1e-12 {
				t.Errorf("candidate %d: pooled %v, folds give %v", i, c.CVError, w/60)
			}
		}
		if r.ByCV < 0 || r.ByBound < 0 {
			t.Errorf("no choice: %d %d", r.ByCV, r.ByBound)
		}
	}
}

// nanKernel returns NaN: every fit with it fails.
type nanKernel struct{}

func (nanKernel) Eval(x, y []float64) float64 { return math.NaN() }

func TestSearchFailingCandidate(t *testing.T) {
	t.Parallel()
	x, y := sinc(t, 20)
	s := Search{Estimator: &vrvm.RVMRegressor{MaxIter: 100}, Kernels: []vrvm.Kernel{nanKernel{}, vrvm.Gaussian{Width: 2}}}
	r, err := s.Run(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	var fe *FitError
	var ke *vrvm.NonFiniteError
	if c := r.Candidates[0]; !errors.As(c.Err, &fe) || !errors.As(c.Err, &ke) || ke.What != "kernel value" || !math.IsNaN(c.CVError) {
		t.Errorf("failing candidate: err %v, CV %v", c.Err, c.CVError)
	}
	if r.ByCV != 1 || r.ByBound != 1 {
		t.Errorf("chose %d and %d, want 1", r.ByCV, r.ByBound)
	}
	s.Kernels = s.Kernels[:1]
	if _, err := s.Run(context.Background(), x, y); !errors.As(err, &fe) || fe.Candidate != 0 {
		t.Errorf("all candidates failing: error %v", err)
	}
}

func TestSearchCanceled(t *testing.T) {
	t.Parallel()
	x, y := sinc(t, 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := Search{Estimator: &vrvm.Regressor{}, Kernels: GaussianKernels(1, 2)}
	if _, err := s.Run(ctx, x, y); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	for k, want := range map[vrvm.Kernel]string{
		vrvm.Gaussian{Width: 0.5}:                   "Gaussian(width=0.5)",
		&vrvm.Gaussian{Width: 3}:                    "Gaussian(width=3)",
		vrvm.Polynomial{Degree: 3, Scale: 1.0 / 13}: "Polynomial(degree=3, scale=0.07692)",
		vrvm.Polynomial{Degree: 2}:                  "Polynomial(degree=2, scale=1)",
		vrvm.Linear{}:                               "Linear",
		nanKernel{}:                                 "selection.nanKernel",
	} {
		if got := Describe(k); got != want {
			t.Errorf("Describe(%#v) = %q, want %q", k, got, want)
		}
	}
}

func TestPrunedContribution(t *testing.T) {
	t.Parallel()
	const close = 1e-12
	// lnΓ(1) − lnΓ(½) − ½ln 1 = −ln√π.
	if got, want := PrunedContribution(0.5), -0.5*math.Log(math.Pi); math.Abs(got-want) > close {
		t.Errorf("a = 0.5: %v, want %v", got, want)
	}
	// For small a, lnΓ(a) = −ln a − γa + O(a²) and lnΓ(a+½) = ln√π + ψ(½)a + O(a²),
	// ψ(½) = −γ − 2ln 2.
	const gamma = 0.5772156649015329
	a := vrvm.DefaultPrior
	want := 0.5*math.Log(math.Pi) + (-gamma-2*math.Ln2)*a + math.Log(a) + gamma*a - 0.5*math.Log(a+0.5)
	if got := PrunedContribution(0); math.Abs(got-want) > 1e-9 {
		t.Errorf("a = 0 (default): %v, want %v", got, want)
	}
}

// TestFullBound compares FullBound with the bound of a fit without
// pruning, which keeps the paper's full model.
func TestFullBound(t *testing.T) {
	t.Parallel()
	x, y := sinc(t, 40)
	s := Search{Estimator: &vrvm.Regressor{Method: vrvm.PaperSchedule{}}, Kernels: GaussianKernels(2), Folds: 2}
	r, err := s.Run(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	full := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 2}, NoPrune: true, MaxIter: 20000}
	if err := full.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	// FullBound is L(Q) of the full model for a valid Q, so below the
	// bound of the unpruned fit at its optimum (up to its convergence),
	// and the pruned functions are held at zero, so not far below.
	got, want := r.Candidates[0].FullBound, full.LowerBound()
	t.Logf("full bound %v, bound without pruning %v", got, want)
	if !(got <= want+0.5 && got >= want-40) {
		t.Errorf("full bound %v, bound without pruning %v (%v)", got, want, full.Status())
	}

	// Nothing is pruned without pruning: FullBound is Bound.
	x, y = sinc(t, 8)
	s = Search{Estimator: &vrvm.Regressor{NoPrune: true, MaxIter: 200}, Kernels: GaussianKernels(2), Folds: 2}
	if r, err = s.Run(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if c := r.Candidates[0]; c.FullBound != c.Bound {
		t.Errorf("without pruning: full bound %v, bound %v", c.FullBound, c.Bound)
	}
}
