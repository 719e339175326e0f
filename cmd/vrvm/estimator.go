package main

// The only file of the command that builds the library's estimators: fit
// and predict see a model through vrvm.Estimator and the functions below,
// and the model file of the command (model.go) is the library's model file
// with the command's metadata.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// estimatorOptions are the fit settings taken from the flags.
type estimatorOptions struct {
	// Model is "vrvm" (the variational RVM; "" means it) or "rvm" (the
	// type-II maximum likelihood RVM of Tipping 2001, which ignores
	// Prior, NoPrune and PaperSchedule).
	Model         string
	Kernel        vrvm.Kernel
	NoBias        bool
	Prior         vrvm.Prior
	NoPrune       bool
	MaxIter       int
	PaperSchedule bool
	LearnKernel   bool
	// Noise is the regression noise: "student" fits vrvm.RobustRegressor
	// (Student-t noise), anything else Gaussian noise.
	Noise string
	// Augment augments the predictions of the VRVMs (their NoAugment is
	// !Augment).
	Augment bool
	// AugmentExact keeps a regressor's exact augmentation at any number
	// of rows (vrvm.Regressor.ExactAugment).
	AugmentExact bool
	Monitor      func(vrvm.Progress) bool
	// Labels are the class label of each row for task "multiclass"
	// (vrvm.MultiClassifier); nil otherwise.
	Labels []string
}

// estimator is a fitted or loaded model: a vrvm.Estimator m, or a
// multi-class model mc.
type estimator struct {
	m  vrvm.Estimator
	mc *vrvm.MultiClassifier
	// labels are the training labels of a multi-class fit (its summary).
	labels []string
}

// fitEstimator builds the estimator of a task and fits it.
func fitEstimator(ctx context.Context, task string, o estimatorOptions, x *mat.Dense, t []float64) (*estimator, error) {
	var solver vrvm.Method = vrvm.Sequential{}
	if o.PaperSchedule {
		solver = vrvm.PaperSchedule{}
	}
	var m vrvm.Estimator
	switch {
	case task == "multiclass":
		if o.Model == "rvm" {
			return nil, errors.New("the multi-class model (more than two class labels) does not support -model rvm")
		}
		mc := &vrvm.MultiClassifier{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor, Method: solver,
			LearnKernel: o.LearnKernel, NoAugment: !o.Augment}
		return &estimator{mc: mc, labels: o.Labels}, mc.FitContext(ctx, x, o.Labels)
	case o.Model == "rvm" && task == "regression":
		m = &vrvm.RVMRegressor{Kernel: o.Kernel, NoBias: o.NoBias, MaxIter: o.MaxIter, Monitor: o.Monitor}
	case o.Model == "rvm" && task == "classification":
		m = &vrvm.RVMClassifier{Kernel: o.Kernel, NoBias: o.NoBias, MaxIter: o.MaxIter, Monitor: o.Monitor}
	case o.Model != "" && o.Model != "vrvm":
		return nil, fmt.Errorf("unknown model %q", o.Model)
	case task == "regression" && o.Noise == "student":
		m = &vrvm.RobustRegressor{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor,
			NoAugment: !o.Augment}
	case o.Noise == "student":
		return nil, errors.New("the Student-t noise (-noise student) applies to regression only")
	case task == "regression":
		m = &vrvm.Regressor{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor, Method: solver,
			LearnKernel: o.LearnKernel, NoAugment: !o.Augment, ExactAugment: o.AugmentExact}
	case task == "classification":
		m = &vrvm.Classifier{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor, Method: solver,
			LearnKernel: o.LearnKernel, NoAugment: !o.Augment}
	default:
		return nil, fmt.Errorf("unknown task %q", task)
	}
	return &estimator{m: m}, m.FitContext(ctx, x, t)
}

// loadEstimator reads the library's model file, and its metadata into meta
// (a pointer; nil to ignore it): a multi-class model (task "multiclass")
// with vrvm.LoadMultiClassifierMeta, any other with vrvm.LoadMeta.
func loadEstimator(r io.Reader, meta any) (*estimator, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var head struct {
		Payload struct {
			Task string `json:"task"`
		} `json:"payload"`
	}
	if json.Unmarshal(data, &head) == nil && head.Payload.Task == "multiclass" {
		mc, err := vrvm.LoadMultiClassifierMeta(bytes.NewReader(data), meta)
		if err != nil {
			return nil, err
		}
		return &estimator{mc: mc}, nil
	}
	m, err := vrvm.LoadMeta(bytes.NewReader(data), meta)
	if err != nil {
		return nil, err
	}
	return &estimator{m: m}, nil
}

