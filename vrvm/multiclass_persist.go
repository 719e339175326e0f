package vrvm

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"
)

// SaveMeta is Save with caller metadata meta (any value encoding/json can
// marshal), covered by the file's checksum as in the package function
// SaveMeta (which takes an Estimator); LoadMultiClassifierMeta reads it
// back.
func (c *MultiClassifier) SaveMeta(w io.Writer, meta any) error {
	p, err := c.encode()
	if err != nil {
		return err
	}
	return writeModel(w, p, meta)
}

// LoadMultiClassifier reads a model written by the Save method of a
// MultiClassifier, whose file holds the class labels and the M × K weight
// means beside what every model file holds. It
// predicts exactly as the saved model; a truncated, corrupted or foreign
// file, or a model of another estimator (read those with Load), gives a
// *ModelFileError.
func LoadMultiClassifier(r io.Reader) (*MultiClassifier, error) {
	return LoadMultiClassifierMeta(r, nil)
}

// LoadMultiClassifierMeta is LoadMultiClassifier that also decodes the
// file's metadata, if any, into meta (a pointer, as for json.Unmarshal;
// nil to ignore it).
func LoadMultiClassifierMeta(r io.Reader, meta any) (*MultiClassifier, error) {
	p, f, err := readModel(r, meta)
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
