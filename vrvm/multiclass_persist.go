package vrvm

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"
)

// LoadMultiClassifier reads a model written by the Save method of a
// MultiClassifier, whose file holds the class labels and the M × K weight
// means beside what every model file holds. It
// predicts exactly as the saved model; a truncated, corrupted or foreign
// file, or a model of another estimator (read those with Load), gives a
// *ModelFileError.
func LoadMultiClassifier(r io.Reader) (*MultiClassifier, error) {
	p, f, err := readModel(r, nil)
	if err != nil {
		return nil, err
	}
	if p.Task != "multiclass" || p.Estimator != "vrvm" {
		return nil, &ModelFileError{Reason: fmt.Sprintf("a %s/%s model, not a multi-class one: read it with vrvm.Load", p.Task, p.Estimator)}
	}
	if f.design != nil {
		return nil, &ModelFileError{Reason: "a multi-class model needs a kernel"}
	}
	f.classes = append([]string(nil), p.Classes...)
	f.w = mat.NewDense(len(p.Weights), len(p.Classes), nil)
	for i, row := range p.Weights {
		f.w.SetRow(i, row)
	}
	return &MultiClassifier{Kernel: f.b.kernel, NoBias: !p.Bias, multiFit: multiFit{*f}}, nil
}