// save writes the library's model file with the metadata meta.
func (e *estimator) save(w io.Writer, meta any) error {
	if e.mc != nil {
		return e.mc.SaveMeta(w, meta)
	}
	return vrvm.SaveMeta(w, e.m, meta)
}

// task is the model's task: "regression", "classification" or
// "multiclass".
func (e *estimator) task() string {
	if e.mc != nil {
		return "multiclass"
	}
	return e.m.Task().String()
}

// checkInputs returns an error if the model does not take d inputs.
func (e *estimator) checkInputs(d int) error {
	want := 0
	if e.mc != nil {
		want = e.mc.InputDim()
	} else {
		want = e.m.InputDim()
	}
	if want != d {
		return fmt.Errorf("the model takes %d inputs, the file describes %d", want, d)
	}
	return nil
}

// fitSummary is what vrvm fit reports after a fit.
type fitSummary struct {
	Status        vrvm.Status
	IterLimit     bool // stopped at the iteration limit
	Iterations    int
	Relevance     int  // relevance vectors (kernel functions), bias not counted
	Bias          bool // the bias is in the model
	Bound         float64
	NoiseSD       float64   // regression, in the units the model was fitted in
	TrainingError float64   // regression: RMS error of the mean; classification: error rate
	Kernel        string    // the learned or chosen kernel (-width auto, -kernel ard, the default), "" otherwise
	Fits          int       // the fits kernel learning made
	ByEvidence    []float64 // a Regressor's LearnKernel: the dense model's evidence at the default width and at the learned kernel (LearnTrace)
	ARDGuarded    bool      // a Classifier's ARD length scales were not kept: the bound did not beat the learned width's by the guard's margin
	Evidence      bool      // Kernel is the default regression width, chosen by the dense model's evidence
	Doublings     int       // times the default regression width was doubled (WidthDoublings)
	RVMLearned    bool      // Kernel is -model rvm's default classification width, learned by the variational classifier (R7)
	Gamma         float64   // regression: the effective number of parameters γ (EffectiveParameters)
	Duplicates    int       // regression: rows left out as repeats of an earlier row (vrvm.Regressor.Duplicates)
}

// learned is what a model fitted with LearnKernel reports.
type learned interface {
	FittedKernel() vrvm.Kernel
	LearnTrace() []float64
}

