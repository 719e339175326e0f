package vrvm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// hookKernel is a Gaussian kernel that calls hook on its at-th
// evaluation: a fit whose context the hook cancels is cancelled while its
// design is being built.
type hookKernel struct {
	n    *atomic.Int64
	at   int64
	hook func()
}

func (k hookKernel) Eval(x, y []float64) float64 {
	if k.n.Add(1) == k.at {
		k.hook()
	}
	return Gaussian{Width: 1}.Eval(x, y)
}

// contractModel is one estimator under the fit contract: how to make it
// with a kernel and a Monitor, fit it, predict with it and read it back
// from a file.
type contractModel struct {
	name string
	make func(k Kernel, mon func(Progress) bool) any
	fit  func(ctx context.Context, m any, x mat.Matrix, n int) error
	// predict returns the model's predictions at x, flattened, and the
	// error of the prediction method.
	predict func(m any, x mat.Matrix) ([]float64, error)
	status  func(m any) Status
	bound   func(m any) float64
	iters   func(m any) int
	load    func(r io.Reader) (any, error)
}

func contractModels() []contractModel {
	est := func(m any) Estimator { return m.(Estimator) }
	binFit := func(y func(int) []float64) func(ctx context.Context, m any, x mat.Matrix, n int) error {
		return func(ctx context.Context, m any, x mat.Matrix, n int) error { return est(m).FitContext(ctx, x, y(n)) }
	}
	latent := func(m any, x mat.Matrix) ([]float64, error) {
		mean, v, err := est(m).Latent(x)
		return append(mean, v...), err
	}
	loadEst := func(r io.Reader) (any, error) { return Load(r) }
	binary := func(name string, mk func(k Kernel, mon func(Progress) bool) any, y func(int) []float64) contractModel {
		return contractModel{name: name, make: mk, fit: binFit(y), predict: latent,
			status: func(m any) Status { return est(m).Status() },
			bound:  func(m any) float64 { return est(m).LowerBound() },
			iters:  func(m any) int { return est(m).Iterations() },
			load:   loadEst}
	}
	multi := func(m any) *MultiClassifier { return m.(*MultiClassifier) }
	return []contractModel{
		binary("Regressor", func(k Kernel, mon func(Progress) bool) any { return &Regressor{Kernel: k, Monitor: mon} }, contractTargets),
		binary("Classifier", func(k Kernel, mon func(Progress) bool) any { return &Classifier{Kernel: k, Monitor: mon} }, contractLabels),
		binary("RobustRegressor", func(k Kernel, mon func(Progress) bool) any { return &RobustRegressor{Kernel: k, Monitor: mon} }, contractTargets),
		binary("RVMRegressor", func(k Kernel, mon func(Progress) bool) any { return &RVMRegressor{Kernel: k, Monitor: mon} }, contractTargets),
		binary("RVMClassifier", func(k Kernel, mon func(Progress) bool) any { return &RVMClassifier{Kernel: k, Monitor: mon} }, contractLabels),
		binary("Regressor paper schedule", func(k Kernel, mon func(Progress) bool) any {
			return &Regressor{Kernel: k, Monitor: mon, Method: PaperSchedule{}}
		}, contractTargets),
		binary("Classifier newton", func(k Kernel, mon func(Progress) bool) any {
			return &Classifier{Kernel: k, Monitor: mon, Method: Newton{}}
		}, contractLabels),
		binary("RVMRegressor paper schedule", func(k Kernel, mon func(Progress) bool) any {
			return &RVMRegressor{Kernel: k, Monitor: mon, Method: PaperSchedule{}}
		}, contractTargets),
		{
			name: "MultiClassifier",
			make: func(k Kernel, mon func(Progress) bool) any { return &MultiClassifier{Kernel: k, Monitor: mon} },
			fit: func(ctx context.Context, m any, x mat.Matrix, n int) error {
				return multi(m).FitContext(ctx, x, contractClasses(n))
			},
			predict: func(m any, x mat.Matrix) ([]float64, error) {
				p, err := multi(m).Prob(x)
				if err != nil {
					return nil, err
				}
				return p.RawMatrix().Data, nil
			},
			status: func(m any) Status { return multi(m).Status() },
			bound:  func(m any) float64 { return multi(m).LowerBound() },
			iters:  func(m any) int { return multi(m).Iterations() },
			load:   func(r io.Reader) (any, error) { return LoadMultiClassifier(r) },
		},
	}
}

