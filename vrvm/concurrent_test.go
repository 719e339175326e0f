package vrvm

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Concurrent use. A fitted model is read-only to its prediction methods
// except for the state they prepare at the first call: the augmentation's
// design and residuals (augmentation.prepare, mcAugmentation.prepare,
// under a sync.Once each) and Σ of a fit that left it to a function
// (lazySigma, PaperSchedule). The tests below call every prediction
// method of every fitted model type from many goroutines at once, the
// first calls on the model included, and fit independent models at once,
// and require the results bit for bit of the same calls made one at a
// time; run them under the race detector (go test -race -run Concurrent).

// concurrentWorkers is the number of goroutines that call one model at
// once.
const concurrentWorkers = 8

// result is one call's output flattened for a bit-for-bit comparison:
// its numbers in order and its strings.
type result struct {
	nums []float64
	strs []string
}

// add appends the numbers of vs to r.
func (r *result) add(vs ...[]float64) {
	for _, v := range vs {
		r.nums = append(r.nums, v...)
	}
}

// addDense appends the elements of each matrix to r, row by row, after
// its dimensions.
func (r *result) addDense(ms ...mat.Matrix) {
	for _, m := range ms {
		n, c := m.Dims()
		r.nums = append(r.nums, float64(n), float64(c))
		for i := range n {
			for j := range c {
				r.nums = append(r.nums, m.At(i, j))
			}
		}
	}
}

// diff describes the first difference between r and s, or returns "" if
// they are the same to the bit.
func (r result) diff(s result) string {
	if len(r.nums) != len(s.nums) || len(r.strs) != len(s.strs) {
		return fmt.Sprintf("%d numbers and %d strings, want %d and %d", len(r.nums), len(r.strs), len(s.nums), len(s.strs))
	}
	for i, v := range r.nums {
		if math.Float64bits(v) != math.Float64bits(s.nums[i]) {
			return fmt.Sprintf("number %d is %v, want %v", i, v, s.nums[i])
		}
	}
	for i, v := range r.strs {
		if v != s.strs[i] {
			return fmt.Sprintf("string %d differs (%d bytes, want %d)", i, len(v), len(s.strs[i]))
		}
	}
	return ""
}

// call is one method of a model, with its arguments bound.
type call struct {
	name string
	run  func() (result, error)
}

// concurrentData is a seeded problem on two inputs in [−2, 2]²: targets
// sin(2x₀) + x₁/2 plus noise of sd 0.1, or, with classify, labels 1
// where that plus noise of sd 0.3 is positive.
func concurrentData(seed uint64, n int, classify bool) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	for i := range n {
		x0, x1 := 4*rnd.Float64()-2, 4*rnd.Float64()-2
		x.SetRow(i, []float64{x0, x1})
		f := math.Sin(2*x0) + x1/2
		if classify {
			if f+0.3*rnd.NormFloat64() > 0 {
				t[i] = 1
			}
		} else {
			t[i] = f + 0.1*rnd.NormFloat64()
		}
	}
	return x, t
}

// concurrentClasses is a seeded problem of three classes of n/3 rows in
// two dimensions, around (−1, 0), (1, 0) and (0, 1.5) with sd 0.6.
func concurrentClasses(seed uint64, n int) (*mat.Dense, []string) {
	rnd := rand.New(rand.NewPCG(seed, 19))
	centres := [][2]float64{{-1, 0}, {1, 0}, {0, 1.5}}
	names := []string{"a", "b", "c"}
	x := mat.NewDense(n, 2, nil)
	labels := make([]string, n)
	for i := range n {
		c := i % 3
		x.SetRow(i, []float64{centres[c][0] + 0.6*rnd.NormFloat64(), centres[c][1] + 0.6*rnd.NormFloat64()})
		labels[i] = names[c]
	}
	return x, labels
}

