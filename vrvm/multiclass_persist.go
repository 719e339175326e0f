package vrvm

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/augment"
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
	return Loader{}.LoadMultiClassifierMeta(r, nil)
}

// LoadMultiClassifierMeta is LoadMultiClassifier that also decodes the
// file's metadata, if any, into meta (a pointer, as for json.Unmarshal;
// nil to ignore it).
func LoadMultiClassifierMeta(r io.Reader, meta any) (*MultiClassifier, error) {
	return Loader{}.LoadMultiClassifierMeta(r, meta)
}

// LoadMultiClassifier is the package's LoadMultiClassifier, resolving
// named kernels by l.Kernels.
func (l Loader) LoadMultiClassifier(r io.Reader) (*MultiClassifier, error) {
	return l.LoadMultiClassifierMeta(r, nil)
}

// LoadMultiClassifierMeta is the package's LoadMultiClassifierMeta,
// resolving named kernels by l.Kernels.
func (l Loader) LoadMultiClassifierMeta(r io.Reader, meta any) (*MultiClassifier, error) {
	p, f, err := readModel(r, meta, l.Kernels)
	if err != nil {
		return nil, err
	}
	if p.Task != "multiclass" || p.Estimator != "vrvm" {
		return nil, &ModelFileError{Reason: fmt.Sprintf("a %s/%s model, not a multi-class one: read it with vrvm.Load", p.Task, p.Estimator)}
	}
	if f.design != nil {
		return nil, &ModelFileError{Reason: "a multi-class model needs a kernel"}
	}
	switch p.Likelihood {
	case "probit":
		f.multiLik = Probit
	case "softmax-adaptive":
		f.multiLik = SoftmaxAdaptive
	case "":
	default:
		return nil, &ModelFileError{Reason: fmt.Sprintf("unknown multi-class likelihood %q", p.Likelihood)}
	}
	f.classes = append([]string(nil), p.Classes...)
	f.w = mat.NewDense(len(p.Weights), len(p.Classes), nil)
	for i, row := range p.Weights {
		f.w.SetRow(i, row)
	}
	m, k := f.w.Dims()
	bad := func(format string, a ...any) error {
		return &ModelFileError{Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case len(p.ClassSigma) == 0 && len(p.ClassAlpha) == 0:
		// A shared-α file: Σ serves every class.
		for range k {
			f.sigmas = append(f.sigmas, f.sigma.get())
		}
	case len(p.ClassSigma) != k || len(p.ClassAlpha) != m:
		return nil, bad("%d class covariances and %d precision rows for %d classes and %d weights", len(p.ClassSigma), len(p.ClassAlpha), k, m)
	default:
		f.alphaK = mat.NewDense(m, k, nil)
		for i, row := range p.ClassAlpha {
			if len(row) != k {
				return nil, bad("precision row %d has %d entries for %d classes", i, len(row), k)
			}
			for _, a := range row {
				if !(a >= 0) || math.IsInf(a, 0) {
					return nil, bad("class precision %v", a)
				}
			}
			f.alphaK.SetRow(i, row)
		}
		for c, rows := range p.ClassSigma {
			if len(rows) != m {
				return nil, bad("class %d covariance has %d rows, want %d", c, len(rows), m)
			}
			s := mat.NewSymDense(m, nil)
			for i, row := range rows {
				if len(row) != m {
					return nil, bad("class %d covariance row %d has %d entries, want %d", c, i, len(row), m)
				}
				for j := i; j < m; j++ {
					if math.IsNaN(row[j]) || math.IsInf(row[j], 0) || row[j] != rows[j][i] {
						return nil, bad("class %d covariance is not finite and symmetric at (%d, %d)", c, i, j)
					}
					s.SetSym(i, j, row[j])
				}
				if row[i] < 0 {
					return nil, bad("class %d covariance has a negative variance at %d", c, i)
				}
			}
			f.sigmas = append(f.sigmas, s)
		}
	}
	if p.MultiAugment != nil {
		a, err := p.MultiAugment.decode(p.InputDim, k, m, f.designOffset())
		if err != nil {
			return nil, bad("multi_augment: %v", err)
		}
		if f.b.kernel != nil && augmentedConstantDiag(a.ny, a.x, f.b.kernel, f.b.centers) { // (A9)
			f.mcAug = a
		}
	}
	return &MultiClassifier{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, Likelihood: f.multiLik, NoAugment: f.mcAug == nil, multiFit: multiFit{*f}}, nil
}

// decode validates the multi-class augmentation state of a model file
// with inputs of dimension dim, k classes and m active functions.
func (a *multiAugmentFile) decode(dim, k, m, off int) (*mcAugmentation, error) {
	n := len(a.X)
	if len(a.AlphaStar) != k {
		return nil, fmt.Errorf("%d α* for %d classes", len(a.AlphaStar), k)
	}
	for _, v := range a.AlphaStar {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("alpha_star %v, want positive and finite", v)
		}
	}
	if a.LowRank != nil {
		if n != 0 || len(a.Resid) != 0 {
			return nil, fmt.Errorf("both the low-rank form and %d training inputs", n)
		}
		ny, err := a.LowRank.Decode(dim, m, off, a.AlphaStar)
		if err != nil {
			return nil, err
		}
		aug := &mcAugmentation{alphaStar: a.AlphaStar, ny: ny}
		aug.once.Do(func() {})
		return aug, nil
	}
	if n == 0 || len(a.Resid) != n {
		return nil, fmt.Errorf("%d inputs, %d residual rows, %d α* for %d classes", n, len(a.Resid), len(a.AlphaStar), k)
	}
	x, r := mat.NewDense(n, dim, nil), mat.NewDense(n, k, nil)
	for i := range n {
		if len(a.X[i]) != dim || len(a.Resid[i]) != k {
			return nil, fmt.Errorf("row %d has %d inputs and %d residuals, want %d and %d", i, len(a.X[i]), len(a.Resid[i]), dim, k)
		}
		for _, v := range append(append([]float64(nil), a.X[i]...), a.Resid[i]...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("non-finite value %v in row %d", v, i)
			}
		}
		x.SetRow(i, a.X[i])
		r.SetRow(i, a.Resid[i])
	}
	// The exact form of a file keeps it, as for augmentFile.decode.
	return &mcAugmentation{x: x, resid: r, alphaStar: a.AlphaStar, lowRank: augment.Settings{Exact: true}}, nil
}