const contractRows = 40

func contractInputs() *mat.Dense {
	rng := rand.New(rand.NewPCG(44, 8))
	x := mat.NewDense(contractRows, 2, nil)
	for i := range contractRows {
		x.Set(i, 0, 4*rng.Float64()-2)
		x.Set(i, 1, 4*rng.Float64()-2)
	}
	return x
}

// contractTargets, contractLabels and contractClasses are n targets for
// the first n rows of contractInputs.
func contractTargets(n int) []float64 {
	x := contractInputs()
	t := make([]float64, n)
	for i := range t {
		t[i] = math.Sin(2*x.At(i, 0)) + 0.5*x.At(i, 1) + 0.05*math.Cos(float64(7*i))
	}
	return t
}

func contractLabels(n int) []float64 {
	x := contractInputs()
	t := make([]float64, n)
	for i := range t {
		if x.At(i, 0)+0.3*x.At(i, 1)+0.4*math.Sin(float64(3*i)) > 0 {
			t[i] = 1
		}
	}
	return t
}

func contractClasses(n int) []string {
	x := contractInputs()
	l := make([]string, n)
	for i := range l {
		switch v := x.At(i, 0) + 0.3*math.Sin(float64(5*i)); {
		case v < -0.7:
			l[i] = "a"
		case v < 0.7:
			l[i] = "b"
		default:
			l[i] = "c"
		}
	}
	return l
}

// callAccessors calls every exported method of m except those that fit
// (Fit…) with arguments of their types (x for a matrix, labels for
// []string, 0 for an int, a buffer for a writer, zero values otherwise)
// and returns, for each, the panic it raised, if any, and its results.
func callAccessors(t *testing.T, m any, x *mat.Dense, labels []string) (panics map[string]any, results map[string][]reflect.Value) {
	t.Helper()
	panics, results = map[string]any{}, map[string][]reflect.Value{}
	v := reflect.ValueOf(m)
	matrix := reflect.TypeFor[mat.Matrix]()
	writer := reflect.TypeFor[io.Writer]()
	for i := range v.NumMethod() {
		meth := v.Type().Method(i)
		if strings.HasPrefix(meth.Name, "Fit") {
			continue
		}
		ft := meth.Type
		args := make([]reflect.Value, ft.NumIn()-1)
		for j := range args {
			switch pt := ft.In(j + 1); {
			case pt == matrix:
				args[j] = reflect.ValueOf(x)
			case pt == writer:
				args[j] = reflect.ValueOf(&bytes.Buffer{})
			case pt == reflect.TypeFor[[]string]():
				args[j] = reflect.ValueOf(labels)
			case pt.Kind() == reflect.Int, pt.Kind() == reflect.Interface, pt.Kind() == reflect.Func:
				args[j] = reflect.Zero(pt)
			default:
				t.Fatalf("%T.%s: no argument for parameter type %v", m, meth.Name, pt)
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					panics[meth.Name] = r
				}
			}()
			results[meth.Name] = v.Method(i).Call(args)
		}()
	}
	return panics, results
}

