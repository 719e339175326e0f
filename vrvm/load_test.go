package vrvm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// loadRegressor and loadClassifier load a model file that must hold the
// named estimator.
func loadRegressor(r io.Reader) (*Regressor, error) {
	m, err := Load(r)
	if err != nil {
		return nil, err
	}
	reg, ok := m.(*Regressor)
	if !ok {
		return nil, fmt.Errorf("file holds a %T, not a *Regressor", m)
	}
	return reg, nil
}

func loadClassifier(r io.Reader) (*Classifier, error) {
	m, err := Load(r)
	if err != nil {
		return nil, err
	}
	c, ok := m.(*Classifier)
	if !ok {
		return nil, fmt.Errorf("file holds a %T, not a *Classifier", m)
	}
	return c, nil
}

// TestKernelFromSpec checks the kernels a model file can name.
func TestKernelFromSpec(t *testing.T) {
	t.Parallel()
	var me *ModelFileError
	_, err := kernelFromSpec(kernelSpec{Type: "registered", Name: "never named"}, nil)
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `"never named"`) || !strings.Contains(err.Error(), "Loader") {
		t.Errorf("kernel not in the Loader: %v", err)
	}
	// Learned parameters of a named kernel: set on a Learnable kernel,
	// rejected for another or for the wrong number of them.
	kernels := map[string]Kernel{"g": Gaussian{Width: 1}, "p": Polynomial{Degree: 2}}
	k, err := kernelFromSpec(kernelSpec{Type: "registered", Name: "g", Params: []float64{math.Log(3)}}, kernels)
	if l, ok := k.(Learnable); err != nil || !ok || math.Abs(l.LogParams()[0]-math.Log(3)) > 1e-15 || kernelString(k) != "g" {
		t.Errorf("learned named kernel: %v, %v", k, err)
	}
	for _, s := range []kernelSpec{
		{Type: "registered", Name: "p", Params: []float64{1}},
		{Type: "registered", Name: "g", Params: []float64{1, 2}},
		{Type: "registered", Name: "g", Params: []float64{math.NaN()}},
	} {
		if _, err := kernelFromSpec(s, kernels); !errors.As(err, &me) {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if _, err := kernelFromSpec(kernelSpec{Type: "spline"}, nil); !errors.As(err, &me) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := kernelFromSpec(kernelSpec{Type: "gaussian", Width: -1}, nil); !errors.As(err, &me) {
		t.Errorf("bad width: %v", err)
	}
	for _, k := range []Kernel{Gaussian{Width: 2}, &Gaussian{Width: 3}, Polynomial{Degree: 3, Scale: 0.5}, &Polynomial{Degree: 2}, Linear{}, &Linear{}} {
		s, err := specOf(k)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		back, err := kernelFromSpec(s, nil)
		if err != nil || kernelString(back) != kernelString(k) {
			t.Errorf("%v: round trip gives %v, %v", k, back, err)
		}
	}
	var nilG *Gaussian
	if err := validateKernel(nilG); err == nil {
		t.Error("nil *Gaussian accepted")
	}
}
