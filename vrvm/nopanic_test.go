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

// TestNoPanic drives every exported function and method of the package
// that takes data with a table of bad inputs and requires an error or the
// documented result, never a panic (the accessors of a model without a
// posterior are tested in TestAccessorsUnfitted and TestFitContract).
func TestNoPanic(t *testing.T) {
	t.Parallel()
	x, treg, tcls := smallData()
	nanX := mat.DenseCopyOf(x)
	nanX.Set(1, 0, math.NaN())
	empty := mat.NewDense(1, 1, nil).Slice(0, 0, 0, 1)
	noCols := mat.NewDense(3, 1, nil).Slice(0, 3, 0, 0)
	var nilGauss *Gaussian
	inputs := []badInput{
		{"nil x", nil, func(Task) []float64 { return nil }},
		{"zero rows", empty, func(Task) []float64 { return nil }},
		{"zero columns", noCols, func(Task) []float64 { return []float64{0, 1, 0} }},
		{"NaN x", nanX, func(k Task) []float64 { return pick(k, treg, tcls) }},
		{"short t", x, func(Task) []float64 { return []float64{1} }},
		{"NaN t", x, func(Task) []float64 { return []float64{0, 1, math.NaN(), 0, 1, 0} }},
		{"label 2", x, func(Task) []float64 { return []float64{0, 1, 2, 0, 1, 0} }},
		{"constant t", x, func(Task) []float64 { return []float64{1, 1, 1, 1, 1, 1} }},
		{"huge t", x, func(Task) []float64 { return []float64{0, 1e300, -1e300, 0, 1, 0} }},
	}
	kernels := []Kernel{nil, Gaussian{}, Gaussian{Width: math.NaN()}, Gaussian{Width: 1e-300}, nilGauss, Polynomial{Degree: 50}, Polynomial{Degree: -1}, Linear{}, nanKernel{}}
	estimators := func(k Kernel) []Estimator {
		return []Estimator{
			&Regressor{Kernel: k}, &Regressor{Kernel: k, Method: PaperSchedule{}, MaxIter: 50}, &Regressor{Kernel: k, Method: Newton{}, MaxIter: 50},
			&Classifier{Kernel: k}, &Classifier{Kernel: k, Method: PaperSchedule{}, MaxIter: 50}, &Classifier{Kernel: k, Method: Newton{}, MaxIter: 50},
			&RVMRegressor{Kernel: k, MaxIter: 50}, &RVMClassifier{Kernel: k, MaxIter: 50},
		}
	}
	for _, k := range kernels {
		for _, in := range inputs {
			for _, m := range estimators(k) {
				badFit(t, m, k, in, x)
			}
		}
	}
	// Prediction and persistence with bad input, fitted and not.
	for _, m := range estimators(nil) {
		badPredictions(t, m, x, nanX, empty, noCols, pick(m.Task(), treg, tcls))
	}
	for _, data := range []string{"", "{", "null", "[]", `{"format":"vrvm-model","version":2}`, `{"format":"vrvm-model","version":99}`, strings.Repeat("x", 100)} {
		if _, err := Load(strings.NewReader(data)); err == nil {
			t.Errorf("Load(%q): no error", data)
		}
	}
	// Design fits with bad designs.
	for _, m := range []interface {
		FitDesign(mat.Matrix, []float64) error
	}{&Regressor{}, &Classifier{}} {
		for name, phi := range map[string]mat.Matrix{"nil": nil, "zero rows": empty, "NaN": nanX, "zero": mat.NewDense(6, 2, nil)} {
			if err := m.FitDesign(phi, pick(Classification, treg, tcls)); err == nil {
				t.Errorf("%T.FitDesign(%s): no error", m, name)
			}
		}
	}
	// Special values of the scalar functions are documented.
	if !math.IsNaN(Lambda(math.NaN())) || Sigmoid(math.Inf(1)) != 1 || Sigmoid(math.Inf(-1)) != 0 || LogSigmoid(math.Inf(1)) != 0 {
		t.Error("special values")
	}
}

// badInput is a bad training set of TestNoPanic: inputs and, for each
// task, targets.
type badInput struct {
	name string
	x    mat.Matrix
	t    func(Task) []float64
}

// badFit fits m with kernel k to the bad input in: no panic, an error
// (but for "huge t" and "label 2") that leaves the model not fitted, and
// finite predictions at x for a fit that succeeds.
func badFit(t *testing.T, m Estimator, k Kernel, in badInput, x mat.Matrix) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%T, kernel %v, %s: panic %v", m, k, in.name, r)
		}
	}()
	err := m.FitContext(context.Background(), in.x, in.t(m.Task()))
	if err == nil && in.name != "huge t" && in.name != "label 2" {
		t.Errorf("%T, kernel %v, %s: no error", m, k, in.name)
	}
	if err != nil && m.Status() != NotFitted {
		t.Errorf("%T, kernel %v, %s: failed fit left status %v", m, k, in.name, m.Status())
	}
	if err == nil {
		checkFinitePredictions(t, m, x)
	}
}

