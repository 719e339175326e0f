package main

// The only file of the command that knows the library's estimator types:
// fit and predict see an estimator through the functions below, and the
// model file of the command (model.go) embeds the library's model file
// unchanged, so a change of the library's types touches this file only.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// estimatorOptions are the fit settings taken from the flags.
type estimatorOptions struct {
	Kernel        vrvm.Kernel
	NoBias        bool
	Prior         vrvm.Prior
	NoPrune       bool
	MaxIter       int
	PaperSchedule bool
	Monitor       func(vrvm.Progress) bool
}

// estimator is a fitted or loaded model.
type estimator struct {
	reg *vrvm.Regressor
	cls *vrvm.Classifier
}

// fitEstimator builds the estimator of a task and fits it.
func fitEstimator(ctx context.Context, task string, o estimatorOptions, x *mat.Dense, t []float64) (*estimator, error) {
	solver := vrvm.Fast
	if o.PaperSchedule {
		solver = vrvm.PaperSchedule
	}
	switch task {
	case "regression":
		r := &vrvm.Regressor{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor, Solver: solver}
		return &estimator{reg: r}, r.FitContext(ctx, x, t)
	case "classification":
		c := &vrvm.Classifier{Kernel: o.Kernel, NoBias: o.NoBias, Prior: o.Prior, NoPrune: o.NoPrune, MaxIter: o.MaxIter, Monitor: o.Monitor, Solver: solver}
		return &estimator{cls: c}, c.FitContext(ctx, x, t)
	}
	return nil, fmt.Errorf("unknown task %q", task)
}

// loadEstimator reads the library's model file of a task.
func loadEstimator(task string, model []byte) (*estimator, error) {
	var e estimator
	var err error
	switch task {
	case "regression":
		e.reg, err = vrvm.LoadRegressor(bytes.NewReader(model))
	case "classification":
		e.cls, err = vrvm.LoadClassifier(bytes.NewReader(model))
	default:
		return nil, fmt.Errorf("task %q, want regression or classification", task)
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// save writes the library's model file.
func (e *estimator) save(w io.Writer) error {
	if e.reg != nil {
		return e.reg.Save(w)
	}
	return e.cls.Save(w)
}

// checkInputs returns an error if the model does not take d inputs.
func (e *estimator) checkInputs(d int) error {
	probe := mat.NewDense(1, d, nil)
	var err error
	if e.reg != nil {
		_, _, err = e.reg.Predict(probe)
	} else {
		_, err = e.cls.ProbPlugin(probe)
	}
	var de *vrvm.DimensionError
	if errors.As(err, &de) {
		return fmt.Errorf("the model takes %d inputs, the file describes %d", de.Want, d)
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
	NoiseSD       float64 // regression, in the units the model was fitted in
	TrainingError float64 // regression: RMS error of the mean; classification: error rate
}

// summary describes the fit on its training data x, t.
func (e *estimator) summary(x *mat.Dense, t []float64) fitSummary {
	var s fitSummary
	if e.reg != nil {
		r := e.reg
		s = fitSummary{Status: r.Status(), Iterations: r.Iterations(), Relevance: len(r.RelevanceVectors()), Bias: r.HasBias(), Bound: r.LowerBound(), NoiseSD: r.NoiseSD()}
		if mean, _, err := r.Predict(x); err == nil {
			var sq float64
			for i, m := range mean {
				sq += (m - t[i]) * (m - t[i])
			}
			s.TrainingError = math.Sqrt(sq / float64(len(t)))
		}
	} else {
		c := e.cls
		s = fitSummary{Status: c.Status(), Iterations: c.Iterations(), Relevance: len(c.RelevanceVectors()), Bias: c.HasBias(), Bound: c.LowerBound()}
		if labels, err := c.Predict(x); err == nil {
			wrong := 0
			for i, l := range labels {
				if l != t[i] {
					wrong++
				}
			}
			s.TrainingError = float64(wrong) / float64(len(t))
		}
	}
	s.IterLimit = s.Status == vrvm.IterationLimit
	return s
}

// prediction holds the output columns of predict, one value per row.
type prediction struct {
	regression        bool
	mean, variance    []float64 // regression
	plugin, moderated []float64 // classification: P(t = 1)
	label             []float64 // classification: 0 or 1
}

// predict applies the model to the rows of x.
func (e *estimator) predict(x *mat.Dense) (*prediction, error) {
	if e.reg != nil {
		mean, variance, err := e.reg.Predict(x)
		return &prediction{regression: true, mean: mean, variance: variance}, err
	}
	var p prediction
	var err error
	if p.plugin, err = e.cls.ProbPlugin(x); err != nil {
		return nil, err
	}
	if p.moderated, err = e.cls.ProbModerated(x); err != nil {
		return nil, err
	}
	if p.label, err = e.cls.Predict(x); err != nil {
		return nil, err
	}
	return &p, nil
}

// labelRow returns the row of a label error of the library, if err is one.
func labelRow(err error) (int, bool) {
	var le *vrvm.LabelError
	if errors.As(err, &le) {
		return le.Row, true
	}
	return 0, false
}