// TestFitContract drives every estimator through the states of the fit
// contract (doc.go, "Fit contract") and calls every exported accessor in
// each: none panics, and each state holds what is documented.
func TestFitContract(t *testing.T) {
	t.Parallel()
	x := contractInputs()
	xt := mat.NewDense(5, 2, []float64{0, 0, 1, -1, -1.5, 0.5, 2, 2, -2, 1})
	labels := contractClasses(contractRows)
	for _, c := range contractModels() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := &contractRun{t: t, c: c, x: x, xt: xt, labels: labels[:5]}
			// Never fitted.
			r.empty("never fitted", c.make(Gaussian{Width: 1}, nil), NotFitted)
			m := r.fitted()
			r.failures(m)
			r.cancels(m)
		})
	}
}

// contractRun is TestFitContract's run on one estimator: its training
// inputs x, the test rows xt with labels, and the state of the first
// fit (predictions want, status st, bound l and k iterations).
type contractRun struct {
	t      *testing.T
	c      contractModel
	x, xt  *mat.Dense
	labels []string
	want   []float64
	st     Status
	l      float64
	k      int
}

// check calls every accessor of m, with no panic allowed.
func (r *contractRun) check(state string, m any) map[string][]reflect.Value {
	r.t.Helper()
	panics, res := callAccessors(r.t, m, r.xt, r.labels)
	for name, p := range panics {
		r.t.Errorf("%s: %s panics: %v", state, name, p)
	}
	return res
}

// empty checks the documented state of a model without a posterior.
func (r *contractRun) empty(state string, m any, want Status) {
	t, c := r.t, r.c
	t.Helper()
	res := r.check(state, m)
	if s := c.status(m); s != want {
		t.Errorf("%s: status %v, want %v", state, s, want)
	}
	if l := c.bound(m); !math.IsNaN(l) {
		t.Errorf("%s: LowerBound %v, want NaN", state, l)
	}
	if k := c.iters(m); k != 0 {
		t.Errorf("%s: Iterations %d, want 0", state, k)
	}
	if _, err := c.predict(m, r.xt); !errors.Is(err, ErrNotFitted) {
		t.Errorf("%s: prediction error %v, want ErrNotFitted", state, err)
	}
	if out := res["Save"]; len(out) != 1 || !errors.Is(asError(out[0]), ErrNotFitted) {
		t.Errorf("%s: Save returned %v, want ErrNotFitted", state, out)
	}
	for _, name := range []string{"Mean", "Alpha", "RelevanceVectors", "ActiveSet", "BoundTrace"} {
		if out := res[name]; len(out) == 1 && !out[0].IsNil() {
			t.Errorf("%s: %s = %v, want nil", state, name, out[0])
		}
	}
}

// fitted fits a model, records its state in r and checks that a copy
// read from its file predicts the same.
func (r *contractRun) fitted() any {
	t, c := r.t, r.c
	t.Helper()
	m := c.make(Gaussian{Width: 1}, nil)
	if err := c.fit(context.Background(), m, r.x, contractRows); err != nil {
		t.Fatal(err)
	}
	r.check("fitted", m)
	var err error
	if r.want, err = c.predict(m, r.xt); err != nil {
		t.Fatal(err)
	}
	r.st, r.l, r.k = c.status(m), c.bound(m), c.iters(m)
	if r.st == NotFitted || r.st == Canceled || math.IsNaN(r.l) || r.k == 0 {
		t.Fatalf("fitted: status %v, bound %v, %d iterations", r.st, r.l, r.k)
	}
	// Loaded from a file.
	var buf bytes.Buffer
	if err := m.(interface{ Save(io.Writer) error }).Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := c.load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r.same("loaded", loaded)
	return m
}

// same checks that m is in the state of the first fit.
func (r *contractRun) same(state string, m any) {
	t, c := r.t, r.c
	t.Helper()
	r.check(state, m)
	got, err := c.predict(m, r.xt)
	if err != nil {
		t.Fatalf("%s: %v", state, err)
	}
	if c.status(m) != r.st || c.bound(m) != r.l || c.iters(m) != r.k {
		t.Errorf("%s: status %v, bound %v, %d iterations; fitted: %v, %v, %d", state, c.status(m), c.bound(m), c.iters(m), r.st, r.l, r.k)
	}
	for i := range r.want {
		if !(math.Abs(got[i]-r.want[i]) <= 1e-12*math.Max(1, math.Abs(r.want[i]))) {
			t.Errorf("%s: prediction %d = %v, fitted %v", state, i, got[i], r.want[i])
			break
		}
	}
}