// badPredictions checks m's predictions and files with bad inputs, before
// and after a fit to (x, tt); nanX, empty and noCols are bad inputs.
func badPredictions(t *testing.T, m Estimator, x, nanX, empty, noCols mat.Matrix, tt []float64) {
	t.Helper()
	if _, _, err := m.Latent(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("%T unfitted Latent: %v", m, err)
	}
	if err := m.Save(&bytes.Buffer{}); !errors.Is(err, ErrNotFitted) {
		t.Errorf("%T unfitted Save: %v", m, err)
	}
	if err := m.FitContext(context.Background(), x, tt); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]mat.Matrix{"nil": nil, "NaN": nanX, "three columns": mat.NewDense(2, 3, nil), "zero columns": noCols} {
		if _, _, err := m.Latent(bad); err == nil {
			t.Errorf("%T Latent(%s): no error", m, name)
		}
	}
	if mean, v, err := m.Latent(empty); err != nil || len(mean) != 0 || len(v) != 0 {
		t.Errorf("%T Latent(zero rows): %v %v %v", m, mean, v, err)
	}
	switch m := m.(type) {
	case *Regressor:
		_, _, err := m.Predict(nanX)
		wantErr(t, "Regressor.Predict(NaN)", err)
	case *RVMRegressor:
		_, _, err := m.Predict(nil)
		wantErr(t, "RVMRegressor.Predict(nil)", err)
	case *Classifier:
		_, err1 := m.ProbPlugin(nanX)
		_, err2 := m.ProbModerated(nil)
		_, err3 := m.Predict(mat.NewDense(1, 2, nil))
		wantErr(t, "Classifier.ProbPlugin(NaN)", err1)
		wantErr(t, "Classifier.ProbModerated(nil)", err2)
		wantErr(t, "Classifier.Predict(2 columns)", err3)
	case *RVMClassifier:
		_, err := m.ProbModerated(nanX)
		wantErr(t, "RVMClassifier.ProbModerated(NaN)", err)
	}
	if err := SaveMeta(&bytes.Buffer{}, m, func() {}); err == nil {
		t.Errorf("%T: SaveMeta with unmarshalable metadata: no error", m)
	}
	var buf bytes.Buffer
	if err := SaveMeta(&buf, m, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	var wrong []string
	if _, err := LoadMeta(bytes.NewReader(buf.Bytes()), &wrong); err == nil {
		t.Errorf("%T: LoadMeta into the wrong type: no error", m)
	}
}

// TestAccessorsUnfitted checks the documented zero values of the
// accessors of a model without a posterior (doc.go, "Fit contract");
// TestFitContract calls every accessor of every estimator in every state.
func TestAccessorsUnfitted(t *testing.T) {
	t.Parallel()
	if l := (&Regressor{}).LowerBound(); !math.IsNaN(l) {
		t.Errorf("LowerBound %v, want NaN", l)
	}
	if l := (&MultiClassifier{}).FullModelBound(); !math.IsNaN(l) {
		t.Errorf("FullModelBound %v, want NaN", l)
	}
	if a, b := (&Regressor{}).TauPosterior(); a != 0 || b != 0 {
		t.Errorf("TauPosterior %v, %v, want 0, 0", a, b)
	}
	if xi := (&Classifier{}).Xi(); xi != nil {
		t.Errorf("Xi %v, want nil", xi)
	}
	if sd := (&RVMRegressor{}).NoiseSD(); sd != 0 {
		t.Errorf("NoiseSD %v, want 0", sd)
	}
	if m := (&RVMClassifier{}).Mean(); m != nil {
		t.Errorf("Mean %v, want nil", m)
	}
	if c := (&MultiClassifier{}).Covariance(0); c != nil {
		t.Errorf("Covariance(0) %v, want nil", c)
	}
}

func pick(k Task, reg, cls []float64) []float64 {
	if k == Classification {
		return cls
	}
	return reg
}

func wantErr(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
	}
}

// checkFinitePredictions fails if a fitted model predicts a non-finite
// value without an error.
func checkFinitePredictions(t *testing.T, m Estimator, x mat.Matrix) {
	t.Helper()
	mean, v, err := m.Latent(x)
	if err != nil {
		return
	}
	for i := range mean {
		if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			t.Errorf("%T: prediction %v ± %v without an error", m, mean[i], v[i])
		}
	}
	for _, b := range []float64{m.LowerBound(), m.FullModelBound(), m.NoiseSD()} {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			t.Errorf("%T: bound or noise %v without an error", m, b)
		}
	}
}
