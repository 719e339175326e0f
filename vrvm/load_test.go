package vrvm

import (
	"errors"
	"fmt"
	"io"
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
	_, err := kernelFromSpec(kernelSpec{Type: "registered", Name: "never registered"})
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `"never registered"`) || !strings.Contains(err.Error(), "RegisterKernel") {
		t.Errorf("unregistered kernel: %v", err)
	}
	if _, err := kernelFromSpec(kernelSpec{Type: "spline"}); !errors.As(err, &me) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := kernelFromSpec(kernelSpec{Type: "gaussian", Width: -1}); !errors.As(err, &me) {
		t.Errorf("bad width: %v", err)
	}
	for _, k := range []Kernel{Gaussian{Width: 2}, &Gaussian{Width: 3}, Polynomial{Degree: 3, Scale: 0.5}, &Polynomial{Degree: 2}, Linear{}, &Linear{}} {
		s, err := specOf(k)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		back, err := kernelFromSpec(s)
		if err != nil || kernelString(back) != kernelString(k) {
			t.Errorf("%v: round trip gives %v, %v", k, back, err)
		}
	}
	var nilG *Gaussian
	if err := validateKernel(nilG); err == nil {
		t.Error("nil *Gaussian accepted")
	}
}