// summary describes the fit on its training data x, t.
func (e *estimator) summary(x *mat.Dense, t []float64) fitSummary {
	if mc := e.mc; mc != nil {
		s := fitSummary{Status: mc.Status(), Iterations: mc.Iterations(), Relevance: len(mc.RelevanceVectors()), Bias: mc.HasBias(), Bound: mc.LowerBound()}
		s.IterLimit = s.Status == vrvm.IterationLimit
		if tr := mc.LearnTrace(); tr != nil {
			s.Kernel, s.Fits = fmt.Sprint(mc.FittedKernel()), len(tr)
		}
		// The fit's own training error: the plain model's decisions, not
		// the augmented predictions (doc.go (A7)), which centre a
		// function at each row and cost O(N) a row.
		if ybar, _, err := mc.LatentPlain(x); err == nil {
			classes := mc.Classes()
			var wrong int
			for i, l := range e.labels {
				if classes[floats.MaxIdx(ybar.RawRowView(i))] != l {
					wrong++
				}
			}
			s.TrainingError = float64(wrong) / float64(len(e.labels))
		}
		return s
	}
	m := e.m
	s := fitSummary{Status: m.Status(), Iterations: m.Iterations(), Relevance: len(m.RelevanceVectors()), Bias: m.HasBias(), Bound: m.LowerBound(), NoiseSD: m.NoiseSD()}
	s.IterLimit = s.Status == vrvm.IterationLimit
	if g, ok := m.(interface{ EffectiveParameters() float64 }); ok {
		s.Gamma = g.EffectiveParameters()
	}
	if r, ok := m.(*vrvm.Regressor); ok {
		s.Duplicates = r.Duplicates()
	}
	if l, ok := m.(learned); ok && l.LearnTrace() != nil {
		s.Kernel, s.Fits = fmt.Sprint(l.FittedKernel()), len(l.LearnTrace())
		_, s.RVMLearned = m.(*vrvm.RVMClassifier)
		if c, ok := m.(*vrvm.Classifier); ok {
			_, asked := c.Kernel.(vrvm.ARDGaussian)
			_, got := l.FittedKernel().(vrvm.Gaussian)
			s.ARDGuarded = asked && got
		}
		if r, ok := m.(*vrvm.Regressor); ok && r.LearnKernel && len(l.LearnTrace()) == 2 {
			s.ByEvidence = l.LearnTrace() // learned by the dense model's evidence (docs/kernel-learning.md)
		}
	} else if r, ok := m.(*vrvm.Regressor); ok && r.Kernel == nil && !r.LearnKernel {
		// The default width: the dense model's evidence (doc.go, "The
		// default width").
		s.Kernel, s.Evidence, s.Doublings = fmt.Sprint(r.FittedKernel()), true, r.WidthDoublings()
	} else if r, ok := m.(*vrvm.RobustRegressor); ok && r.Kernel == nil {
		// -noise student's default width, the same without (W5).
		s.Kernel, s.Evidence = fmt.Sprint(r.FittedKernel()), true
	} else if r, ok := m.(*vrvm.RVMRegressor); ok && r.Kernel == nil {
		// -model rvm's default width, the same (doc.go (R6)).
		s.Kernel, s.Evidence, s.Doublings = fmt.Sprint(r.FittedKernel()), true, r.WidthDoublings()
	}
	// The fit's own training error, as above (doc.go (A6)).
	mean, _, err := m.(interface {
		LatentPlain(mat.Matrix) ([]float64, []float64, error)
	}).LatentPlain(x)
	if err != nil {
		return s
	}
	regression := m.Task() == vrvm.Regression
	var loss float64
	for i := range t {
		if regression {
			loss += (mean[i] - t[i]) * (mean[i] - t[i])
		} else if label := float64(b2i(mean[i] > 0)); label != t[i] {
			loss++
		}
	}
	s.TrainingError = loss / float64(len(t))
	if regression {
		s.TrainingError = math.Sqrt(s.TrainingError)
	}
	return s
}

// prediction holds the output columns of predict, one value per row.
type prediction struct {
	regression        bool
	mean, variance    []float64 // regression
	plugin, moderated []float64 // classification: P(t = 1)
	label             []float64 // classification: 0 or 1
	// Multi-class: the moderated probabilities (M17), one column per
	// class, the class labels and the most probable label of each row.
	probs             *mat.Dense
	classes, decision []string
}

// predict applies the model to the rows of x: the predictive mean and
// variance (37)–(38) for regression; the plug-in (65) and moderated
// probabilities and the label for classification.
func (e *estimator) predict(x *mat.Dense) (*prediction, error) {
	if e.mc != nil {
		p, err := e.mc.Prob(x)
		if err != nil {
			return nil, err
		}
		d, err := e.mc.Predict(x)
		if err != nil {
			return nil, err
		}
		return &prediction{probs: p, classes: e.mc.Classes(), decision: d}, nil
	}
	mean, variance, err := e.m.Latent(x)
	if err != nil {
		return nil, err
	}
	if e.m.Task() == vrvm.Regression {
		noise := e.m.NoiseSD() * e.m.NoiseSD()
		for i := range variance {
			variance[i] += noise
		}
		return &prediction{regression: true, mean: mean, variance: variance}, nil
	}
	p := &prediction{plugin: make([]float64, len(mean)), moderated: make([]float64, len(mean)), label: make([]float64, len(mean))}
	for i, m := range mean {
		p.plugin[i] = vrvm.Sigmoid(m)
		p.moderated[i] = vrvm.Moderated(m, variance[i])
		if m > 0 {
			p.label[i] = 1
		}
	}
	return p, nil
}

// labelError returns err's label error of the library, or nil.
func labelError(err error) *vrvm.LabelError {
	var le *vrvm.LabelError
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
