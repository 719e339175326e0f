package vrvm

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// nanKernel is a user-defined kernel that returns NaN for some inputs.
type nanKernel struct{}

func (nanKernel) Eval(x, y []float64) float64 {
	if x[0] > 0.5 && y[0] > 0.5 {
		return math.NaN()
	}
	return math.Exp(-(x[0] - y[0]) * (x[0] - y[0]))
}

func smallData() (*mat.Dense, []float64, []float64) {
	x := mat.NewDense(6, 1, []float64{-1, -0.6, -0.2, 0.2, 0.6, 1})
	return x, []float64{0.1, 0.4, 0.2, 0.9, 0.7, 1.1}, []float64{0, 0, 1, 0, 1, 1}
}

// fitter abstracts the four estimators for table tests.
type fitter interface {
	Fit(x mat.Matrix, t []float64) error
}

func estimators(k Kernel) map[string]fitter {
	return map[string]fitter{
		"Regressor":     &Regressor{Kernel: k},
		"Classifier":    &Classifier{Kernel: k},
		"RVMRegressor":  &RVMRegressor{Kernel: k},
		"RVMClassifier": &RVMClassifier{Kernel: k},
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	targets := func(name string) []float64 {
		if strings.Contains(name, "Classifier") {
			return tcls
		}
		return treg
	}
	nanX := mat.DenseCopyOf(x)
	nanX.Set(3, 0, math.NaN())
	infX := mat.DenseCopyOf(x)
	infX.Set(4, 0, math.Inf(-1))
	cases := []struct {
		name    string
		kernel  Kernel
		x       mat.Matrix
		t       func(string) []float64
		wantMsg string
		check   func(error) bool
	}{
		{"NaN in x", nil, nanX, targets, "row 3, column 0", func(e error) bool { var ne *NonFiniteError; return errors.As(e, &ne) && ne.Row == 3 && ne.Col == 0 }},
		{"Inf in x", nil, infX, targets, "-Inf at row 4", func(e error) bool { var ne *NonFiniteError; return errors.As(e, &ne) && ne.Row == 4 }},
		{"NaN in t", nil, x, func(string) []float64 { return []float64{0, 1, math.NaN(), 0, 1, 0} }, "t[2] is NaN", func(e error) bool { var ne *NonFiniteError; return errors.As(e, &ne) && ne.Row == 2 && ne.Col == -1 }},
		{"Inf in t", nil, x, func(string) []float64 { return []float64{0, 1, 0, math.Inf(1), 1, 0} }, "t[3] is +Inf", func(e error) bool { var ne *NonFiniteError; return errors.As(e, &ne) && ne.Row == 3 }},
		{"row count", nil, x, func(string) []float64 { return []float64{0, 1} }, "got 2, want 6", func(e error) bool { var de *DimensionError; return errors.As(e, &de) }},
		{"no rows", nil, mat.NewDense(1, 1, nil).Slice(0, 0, 0, 1), func(string) []float64 { return nil }, "no training rows", func(e error) bool { return errors.Is(e, ErrNoData) }},
		{"nil x", nil, nil, func(string) []float64 { return nil }, "no training rows", func(e error) bool { return errors.Is(e, ErrNoData) }},
		{"zero columns", nil, mat.NewDense(3, 1, nil).Slice(0, 3, 0, 0), func(string) []float64 { return []float64{0, 1, 0} }, "no columns", func(e error) bool { return errors.Is(e, ErrNoColumns) }},
		{"negative width", Gaussian{Width: -1}, x, targets, "Gaussian.Width", func(e error) bool { var oe *OptionError; return errors.As(e, &oe) }},
		{"zero width", Gaussian{}, x, targets, "Gaussian.Width", func(e error) bool { var oe *OptionError; return errors.As(e, &oe) }},
		{"NaN width", Gaussian{Width: math.NaN()}, x, targets, "Gaussian.Width", func(e error) bool { var oe *OptionError; return errors.As(e, &oe) }},
		{"degree 0", Polynomial{Degree: 0}, x, targets, "Polynomial.Degree", func(e error) bool { var oe *OptionError; return errors.As(e, &oe) }},
		{"negative scale", Polynomial{Degree: 2, Scale: -1}, x, targets, "Polynomial.Scale", func(e error) bool { var oe *OptionError; return errors.As(e, &oe) }},
		{"kernel NaN", nanKernel{}, x, targets, "kernel returned NaN", func(e error) bool { var ne *NonFiniteError; return errors.As(e, &ne) && ne.What == "kernel value" }},
	}
	for _, c := range cases {
		for name, est := range estimators(c.kernel) {
			err := est.Fit(c.x, c.t(name))
			if err == nil {
				t.Errorf("%s/%s: no error", c.name, name)
				continue
			}
			if !c.check(err) || !strings.Contains(err.Error(), c.wantMsg) {
				t.Errorf("%s/%s: error %q (%T), want one containing %q", c.name, name, err, err, c.wantMsg)
			}
		}
	}
}

func TestBadTargets(t *testing.T) {
	t.Parallel()
	x, _, _ := smallData()
	for _, r := range []fitter{&Regressor{}, &RVMRegressor{}} {
		if err := r.Fit(x, []float64{2, 2, 2, 2, 2, 2}); !errors.Is(err, ErrConstantTargets) {
			t.Errorf("%T constant targets: %v", r, err)
		}
	}
	for _, c := range []fitter{&Classifier{}, &RVMClassifier{}} {
		var le *LabelError
		if err := c.Fit(x, []float64{0, 1, 2, 0, 1, 0}); !errors.As(err, &le) || le.Row != 2 || le.Label != "2" ||
			!strings.Contains(err.Error(), `label "2" at row 2 is not 0 or 1`) {
			t.Errorf("%T label 2: %v", c, err)
		}
		if err := c.Fit(x, []float64{1, 1, 1, 1, 1, 1}); !errors.Is(err, ErrSingleClass) {
			t.Errorf("%T single class: %v", c, err)
		}
	}
}

func TestBadOptions(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	cases := []struct {
		f     fitter
		t     []float64
		field string
	}{
		{&Regressor{Prior: Prior{A: -1}}, treg, "Prior.A"},
		{&Regressor{Prior: Prior{D: math.Inf(1)}}, treg, "Prior.D"},
		{&Regressor{Tau0: -2}, treg, "Tau0"},
		{&Regressor{MaxIter: -1}, treg, "MaxIter"},
		{&Regressor{Tol: math.NaN()}, treg, "Tol"},
		{&Regressor{PruneAlpha: -5}, treg, "PruneAlpha"},
		{&Regressor{Alpha0: -1}, treg, "Alpha0"},
		{&Classifier{Xi0: -1}, tcls, "Xi0"},
		{&Classifier{Prior: Prior{B: -1e-6}}, tcls, "Prior.B"},
		{&RVMRegressor{Beta0: -1}, treg, "Beta0"},
		{&RVMClassifier{Tol: -1}, tcls, "Tol"},
	}
	for _, c := range cases {
		err := c.f.Fit(x, c.t)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Field != c.field {
			t.Errorf("%T with bad %s: error %v", c.f, c.field, err)
		}
	}
}

func TestPredictBadInput(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	r := &Regressor{Kernel: Gaussian{Width: 0.5}}
	if _, _, err := r.Predict(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted Predict: %v", err)
	}
	if err := r.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Predict(mat.NewDense(2, 3, nil)); err == nil || !strings.Contains(err.Error(), "input columns: got 3, want 1") {
		t.Errorf("wrong column count: %v", err)
	}
	bad := mat.NewDense(2, 1, []float64{0, math.NaN()})
	if _, _, err := r.Predict(bad); err == nil || !strings.Contains(err.Error(), "row 1, column 0") {
		t.Errorf("NaN input: %v", err)
	}
	c := &Classifier{Kernel: Gaussian{Width: 0.5}}
	if _, err := c.ProbModerated(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted classifier: %v", err)
	}
	if err := c.Fit(x, tcls); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ProbPlugin(mat.NewDense(1, 2, nil)); err == nil {
		t.Error("wrong column count accepted")
	}
	// A failed refit leaves the model fitted before it (docs/design.md, "Fit
	// contract").
	st, l := r.Status(), r.LowerBound()
	if err := r.Fit(x, []float64{1}); err == nil || r.Status() != st || r.LowerBound() != l {
		t.Errorf("failed refit: err %v, status %v, bound %v; before: %v, %v", err, r.Status(), r.LowerBound(), st, l)
	}
}

// An explicitly non-positive-definite precision is reported after the
// jitter retries, not as NaN.
func TestNotPositiveDefinite(t *testing.T) {
	t.Parallel()
	var q gaussQ
	a := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	err := q.factor(a, 3)
	var npd *NotPositiveDefiniteError
	if !errors.As(err, &npd) || npd.Iteration != 3 || npd.Jitter == 0 {
		t.Fatalf("got %v", err)
	}
	// A nearly singular one is rescued by jitter.
	b := mat.NewSymDense(2, []float64{1, 1, 1, 1 - 1e-17})
	if err := q.factor(b, 1); err != nil || q.Jitter == 0 {
		t.Fatalf("jitter retry: err %v, jitter %g", err, q.Jitter)
	}
}

// TestZeroBasis: a design whose every column is zero has nothing to fit;
// the default solver says so instead of failing in the factorisation.
func TestZeroBasis(t *testing.T) {
	t.Parallel()
	phi := mat.NewDense(5, 2, nil)
	r := &Regressor{}
	if err := r.FitDesign(phi, []float64{1, 2, 3, 4, 5}); !errors.Is(err, ErrZeroBasis) {
		t.Errorf("regression: got %v, want ErrZeroBasis", err)
	}
	c := &Classifier{}
	if err := c.FitDesign(phi, []float64{0, 1, 0, 1, 1}); !errors.Is(err, ErrZeroBasis) {
		t.Errorf("classification: got %v, want ErrZeroBasis", err)
	}
	if r.Status() != NotFitted || c.Status() != NotFitted {
		t.Error("a failed fit left a fitted state")
	}
}

func TestSaveLoad(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	xt := mat.NewDense(3, 1, []float64{-0.8, 0.05, 0.9})
	r := &Regressor{Kernel: Polynomial{Degree: 2}, NoPrune: true}
	if err := r.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	r2, err := loadRegressor(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	m1, v1, _ := r.Predict(xt)
	m2, v2, _ := r2.Predict(xt)
	for i := range m1 {
		if m1[i] != m2[i] || v1[i] != v2[i] {
			t.Errorf("loaded model predicts %g±%g, saved one %g±%g", m2[i], v2[i], m1[i], v1[i])
		}
	}
	if r2.LowerBound() != r.LowerBound() || (r2.ct/r2.dt) != (r.ct/r.dt) {
		t.Error("loaded bound or tau differ")
	}
	if got, want := r2.RelevanceVectors(), r.RelevanceVectors(); len(got) != len(want) {
		t.Errorf("relevance vectors %v, want %v", got, want)
	}
	// Truncated, altered, foreign.
	bad := map[string]string{
		"truncated": file[:len(file)/2],
		"altered":   strings.Replace(file, `"tau_rate": `, `"tau_rate": 1`, 1),
		"empty":     "",
		"not json":  "hello",
	}
	// Alter a digit inside the payload.
	i := strings.Index(file, `"mu"`)
	j := strings.IndexAny(file[i:], "123456789") + i
	bad["digit"] = file[:j] + string("987654321"[strings.IndexByte("123456789", file[j])]) + file[j+1:]
	for name, f := range bad {
		if f == file {
			t.Fatalf("%s: the alteration did not change the file", name)
		}
		if _, err := loadRegressor(strings.NewReader(f)); err == nil {
			t.Errorf("%s file loaded without error", name)
		} else if var_ := (*ModelFileError)(nil); !errors.As(err, &var_) {
			t.Errorf("%s file: error %v is not a *ModelFileError", name, err)
		}
	}
	if _, err := loadClassifier(strings.NewReader(file)); err == nil || !strings.Contains(err.Error(), "not a *Classifier") {
		t.Errorf("regression file as classifier: %v", err)
	}
	c := &Classifier{Kernel: Gaussian{Width: 0.7}}
	if err := c.Fit(x, tcls); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	c2, err := loadClassifier(&buf)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := c.ProbModerated(xt)
	p2, _ := c2.ProbModerated(xt)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Errorf("loaded classifier predicts %g, saved %g", p2[i], p1[i])
		}
	}
	u := &Regressor{Kernel: nanKernelOK{}}
	if err := u.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	if err := u.Save(&buf); !errors.Is(err, ErrUnsavableKernel) {
		t.Errorf("user kernel save: %v", err)
	}
	if err := (&Regressor{}).Save(&buf); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted save: %v", err)
	}
}

