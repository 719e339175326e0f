package vrvm

import (
	"fmt"
	"io"
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