// concurrentGrid is the rows the predictions are made at: a side × side
// grid over [−3, 3]², beyond the training inputs (where the augmentation
// matters).
func concurrentGrid(side int) *mat.Dense {
	x := mat.NewDense(side*side, 2, nil)
	for i := range side {
		for j := range side {
			x.SetRow(i*side+j, []float64{-3 + 6*float64(i)/float64(side-1), -3 + 6*float64(j)/float64(side-1)})
		}
	}
	return x
}

// concurrentDesign is a user design on the rows of x: 1, x₀, x₁, x₀²,
// x₁², sin 2x₀.
func concurrentDesign(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	d := mat.NewDense(n, 6, nil)
	for i := range n {
		x0, x1 := x.At(i, 0), x.At(i, 1)
		d.SetRow(i, []float64{1, x0, x1, x0 * x0, x1 * x1, math.Sin(2 * x0)})
	}
	return d
}

// savedBytes returns what save writes.
func savedBytes(save func(io.Writer) error) (result, error) {
	var b bytes.Buffer
	err := save(&b)
	return result{strs: []string{b.String()}}, err
}

// binaryModel is what the calls of a binary estimator use: the methods
// common to Regressor, Classifier, RVMRegressor and RVMClassifier.
type binaryModel interface {
	Latent(x mat.Matrix) (mean, variance []float64, err error)
	LatentPlain(x mat.Matrix) (mean, variance []float64, err error)
	Covariance() *mat.SymDense
	Save(w io.Writer) error
	String() string
}

// binaryCalls returns the calls of the methods common to the binary
// estimators, at the rows of x, plus the prediction methods of a
// regression (Predict, EffectiveParameters) or a classifier (Predict,
// ProbPlugin, ProbModerated).
func binaryCalls(m binaryModel, x *mat.Dense) []call {
	latent := func(f func(mat.Matrix) ([]float64, []float64, error)) func() (result, error) {
		return func() (result, error) {
			var r result
			mean, v, err := f(x)
			r.add(mean, v)
			return r, err
		}
	}
	probs := func(f func(mat.Matrix) ([]float64, error)) func() (result, error) {
		return func() (result, error) {
			var r result
			p, err := f(x)
			r.add(p)
			return r, err
		}
	}
	calls := []call{
		{"Latent", latent(m.Latent)},
		{"LatentPlain", latent(m.LatentPlain)},
		{"Covariance", func() (result, error) { var r result; r.addDense(m.Covariance()); return r, nil }},
		{"Save", func() (result, error) { return savedBytes(m.Save) }},
		{"String", func() (result, error) { return result{strs: []string{m.String()}}, nil }},
	}
	switch m := m.(type) {
	case interface {
		Predict(mat.Matrix) ([]float64, []float64, error)
		EffectiveParameters() float64
	}:
		calls = append(calls, call{"Predict", latent(m.Predict)},
			call{"EffectiveParameters", func() (result, error) { return result{nums: []float64{m.EffectiveParameters()}}, nil }})
	case interface {
		Predict(mat.Matrix) ([]float64, error)
		ProbPlugin(mat.Matrix) ([]float64, error)
		ProbModerated(mat.Matrix) ([]float64, error)
	}:
		calls = append(calls, call{"Predict", probs(m.Predict)}, call{"ProbPlugin", probs(m.ProbPlugin)},
			call{"ProbModerated", probs(m.ProbModerated)})
	}
	return calls
}

