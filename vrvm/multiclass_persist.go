package vrvm

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"
)

// Save writes the fitted multi-class model as JSON, in the model file
// format of the other estimators (task "multiclass"), with the class
// labels and the M × K weight means; LoadMultiClassifier reads it back.
func (c *MultiClassifier) Save(w io.Writer) error { return c.SaveMeta(w, nil) }

// SaveMeta is Save with caller metadata meta (any value encoding/json can
// marshal), covered by the file's checksum as in the package function
// SaveMeta; LoadMultiClassifierMeta reads it back.
func (c *MultiClassifier) SaveMeta(w io.Writer, meta any) error {
	if c.status == NotFitted {
		return ErrNotFitted
	}
	spec, err := specOf(c.b.kernel)
	if err != nil {
		return err
	}
	m, _ := c.mu.Dims()
	full := c.full
	p := &payload{Task: "multiclass", Estimator: "vrvm", Kernel: spec, InputDim: c.b.dim, Bias: c.b.bias,
		Columns: append([]int{}, c.rows...), Alpha: c.alpha, Trace: c.trace, Iterations: c.iters, Status: int(c.status),
		FullBound: &full, Classes: c.classes}
	if c.b.centers != nil {
		r, _ := c.b.centers.Dims()
		for i := range r {
			p.Centers = append(p.Centers, c.b.centers.RawRowView(i))
		}
	}
	for i := range m {
		p.Weights = append(p.Weights, c.mu.RawRowView(i))
		row := make([]float64, m)
		for j := range m {
			row[j] = c.sigma.At(i, j)
		}
		p.Sigma = append(p.Sigma, row)
	}
	return writeModel(w, p, meta)
}

// LoadMultiClassifier reads a model written by MultiClassifier.Save. It
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
	m := len(p.Weights)
	mu := mat.NewDense(m, len(p.Classes), nil)
	for i, row := range p.Weights {
		mu.SetRow(i, row)
	}
	return &MultiClassifier{Kernel: f.b.kernel, NoBias: !p.Bias, multiFit: multiFit{status: f.status,
		classes: append([]string(nil), p.Classes...), b: f.b, rows: f.rows, mu: mu, sigma: f.sigma.get(),
		alpha: f.alpha, trace: f.trace, iters: f.iters, full: f.full}}, nil
}