// failures checks that a fit that fails validation (10 targets for 40
// rows) leaves the fitted model m as it was; so does one with NaN
// inputs.
func (r *contractRun) failures(m any) {
	t, c := r.t, r.c
	ctx := context.Background()
	if err := c.fit(ctx, m, r.x, 10); err == nil {
		t.Fatal("10 targets for 40 rows: no error")
	}
	r.same("failed validation after a fit", m)
	bad := mat.DenseCopyOf(r.x)
	bad.Set(3, 1, math.NaN())
	if err := c.fit(ctx, m, bad, contractRows); err == nil {
		t.Fatal("NaN input: no error")
	}
	r.same("NaN input after a fit", m)
}

// cancels checks the fits cancelled before the start (m, fitted before),
// while the design is being built, and mid-iterations.
func (r *contractRun) cancels(m any) {
	t, c, x := r.t, r.c, r.x
	ctx := context.Background()
	// Cancelled before the fit starts: Canceled with no posterior, the
	// previous one discarded.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.fit(done, m, x, contractRows); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before start: error %v", err)
	}
	r.empty("cancelled before start", m, Canceled)

	// Cancelled while the design is being built: the kernel cancels the
	// context at its first evaluation.
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	md := c.make(hookKernel{n: new(atomic.Int64), at: 1, hook: dcancel}, nil)
	if err := c.fit(dctx, md, x, contractRows); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the design: error %v", err)
	}
	// The fit stops before its first iteration: no posterior.
	r.empty("cancelled during the design", md, Canceled)

	// Cancelled mid-iterations, from the Monitor at iteration 2: the
	// state of the last iteration, with Status Canceled.
	ictx, icancel := context.WithCancel(ctx)
	defer icancel()
	mi := c.make(Gaussian{Width: 1}, func(p Progress) bool {
		if p.Iteration == 2 {
			icancel()
		}
		return false
	})
	if err := c.fit(ictx, mi, x, contractRows); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-iterations: error %v", err)
	}
	if k := c.iters(mi); k < 2 {
		t.Errorf("cancelled mid-iterations: %d iterations, want at least 2", k)
	}
	canceled(t, c, "cancelled mid-iterations", mi, r.xt, r.check)
}

// canceled checks a model cancelled after its first iteration: Status
// Canceled, a finite bound, finite predictions, and a file that loads.
func canceled(t *testing.T, c contractModel, state string, m any, xt *mat.Dense, check func(string, any) map[string][]reflect.Value) {
	t.Helper()
	check(state, m)
	if s := c.status(m); s != Canceled {
		t.Errorf("%s: status %v, want Canceled", state, s)
	}
	if l := c.bound(m); math.IsNaN(l) || math.IsInf(l, 0) {
		t.Errorf("%s: bound %v", state, l)
	}
	p, err := c.predict(m, xt)
	if err != nil {
		t.Fatalf("%s: %v", state, err)
	}
	for i, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s: prediction %d = %v", state, i, v)
		}
	}
	var buf bytes.Buffer
	if err := m.(interface{ Save(io.Writer) error }).Save(&buf); err != nil {
		t.Fatalf("%s: Save: %v", state, err)
	}
	loaded, err := c.load(&buf)
	if err != nil {
		t.Fatalf("%s: Load: %v", state, err)
	}
	check(state+", loaded", loaded)
	if s := c.status(loaded); s != Canceled {
		t.Errorf("%s, loaded: status %v", state, s)
	}
}

// asError returns the error held by v, or nil.
func asError(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	err, _ := v.Interface().(error)
	return err
}