// multiCalls returns the calls of every prediction method of a
// MultiClassifier at the rows of x (labels for ErrorRate and LogLoss),
// with Covariance of each class and Save.
func multiCalls(c *MultiClassifier, x *mat.Dense, labels []string) []call {
	dense2 := func(f func(mat.Matrix) (*mat.Dense, *mat.Dense, error)) func() (result, error) {
		return func() (result, error) {
			var r result
			a, b, err := f(x)
			if err == nil {
				r.addDense(a, b)
			}
			return r, err
		}
	}
	dense1 := func(f func(mat.Matrix) (*mat.Dense, error)) func() (result, error) {
		return func() (result, error) {
			var r result
			a, err := f(x)
			if err == nil {
				r.addDense(a)
			}
			return r, err
		}
	}
	score := func(f func(mat.Matrix, []string) (float64, error)) func() (result, error) {
		return func() (result, error) {
			v, err := f(x, labels)
			return result{nums: []float64{v}}, err
		}
	}
	calls := []call{
		{"Latent", dense2(c.Latent)},
		{"LatentPlain", dense2(c.LatentPlain)},
		{"Prob", dense1(c.Prob)},
		{"ProbPlugin", dense1(c.ProbPlugin)},
		{"Predict", func() (result, error) { p, err := c.Predict(x); return result{strs: p}, err }},
		{"PredictIndex", func() (result, error) {
			p, err := c.PredictIndex(x)
			var r result
			for _, i := range p {
				r.nums = append(r.nums, float64(i))
			}
			return r, err
		}},
		{"ErrorRate", score(c.ErrorRate)},
		{"LogLoss", score(c.LogLoss)},
		{"Save", func() (result, error) { return savedBytes(c.Save) }},
		{"String", func() (result, error) { return result{strs: []string{c.String()}}, nil }},
	}
	for k := range c.Classes() {
		calls = append(calls, call{fmt.Sprintf("Covariance(%d)", k), func() (result, error) {
			var r result
			r.addDense(c.Covariance(k))
			return r, nil
		}})
	}
	return calls
}

// concurrentModel is a way of making a fitted model and its calls: each
// call of make returns the calls of a new model, fitted or loaded the
// same way, none of whose methods has been called yet.
type concurrentModel struct {
	name string
	make func() ([]call, error)
}

// fittedAndLoaded returns two concurrentModels for the model that fit
// returns: fitted afresh at each make, and loaded by load from the file
// of one fit.
func fittedAndLoaded[M interface{ Save(io.Writer) error }](name string, fit func() (M, error), load func(io.Reader) (M, error), calls func(M) []call) []concurrentModel {
	var file []byte
	var fileErr error
	var once sync.Once
	return []concurrentModel{
		{name + "/fitted", func() ([]call, error) {
			m, err := fit()
			if err != nil {
				return nil, err
			}
			return calls(m), nil
		}},
		{name + "/loaded", func() ([]call, error) {
			once.Do(func() {
				var m M
				if m, fileErr = fit(); fileErr != nil {
					return
				}
				var b bytes.Buffer
				fileErr = m.Save(&b)
				file = b.Bytes()
			})
			if fileErr != nil {
				return nil, fileErr
			}
			m, err := load(bytes.NewReader(file))
			if err != nil {
				return nil, err
			}
			return calls(m), nil
		}},
	}
}

// loadAs returns a Load for the estimator type M.
func loadAs[M Estimator](r io.Reader) (M, error) {
	var zero M
	e, err := Load(r)
	if err != nil {
		return zero, err
	}
	m, ok := e.(M)
	if !ok {
		return zero, fmt.Errorf("the file holds a %T, not a %T", e, zero)
	}
	return m, nil
}