type nanKernelOK struct{}

func (nanKernelOK) Eval(x, y []float64) float64 { return math.Exp(-(x[0] - y[0]) * (x[0] - y[0])) }

func TestMonitorAndContext(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	var seen []Progress
	r := &Regressor{Monitor: func(p Progress) bool { seen = append(seen, p); return p.Iteration == 5 }}
	if err := r.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	if r.Status() != Stopped || r.Iterations() != 5 || len(seen) != 5 || len(r.BoundTrace()) != 6 {
		t.Errorf("monitor stop: status %v, iterations %d, calls %d, trace %d", r.Status(), r.Iterations(), len(seen), len(r.BoundTrace()))
	}
	for i, p := range seen {
		if p.Iteration != i+1 || p.Bound != r.BoundTrace()[i+1] || p.Active < 1 {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Classifier{NoPrune: true, MaxIter: 1000000, Tol: 1e-300, ParamTol: 1e-300,
		Monitor: func(p Progress) bool {
			if p.Iteration == 50 {
				cancel()
			}
			return false
		}}
	err := c.FitContext(ctx, x, tcls)
	if !errors.Is(err, context.Canceled) || c.Status() != Canceled || c.Iterations() != 50 {
		t.Errorf("cancel: err %v, status %v, iterations %d", err, c.Status(), c.Iterations())
	}
	if _, err := c.ProbPlugin(x); err != nil {
		t.Errorf("a cancelled fit keeps its state: %v", err)
	}
	r2 := &Regressor{MaxIter: 3, NoPrune: true}
	if err := r2.Fit(x, treg); err != nil || r2.Status() != IterationLimit {
		t.Errorf("iteration limit: err %v, status %v", err, r2.Status())
	}
}

// Fit never writes configuration fields.
func TestFitKeepsOptions(t *testing.T) {
	t.Parallel()
	x, treg, _ := smallData()
	r := &Regressor{}
	if err := r.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	if r.Kernel != nil || r.Prior != (Prior{}) || r.MaxIter != 0 || r.Tol != 0 || r.PruneAlpha != 0 || r.Tau0 != 0 || r.Alpha0 != 0 {
		t.Errorf("Fit wrote options: %+v", *r)
	}
}

func TestDesignMatrix(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	// The design of a Gaussian kernel with bias, passed explicitly, gives
	// the same fit as the kernel itself.
	b := basis{kernel: Gaussian{Width: 0.8}, bias: true, centers: x, dim: 1}
	phi, err := b.design(x, seq(b.size()))
	if err != nil {
		t.Fatal(err)
	}
	r1 := &Regressor{Kernel: Gaussian{Width: 0.8}, NoPrune: true, NoAugment: true} // a design is never augmented
	r2 := &Regressor{NoPrune: true}
	if err := r1.Fit(x, treg); err != nil {
		t.Fatal(err)
	}
	if err := r2.FitDesign(phi, treg); err != nil {
		t.Fatal(err)
	}
	if r1.LowerBound() != r2.LowerBound() {
		t.Errorf("design fit bound %g, kernel fit %g", r2.LowerBound(), r1.LowerBound())
	}
	m1, _, _ := r1.Predict(x)
	m2, _, err := r2.Predict(phi)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1 {
		if math.Abs(m1[i]-m2[i]) > 1e-12 {
			t.Errorf("design prediction %g, kernel %g", m2[i], m1[i])
		}
	}
	if _, _, err := r2.Predict(x); err == nil {
		t.Error("design with wrong width accepted")
	}
	c := &Classifier{}
	if err := c.FitDesign(phi, tcls); err != nil {
		t.Fatal(err)
	}
}

// TestMisleadingCauses checks that extreme scales get errors naming the
// actual cause.
func TestMisleadingCauses(t *testing.T) {
	t.Parallel()
	x, treg, _ := smallData()
	big, small := make([]float64, len(treg)), make([]float64, len(treg))
	for i, v := range treg {
		big[i], small[i] = v*1e200, v*1e-200
	}
	for _, m := range []Estimator{&Regressor{}, &RVMRegressor{}} {
		for name, tt := range map[string][]float64{"×1e200": big, "×1e-200": small} {
			err := m.FitContext(context.Background(), x, tt)
			if !errors.Is(err, ErrTargetScale) {
				t.Errorf("%T, targets %s: %v, want ErrTargetScale", m, name, err)
			}
		}
	}
	var oe *OptionError
	for _, w := range []float64{1e-300, 1e300} {
		err := (&Regressor{Kernel: Gaussian{Width: w}}).Fit(x, treg)
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "square") {
			t.Errorf("width %g: %v", w, err)
		}
	}
	if msg := (&NotPositiveDefiniteError{Iteration: 3}).Error(); strings.Contains(msg, "jitter up to 0") {
		t.Errorf("message %q", msg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []Estimator{&Regressor{}, &Classifier{}, &RVMRegressor{}, &RVMClassifier{}} {
		tt := treg
		if m.Task() == Classification {
			_, _, tt = smallData()
		}
		err := m.FitContext(ctx, x, tt)
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "vrvm: fit stopped") {
			t.Errorf("%T cancelled: %v", m, err)
		}
	}
}

// TestDegenerateKernels checks the two degenerate cases of the issue
// tracker: a polynomial of degree 50 on sinc inputs and a linear kernel on
// inputs of size 1e150 give ErrKernelScale, naming the kernel, for every
// estimator and solver.
func TestDegenerateKernels(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(60, 4)
	big := mat.DenseCopyOf(x)
	big.Scale(1e150, big)
	labels := make([]float64, len(y))
	for i, v := range y {
		if v > 0.2 {
			labels[i] = 1
		}
	}
	for _, c := range []struct {
		k Kernel
		x *mat.Dense
	}{{Polynomial{Degree: 50}, x}, {Linear{}, big}} {
		for _, m := range []Estimator{&Regressor{Kernel: c.k}, &Regressor{Kernel: c.k, Method: PaperSchedule{}}, &Regressor{Kernel: c.k, Method: Newton{}},
			&Classifier{Kernel: c.k}, &RVMRegressor{Kernel: c.k}, &RVMClassifier{Kernel: c.k}} {
			tt := pick(m.Task(), y, labels)
			err := m.FitContext(context.Background(), c.x, tt)
			if !errors.Is(err, ErrKernelScale) || !strings.Contains(err.Error(), kernelString(c.k)) {
				t.Errorf("%T with %v: %v", m, kernelString(c.k), err)
			}
		}
	}
	// A standardised input keeps a cubic polynomial well inside the limits.
	if err := (&Regressor{Kernel: Polynomial{Degree: 3, Scale: 0.1}}).Fit(mat.NewDense(4, 1, []float64{-1.5, -0.5, 0.5, 1.5}), []float64{1, 0, 0.5, 2}); err != nil {
		t.Errorf("cubic on standardised inputs: %v", err)
	}
}

// TestInterceptOnly checks that a converged fit without relevance vectors
// says so in its status.
func TestInterceptOnly(t *testing.T) {
	t.Parallel()
	f := fitted{status: Converged, mu: []float64{0.7, 1e-5}, b: basis{bias: true, kernel: Gaussian{Width: 1}}, rows: []int{3}}
	f.checkRelevance()
	if f.status != InterceptOnly || !strings.Contains(f.status.String(), "no relevance vector") {
		t.Errorf("status %v", f.status)
	}
	f = fitted{status: IterationLimit, mu: []float64{0.7}, b: basis{bias: true, kernel: Gaussian{Width: 1}}}
	f.checkRelevance()
	if f.status != IterationLimit {
		t.Errorf("iteration limit became %v", f.status)
	}
	f = fitted{status: Converged, mu: []float64{0.7, 0.2}, b: basis{bias: true, kernel: Gaussian{Width: 1}}, rows: []int{3}}
	if f.checkRelevance(); f.status != Converged {
		t.Errorf("a model with a relevance vector became %v", f.status)
	}
}
