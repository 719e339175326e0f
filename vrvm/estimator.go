package vrvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// Task is what a model predicts.
type Task int

const (
	Regression     Task = iota // real-valued targets
	Classification             // labels 0 and 1
)

// String returns "regression" or "classification", and Task(n) for a
// value that is neither.
func (t Task) String() string {
	switch t {
	case Regression:
		return "regression"
	case Classification:
		return "classification"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// Estimator is what the tools built on the binary estimators need of them
// (Regressor, Classifier, RVMRegressor, RVMClassifier, RobustRegressor):
// model selection, the paper's experiments and the command line fit,
// compare, describe, save and predict with any of them without a type
// switch. Every
// estimator also has a String and an HTML summary and the accessors of
// its posterior (Mean, Covariance, Alpha, BoundTrace, Inputs); reach
// those, and the estimator's own (TauPosterior, Xi, ...), through the
// concrete type. No accessor panics: without a posterior they return
// zero values (doc.go, "Fit contract").
type Estimator interface {
	// FitContext fits the model to inputs x (one row per sample) and
	// targets t; see Regressor.FitContext.
	FitContext(ctx context.Context, x mat.Matrix, t []float64) error
	// WithKernel returns an unfitted copy of the configuration with
	// kernel k and no Monitor.
	WithKernel(k Kernel) Estimator
	// Task reports whether the model is a regression or a classifier.
	Task() Task
	// Latent returns the mean and variance of the latent function
	// wᵀφ(x) (the activation, for a classifier) at each row of x.
	Latent(x mat.Matrix) (mean, variance []float64, err error)
	// NoiseSD returns the noise standard deviation of a regression, 0
	// for a classifier.
	NoiseSD() float64
	Status() Status
	Iterations() int
	LowerBound() float64
	FullModelBound() float64
	RelevanceVectors() []int
	ActiveSet() []int
	HasBias() bool
	InputDim() int
	// Save writes the fitted model; Load reads it back.
	Save(w io.Writer) error
}

var (
	_ Estimator = (*Regressor)(nil)
	_ Estimator = (*Classifier)(nil)
	_ Estimator = (*RVMRegressor)(nil)
	_ Estimator = (*RVMClassifier)(nil)
)

// fitVariational fits a VRVM: it prepares the options o and the data
// (prepare), builds the likelihood of the task with newLik, which may
// reject the data or its options, runs the solver the options choose and
// records its solution in f. recorded reports whether there was a
// solution to record; a fit stopped by its context or Monitor records the
// state it reached and returns an error too.
func (f *fitted) fitVariational(ctx context.Context, o options, x mat.Matrix, t []float64, design bool, v variational,
	newLik func(settings, []float64) (likelihood, error)) (lik likelihood, err error) {
	// A nil Kernel without LearnKernel is the default: for regression the
	// width of the dense model's evidence (defaultWidth), otherwise a
	// Gaussian width learned from the inputs' median distance
	// (defaultKernel).
	implicit := o.kernel == nil && !design && !v.learn
	if v.learn && !design && f.task == "regression" && !o.ctl.learnByBound && !v.learning.ByBound && byEvidence(o.kernel) {
		return f.fitByEvidence(ctx, o, x, t, v, newLik) // (E2)–(E6)
	}
	widen := false
	if implicit && f.task == "regression" {
		// Regression's default: the width of the dense model's evidence
		// (internal/kernlearn, (W1)–(W4)), then one fit at that width, or at
		// twice it while the fit's γ exceeds half the rows (W5).
		if err := f.defaultWidth(ctx, &o, x, t, v.learning); err != nil {
			return nil, err
		}
		implicit, widen = false, true
	}
	given := o.kernel // the start the user gave, if any
	k0, err := startLearning(v.learn || implicit, implicit, design, &o, x, t)
	if err != nil {
		return nil, err
	}
	s, b, first, err := prepareLik(o, x, t, design, newLik)
	if err != nil {
		return nil, err
	}
	var learned []float64
	if k0 != nil {
		// Learn on at most MaxRows rows, then fit every row at the
		// learned kernel.
		lo, err := v.learning.resolve(k0)
		if err != nil {
			return nil, err
		}
		xs, ts := learnRows(x, t, lo.MaxRows)
		if xs != x {
			if _, err := newLik(s, ts); err != nil {
				xs, ts = x, t // e.g. one class only in the rows kept
			}
		}
		if xs == x && b.sub != nil {
			// Learning on every row centres a function at every row.
			return nil, &OptionError{Field: "Centres", Value: float64(len(b.sub)),
				Reason: "learning the kernel on every training row needs every row as a centre: set Centres to the number of rows, or Learning.MaxRows below it"}
		}
		if f.task == "regression" && !s.noEvidenceStart {
			k0 = evidenceStart(ctx, given, k0, xs, ts)
		}
		sl, bl := s, b
		bl.centers, bl.sub = mat.DenseCopyOf(xs), nil
		again := func() likelihood { l, _ := newLik(sl, ts); return l }
		res, err := learnKernel(ctx, sl, bl, xs, k0, lo, again)
		if f.task == "classification" && err == nil && res != nil {
			res, err = f.guardARD(ctx, sl, bl, xs, res, lo, v.learning, again) // (E7)
		}
		if res == nil {
			return nil, err
		}
		if err != nil || xs == x {
			// Learned on every row, or stopped: the best fit so far is
			// the model.
			return f.finish(res.prob, res.sol, res.trace, v, err)
		}
		learned = res.trace
		s.kernel, b.kernel = res.kernel, res.kernel
	}
	p := &problem{basis: b, x: x, lik: first, set: s}
	if widen {
		return f.fitWidened(ctx, o, x, t, p, v, newLik)
	}
	sol, err := s.method.algorithm().fit(ctx, p)
	return f.finish(p, sol, learned, v, err)
}

// defaultWidth sets o.kernel to the Gaussian whose width maximises the
// evidence of the dense model (W4) on at most lo.MaxRows rows of x spread
// evenly through it, from the inputs' MedianDistance. Inputs whose rows
// are all equal get Gaussian{Width: 1} (every width gives the same
// constant functions), and so do targets that do not vary. A context
// cancelled during the search leaves the best width so far, so that the
// fit that follows stops at once and keeps its state.
func (f *fitted) defaultWidth(ctx context.Context, o *options, x mat.Matrix, t []float64, lo KernelLearning) error {
	if err := checkInputs(x, t); err != nil {
		return err
	}
	o.kernel = Gaussian{Width: 1}
	r0 := MedianDistance(x)
	if !(r0 > 0) || math.IsInf(r0*r0, 0) {
		return nil
	}
	if lo.MaxRows == 0 {
		lo.MaxRows = defaultLearnRows
	}
	xs, ts := learnRows(x, t, lo.MaxRows)
	r, e, err := denseWidth(ctx, xs, ts, r0)
	switch {
	case errors.Is(err, errFlatTargets):
		r, e = r0, 0
	case err != nil && ctx != nil && ctx.Err() != nil:
		// Stopped during the search: the best width so far, whose fit
		// stops at once and keeps the state it reached, as any fit does.
		e = 0
	case err != nil:
		return err
	}
	o.kernel = Gaussian{Width: r}
	f.widthEvidence = e
	return nil
}

// byEvidence reports whether Regressor's LearnKernel learns k by the
// dense model's evidence (E2)–(E6): a nil kernel (a Gaussian), Gaussian
// or ARDGaussian. Another Learnable kernel is learned by the full-model
// bound (K1)–(K8).
func byEvidence(k Kernel) bool {
	_, ok := k.(interface{ byEvidence() })
	return k == nil || ok
}

// evidenceStart returns the starting point of a regression's kernel
// learning on the rows xs, ts: for a Gaussian width the user did not
// give (a nil Kernel or Gaussian{}) the width of the dense model's
// evidence (W4) on those rows (C2), otherwise k0 (from startKernel). If
// the evidence cannot be computed (flat targets, a cancelled context, a
// NaN evidence on a few rows), k0.
func evidenceStart(ctx context.Context, given Kernel, k0 Learnable, xs mat.Matrix, ts []float64) Learnable {
	if g, ok := given.(Gaussian); given != nil && (!ok || g.Width != 0) {
		return k0
	}
	r0 := MedianDistance(xs)
	if !(r0 > 0) || math.IsInf(r0*r0, 0) {
		return k0
	}
	r, _, err := denseWidth(ctx, xs, ts, r0)
	if err != nil || !(r > 0) || math.IsInf(r, 0) {
		return k0
	}
	return Gaussian{Width: r}
}

// finish records the solution sol of problem p (and the learning trace)
// in f, with the augmentation of predictions if v asks for it; err is
// the solver's.
func (f *fitted) finish(p *problem, sol *solution, learned []float64, v variational, err error) (likelihood, error) {
	if sol == nil {
		return nil, err
	}
	f.record(p.basis, sol)
	f.learnTrace = learned
	if v.augment {
		var aerr error
		if f.aug, aerr = newAugmentation(p, sol, v.gauss); aerr != nil {
			f.status = NotFitted
			return nil, aerr
		}
		if v.exact && f.aug != nil {
			f.aug.lowRank.ExactRows = -1 // (A19) off
		}
	}
	return p.lik, err
}

// variational holds the options of the variational estimators beyond
// options: kernel learning and the augmentation of predictions.
type variational struct {
	learn    bool
	learning KernelLearning
	augment  bool
	// exact keeps the exact augmentation at any N where (A12) fails,
	// instead of the floor alone (A19).
	exact bool
	// gauss: the likelihood is Gaussian noise, whose precision sets the
	// augmentation's GP floor (A18).
	gauss bool
}

// prepareLik is prepare followed by newLik, the likelihood of the task
// for the resolved settings and the targets t.
func prepareLik(o options, x mat.Matrix, t []float64, design bool,
	newLik func(settings, []float64) (likelihood, error)) (settings, basis, likelihood, error) {
	s, b, err := prepare(o, x, t, design)
	if err != nil {
		return s, b, nil, err
	}
	lik, err := newLik(s, t)
	return s, b, lik, err
}

// prepare resolves an estimator's options, validates the data and the
// kernel, and returns the full candidate basis: the bias (unless NoBias)
// and one kernel function per row of x (or per row of a subset of x, see
// design.DefaultMaxCentres), or, for a user design matrix, its columns.
func prepare(o options, x mat.Matrix, t []float64, userDesign bool) (settings, basis, error) {
	s, err := o.resolve()
	if !userDesign && err == nil {
		err = validateKernel(s.kernel)
	}
	if err != nil {
		return s, basis{}, err
	}
	if err := checkInputs(x, t); err != nil {
		return s, basis{}, err
	}
	_, d := x.Dims()
	if userDesign {
		b := basis{dim: d}
		if !o.ownScale {
			b.scales = design.ColumnScales(x) // (U1)
		}
		return s, b, nil
	}
	if err := checkKernelDim(s.kernel, d); err != nil {
		return s, basis{}, err
	}
	b := basis{kernel: s.kernel, bias: s.bias, dim: d}
	n, _ := x.Dims()
	if b.sub = design.CentreRows(n, o.centres, o.hasCentres); b.sub != nil {
		b.centers = selectRows(denseOf(x), b.sub)
	} else {
		b.centers = mat.DenseCopyOf(x)
	}
	if err := b.checkScale(); err != nil {
		return s, b, err
	}
	if o.ownScale {
		return s, b, nil
	}
	// The solvers see the kernel divided by its scale if above 1 (U1);
	// the fitted model is stated in the kernel's own units (U2).
	k, err := unitKernel(b.kernel, b.centers)
	if err != nil {
		return s, b, err
	}
	s.kernel, b.kernel = k, k
	return s, b, nil
}