// concurrentModels returns every fitted model type, on small seeded
// problems, fitted and loaded: the four binary estimators with the
// default augmentation where they have it, a Regressor fitted by the
// paper's schedule with every function kept (Σ formed at the first
// prediction, more functions than quadDim), one fitted to a user design,
// one with ARDGaussian (evaluated by Eval, without EvalBlock), a
// Classifier with a polynomial kernel (divided by its scale (U1), not
// augmented (A9)) and one with a named kernel, and MultiClassifier
// with each likelihood (the softmax augmented).
// They predict on 3,600 rows, enough for the blocks of latentTo and
// augment.Exact to be spread over two workers, or on 900 where a row costs
// more (81 functions; the probit's quadrature).
func concurrentModels() []concurrentModel {
	large, small := concurrentGrid(60), concurrentGrid(30)
	xr, tr := concurrentData(1, 60, false)
	xs, ts := concurrentData(2, 80, false)
	xc, tc := concurrentData(3, 60, true)
	xm, lm := concurrentClasses(4, 60)
	labels := func(x *mat.Dense) []string {
		l := make([]string, x.RawMatrix().Rows)
		for i := range l {
			l[i] = []string{"a", "b", "c"}[i%3]
		}
		return l
	}
	k := Gaussian{Width: 0.6}
	var models []concurrentModel
	loader := Loader{Kernels: map[string]Kernel{"concurrent-test-ard": ARDGaussian{Scales: []float64{0.6, 0.8}}}}
	binary := func(name string, grid *mat.Dense, fit func() (Estimator, error)) {
		models = append(models, fittedAndLoaded(name, fit, loader.Load, func(e Estimator) []call {
			return binaryCalls(e.(binaryModel), grid)
		})...)
	}
	binary("Regressor", large, func() (Estimator, error) {
		r := &Regressor{Kernel: k}
		return r, r.Fit(xr, tr)
	})
	binary("Regressor/schedule", small, func() (Estimator, error) {
		r := &Regressor{Kernel: k, Method: PaperSchedule{}, NoPrune: true, MaxIter: 50}
		return r, r.Fit(xs, ts)
	})
	models = append(models, fittedAndLoaded("Regressor/design", func() (*Regressor, error) {
		r := &Regressor{}
		return r, r.FitDesign(concurrentDesign(xr), tr)
	}, loadAs[*Regressor], func(r *Regressor) []call { return binaryCalls(r, concurrentDesign(large)) })...)
	binary("Classifier", large, func() (Estimator, error) {
		c := &Classifier{Kernel: k}
		return c, c.Fit(xc, tc)
	})
	binary("Classifier/polynomial", large, func() (Estimator, error) {
		c := &Classifier{Kernel: Polynomial{Degree: 2, Scale: 2}}
		return c, c.Fit(xc, tc)
	})
	binary("Regressor/ard", large, func() (Estimator, error) {
		r := &Regressor{Kernel: ARDGaussian{Scales: []float64{0.6, 0.8}}}
		return r, r.Fit(xr, tr)
	})
	named := NamedKernel("concurrent-test-ard", ARDGaussian{Scales: []float64{0.6, 0.8}})
	binary("Classifier/named", large, func() (Estimator, error) {
		c := &Classifier{Kernel: named}
		return c, c.Fit(xc, tc)
	})
	binary("RVMRegressor", large, func() (Estimator, error) {
		r := &RVMRegressor{Kernel: k}
		return r, r.Fit(xr, tr)
	})
	binary("RVMClassifier", large, func() (Estimator, error) {
		c := &RVMClassifier{Kernel: k}
		return c, c.Fit(xc, tc)
	})
	for _, lik := range []MultiLikelihood{Softmax, SoftmaxAdaptive, Probit} {
		grid := large
		if lik == Probit {
			grid = small
		}
		models = append(models, fittedAndLoaded("MultiClassifier/"+lik.String(), func() (*MultiClassifier, error) {
			c := &MultiClassifier{Kernel: Gaussian{Width: 0.8}, Likelihood: lik}
			return c, c.Fit(xm, lm)
		}, LoadMultiClassifier, func(c *MultiClassifier) []call { return multiCalls(c, grid, labels(grid)) })...)
	}
	return models
}

// TestConcurrentPredict checks that every prediction method of every
// fitted model type, fitted and loaded, gives the same result to the bit
// when called from concurrentWorkers goroutines at once on one model as
// when called alone on another model made the same way. The goroutines
// start together on a model none of whose methods has run, goroutine w
// at method w (mod the number of methods) and then through all of them,
// so that the first calls, which prepare the augmentation and Σ, race
// each other and the later ones read what they prepared.
func TestConcurrentPredict(t *testing.T) {
	t.Parallel()
	for _, cm := range concurrentModels() {
		t.Run(cm.name, func(t *testing.T) {
			calls, err := cm.make()
			if err != nil {
				t.Fatal(err)
			}
			want := make([]result, len(calls))
			for i, c := range calls {
				if want[i], err = c.run(); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
			}
			if calls, err = cm.make(); err != nil {
				t.Fatal(err)
			}
			n := len(calls)
			got := make([][]result, concurrentWorkers)
			errs := make([][]error, concurrentWorkers)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for w := range concurrentWorkers {
				got[w], errs[w] = make([]result, n), make([]error, n)
				wg.Go(func() {
					<-start
					for j := range n {
						i := (w + j) % n
						got[w][i], errs[w][i] = calls[i].run()
					}
				})
			}
			close(start)
			wg.Wait()
			for w := range concurrentWorkers {
				for i, c := range calls {
					if errs[w][i] != nil {
						t.Errorf("goroutine %d, %s: %v", w, c.name, errs[w][i])
					} else if d := got[w][i].diff(want[i]); d != "" {
						t.Errorf("goroutine %d, %s: %s", w, c.name, d)
					}
				}
			}
		})
	}
}

// concurrentFit is one fit of TestConcurrentFit: it fits a new model and
// returns what the fit found, flattened.
type concurrentFit struct {
	name string
	fit  func() (result, error)
}

// fittedBinary is what fitResult reads of a binary estimator.
type fittedBinary interface {
	binaryModel
	ActiveSet() []int
	Mean() []float64
	Alpha() []float64
	BoundTrace() []float64
	LearnTrace() []float64
	FittedKernel() Kernel
}

// fitResult flattens what a binary estimator's fit found: the active
// set, μ, Σ, ⟨α⟩, the bound traces, the fitted kernel, and the
// predictive means and variances at the rows of x.
func fitResult(e fittedBinary, x *mat.Dense) (result, error) {
	var r result
	for _, a := range e.ActiveSet() {
		r.nums = append(r.nums, float64(a))
	}
	r.add(e.Mean(), e.Alpha(), e.BoundTrace(), e.LearnTrace())
	r.addDense(e.Covariance())
	mean, v, err := e.Latent(x)
	r.add(mean, v)
	r.strs = append(r.strs, kernelString(e.FittedKernel()))
	return r, err
}

// TestConcurrentFit checks that independent models fitted at once are
// the models fitted one at a time, to the bit, and leave their inputs
// as they were: for two seeds, a Regressor and a Classifier with their
// default kernels (the dense model's evidence (W4)–(W5) and the width
// learned by the bound), an RVMClassifier with its default width (R7),
// on the Classifier's inputs and labels, and a MultiClassifier with a
// learned width; eight fits at once.
func TestConcurrentFit(t *testing.T) {
	t.Parallel()
	grid := concurrentGrid(30)
	var fits []concurrentFit
	var inputs []*mat.Dense
	var targets [][]float64
	for s := range uint64(2) {
		xr, tr := concurrentData(10+s, 60, false)
		xc, tc := concurrentData(20+s, 50, true)
		xm, lm := concurrentClasses(40+s, 45)
		inputs, targets = append(inputs, xr, xc, xm), append(targets, tr, tc)
		// binary fits a new estimator from fresh at every call.
		binary := func(name string, fresh func() Estimator, x *mat.Dense, y []float64) concurrentFit {
			return concurrentFit{fmt.Sprintf("%s %d", name, s), func() (result, error) {
				m := fresh()
				if err := m.FitContext(t.Context(), x, y); err != nil {
					return result{}, err
				}
				return fitResult(m.(fittedBinary), grid)
			}}
		}
		fits = append(fits,
			binary("Regressor", func() Estimator { return &Regressor{} }, xr, tr),
			binary("Classifier", func() Estimator { return &Classifier{} }, xc, tc),
			binary("RVMClassifier", func() Estimator { return &RVMClassifier{} }, xc, tc),
			concurrentFit{fmt.Sprintf("MultiClassifier %d", s), func() (result, error) {
				c := &MultiClassifier{}
				if err := c.Fit(xm, lm); err != nil {
					return result{}, err
				}
				var r result
				r.add(c.BoundTrace(), c.LearnTrace())
				r.addDense(c.Mean(), c.Alpha())
				p, err := c.Prob(grid)
				if err == nil {
					r.addDense(p)
				}
				r.strs = append(r.strs, kernelString(c.FittedKernel()))
				return r, err
			}},
		)
	}
	var data result
	data.addDense(grid)
	for _, x := range inputs {
		data.addDense(x)
	}
	data.add(targets...)
	want := make([]result, len(fits))
	for i, f := range fits {
		var err error
		if want[i], err = f.fit(); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	got := make([]result, len(fits))
	errs := make([]error, len(fits))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, f := range fits {
		wg.Go(func() {
			<-start
			got[i], errs[i] = f.fit()
		})
	}
	close(start)
	wg.Wait()
	for i, f := range fits {
		if errs[i] != nil {
			t.Errorf("%s, fitted concurrently: %v", f.name, errs[i])
		} else if d := got[i].diff(want[i]); d != "" {
			t.Errorf("%s, fitted concurrently: %s", f.name, d)
		}
	}
	var after result
	after.addDense(grid)
	for _, x := range inputs {
		after.addDense(x)
	}
	after.add(targets...)
	if d := after.diff(data); d != "" {
		t.Errorf("the fits changed their inputs: %s", d)
	}
}

// TestConcurrentKernelOwned checks that a fitted or loaded model owns its
// kernel's parameters, so that a caller who fits models for several ARD
// length scales by changing one ARDGaussian's Scales between fits, while
// goroutines predict with the models already fitted, leaves every
// model's predictions as they were; and so does a caller changing the
// Scales of FittedKernel, or of a loaded model's Kernel.
func TestConcurrentKernelOwned(t *testing.T) {
	t.Parallel()
	x, y := concurrentData(1, 60, false)
	xm, lm := concurrentClasses(4, 60)
	grid := concurrentGrid(30)
	s := []float64{0.6, 0.8}
	k := ARDGaussian{Scales: s}
	r := &Regressor{Kernel: k}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	c := &MultiClassifier{Kernel: k}
	if err := c.Fit(xm, lm); err != nil {
		t.Fatal(err)
	}
	predict := func() (result, error) {
		var out result
		mean, v, err := r.Predict(grid)
		if err != nil {
			return out, err
		}
		out.add(mean, v)
		p, err := c.Prob(grid)
		if err == nil {
			out.addDense(p)
		}
		return out, err
	}
	want, err := predict()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]result, concurrentWorkers)
	errs := make([]error, concurrentWorkers)
	var wg sync.WaitGroup
	for w := range concurrentWorkers {
		wg.Go(func() { got[w], errs[w] = predict() })
	}
	// The next model, at other scales, fitted meanwhile.
	s[0], s[1] = 2, 3
	next := &Regressor{Kernel: k}
	if err := next.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for w := range concurrentWorkers {
		if errs[w] != nil {
			t.Errorf("goroutine %d: %v", w, errs[w])
		} else if d := got[w].diff(want); d != "" {
			t.Errorf("goroutine %d, predicting while the caller changed the kernel's scales: %s", w, d)
		}
	}
	if got, err := predict(); err != nil || got.diff(want) != "" {
		t.Errorf("after the caller changed the kernel's scales: %v %s", err, got.diff(want))
	}
	r.FittedKernel().(ARDGaussian).Scales[0] = 9
	c.FittedKernel().(ARDGaussian).Scales[0] = 9
	if got, err := predict(); err != nil || got.diff(want) != "" {
		t.Errorf("after a change to FittedKernel's scales: %v %s", err, got.diff(want))
	}
	var b bytes.Buffer
	if err := r.Save(&b); err != nil {
		t.Fatal(err)
	}
	l, err := loadAs[*Regressor](&b)
	if err != nil {
		t.Fatal(err)
	}
	wantL, _, err := l.Predict(grid)
	if err != nil {
		t.Fatal(err)
	}
	l.Kernel.(ARDGaussian).Scales[0] = 11
	gotL, _, err := l.Predict(grid)
	if err != nil {
		t.Fatal(err)
	}
	if d := (result{nums: gotL}).diff(result{nums: wantL}); d != "" {
		t.Errorf("loaded model, after a change to its Kernel's scales: %s", d)
	}
}
