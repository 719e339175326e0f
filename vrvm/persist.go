package vrvm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Model files are JSON: an envelope naming the format and version, the
// payload, and the SHA-256 of the compacted payload, so that a truncated or
// altered file is rejected on load. The payload holds only what prediction
// needs: the active basis functions with their inputs, the posterior over
// their weights and the hyperparameters.

const (
	modelFormat  = "vrvm-model"
	modelVersion = 1
)

type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Payload json.RawMessage `json:"payload"`
	SHA256  string          `json:"sha256"`
}

type kernelSpec struct {
	Type   string  `json:"type"` // gaussian, polynomial, linear, design
	Width  float64 `json:"width,omitempty"`
	Degree int     `json:"degree,omitempty"`
	Scale  float64 `json:"scale,omitempty"`
}

type payload struct {
	Task       string      `json:"task"`      // regression or classification
	Estimator  string      `json:"estimator"` // vrvm or rvm
	Kernel     kernelSpec  `json:"kernel"`
	InputDim   int         `json:"input_dim"`
	Bias       bool        `json:"bias"`
	Centers    [][]float64 `json:"centers,omitempty"`
	Columns    []int       `json:"columns"` // training rows (kernel) or design columns of the active functions
	Mu         []float64   `json:"mu"`
	Sigma      [][]float64 `json:"sigma"`
	Alpha      []float64   `json:"alpha"`
	Trace      []float64   `json:"bound_trace"`
	Iterations int         `json:"iterations"`
	Status     int         `json:"status"`
	TauShape   float64     `json:"tau_shape,omitempty"`
	TauRate    float64     `json:"tau_rate,omitempty"`
	Xi         []float64   `json:"xi,omitempty"`
}

func kernelToSpec(k Kernel) (kernelSpec, error) {
	switch k := k.(type) {
	case nil:
		return kernelSpec{Type: "design"}, nil
	case Gaussian:
		return kernelSpec{Type: "gaussian", Width: k.Width}, nil
	case *Gaussian:
		return kernelSpec{Type: "gaussian", Width: k.Width}, nil
	case Polynomial:
		return kernelSpec{Type: "polynomial", Degree: k.Degree, Scale: k.Scale}, nil
	case *Polynomial:
		return kernelSpec{Type: "polynomial", Degree: k.Degree, Scale: k.Scale}, nil
	case Linear, *Linear:
		return kernelSpec{Type: "linear"}, nil
	}
	return kernelSpec{}, ErrUnsavableKernel
}

func (s kernelSpec) kernel() (Kernel, error) {
	var k Kernel
	switch s.Type {
	case "design":
		return nil, nil
	case "gaussian":
		k = Gaussian{Width: s.Width}
	case "polynomial":
		k = Polynomial{Degree: s.Degree, Scale: s.Scale}
	case "linear":
		k = Linear{}
	default:
		return nil, &ModelFileError{Reason: fmt.Sprintf("unknown kernel type %q", s.Type)}
	}
	if err := checkKernel(k); err != nil {
		return nil, &ModelFileError{Reason: err.Error()}
	}
	return k, nil
}

// encode builds the payload of a fitted result.
func (f *fitResult) encode(task, estimator string) (*payload, error) {
	if f.status == NotFitted {
		return nil, ErrNotFitted
	}
	spec, err := kernelToSpec(f.b.kernel)
	if err != nil {
		return nil, err
	}
	p := &payload{Task: task, Estimator: estimator, Kernel: spec, InputDim: f.b.dim,
		Mu: f.mu, Alpha: f.alpha, Trace: f.trace, Iterations: f.iters, Status: int(f.status)}
	if f.design != nil {
		p.Columns = f.design
	} else {
		p.Bias = f.b.bias
		p.Columns = f.activeIdx()
		if f.b.centers != nil {
			r, _ := f.b.centers.Dims()
			for i := range r {
				p.Centers = append(p.Centers, f.b.centers.RawRowView(i))
			}
		}
	}
	m := len(f.mu)
	for i := range m {
		row := make([]float64, m)
		for j := range m {
			row[j] = f.sigma.At(i, j)
		}
		p.Sigma = append(p.Sigma, row)
	}
	return p, nil
}

func writeModel(w io.Writer, p *payload) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	env := envelope{Format: modelFormat, Version: modelVersion, Payload: body, SHA256: hex.EncodeToString(sum[:])}
	out, err := json.MarshalIndent(env, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// readModel reads and verifies a model file of the given task.
func readModel(r io.Reader, task string) (*payload, *fitResult, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, nil, &ModelFileError{Reason: "not valid JSON (truncated?): " + err.Error()}
	}
	if env.Format != modelFormat {
		return nil, nil, &ModelFileError{Reason: fmt.Sprintf("format is %q, want %q", env.Format, modelFormat)}
	}
	if env.Version != modelVersion {
		return nil, nil, &ModelFileError{Reason: fmt.Sprintf("version %d is not supported (want %d)", env.Version, modelVersion)}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, env.Payload); err != nil || len(env.Payload) == 0 {
		return nil, nil, &ModelFileError{Reason: "missing payload"}
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return nil, nil, &ModelFileError{Reason: "checksum mismatch: the file was altered or corrupted"}
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(env.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, nil, &ModelFileError{Reason: "payload: " + err.Error()}
	}
	if p.Task != task {
		return nil, nil, &ModelFileError{Reason: fmt.Sprintf("file holds a %s model, not %s", p.Task, task)}
	}
	f, err := p.decode()
	if err != nil {
		return nil, nil, err
	}
	return &p, f, nil
}

// decode validates a payload and rebuilds the fitted result.
func (p *payload) decode() (*fitResult, error) {
	bad := func(format string, args ...any) error {
		return &ModelFileError{Reason: fmt.Sprintf(format, args...)}
	}
	k, err := p.Kernel.kernel()
	if err != nil {
		return nil, err
	}
	m := len(p.Mu)
	if m == 0 {
		return nil, bad("no active basis functions")
	}
	if len(p.Alpha) != m || len(p.Sigma) != m {
		return nil, bad("sizes disagree: %d weights, %d alphas, %d covariance rows", m, len(p.Alpha), len(p.Sigma))
	}
	if p.InputDim < 1 {
		return nil, bad("input_dim %d", p.InputDim)
	}
	if Status(p.Status) <= NotFitted || Status(p.Status) > Canceled {
		return nil, bad("status %d", p.Status)
	}
	for i, row := range p.Sigma {
		if len(row) != m {
			return nil, bad("covariance row %d has %d entries, want %d", i, len(row), m)
		}
		for _, x := range row {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, bad("non-finite covariance entry %v", x)
			}
		}
	}
	sigma := mat.NewSymDense(m, nil)
	for i, row := range p.Sigma {
		for j := i; j < m; j++ {
			if row[j] != p.Sigma[j][i] {
				return nil, bad("covariance is not symmetric at (%d, %d)", i, j)
			}
			sigma.SetSym(i, j, row[j])
		}
	}
	for _, v := range [][]float64{p.Mu, p.Alpha, p.Trace, p.Xi, {p.TauShape, p.TauRate}} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, bad("non-finite value %v", x)
			}
		}
	}
	if len(p.Trace) == 0 {
		return nil, bad("empty bound trace")
	}
	// Σ must be a covariance: symmetric positive semi-definite. A small
	// relative jitter allows for the rounding of a singular-looking Σ.
	var chol mat.Cholesky
	jittered := mat.NewSymDense(m, nil)
	jittered.CopySym(sigma)
	var maxDiag float64
	for i := range m {
		if sigma.At(i, i) < 0 {
			return nil, bad("covariance has a negative variance %v at %d", sigma.At(i, i), i)
		}
		maxDiag = math.Max(maxDiag, sigma.At(i, i))
	}
	for i := range m {
		jittered.SetSym(i, i, sigma.At(i, i)+1e-10*maxDiag+math.SmallestNonzeroFloat64)
	}
	if !chol.Factorize(jittered) {
		return nil, bad("covariance is not positive semi-definite")
	}
	for _, a := range p.Alpha {
		if !(a > 0) {
			return nil, bad("non-positive precision alpha %v", a)
		}
	}
	f := &fitResult{status: Status(p.Status), mu: p.Mu, sigma: sigma, alpha: p.Alpha, trace: p.Trace, iters: p.Iterations}
	if k == nil {
		if len(p.Columns) != m {
			return nil, bad("%d design columns for %d weights", len(p.Columns), m)
		}
		for _, c := range p.Columns {
			if c < 0 || c >= p.InputDim {
				return nil, bad("design column %d out of range [0, %d)", c, p.InputDim)
			}
		}
		f.b = basis{dim: p.InputDim}
		f.design = p.Columns
		f.rows = p.Columns
		return f, nil
	}
	nb := 0
	if p.Bias {
		nb = 1
	}
	if len(p.Centers)+nb != m || len(p.Columns) != len(p.Centers) {
		return nil, bad("%d centres, %d rows and bias=%v for %d weights", len(p.Centers), len(p.Columns), p.Bias, m)
	}
	f.b = basis{kernel: k, bias: p.Bias, dim: p.InputDim}
	if len(p.Centers) > 0 {
		f.b.centers = mat.NewDense(len(p.Centers), p.InputDim, nil)
		for i, c := range p.Centers {
			if len(c) != p.InputDim {
				return nil, bad("centre %d has %d inputs, want %d", i, len(c), p.InputDim)
			}
			for _, v := range c {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, bad("non-finite centre value %v", v)
				}
			}
			f.b.centers.SetRow(i, c)
		}
	}
	for _, r := range p.Columns {
		if r < 0 {
			return nil, bad("negative training row %d", r)
		}
	}
	f.rows = p.Columns
	return f, nil
}

// Save writes the fitted model as JSON (see LoadRegressor). Models with a
// user-defined kernel cannot be saved (ErrUnsavableKernel).
func (r *Regressor) Save(w io.Writer) error {
	p, err := r.res.encode("regression", "vrvm")
	if err != nil {
		return err
	}
	p.TauShape, p.TauRate = r.tau.ct, r.tau.dt
	return writeModel(w, p)
}

// LoadRegressor reads a model written by Regressor.Save. The loaded model
// predicts exactly as the saved one; a truncated, altered or foreign file
// gives a *ModelFileError.
func LoadRegressor(rd io.Reader) (*Regressor, error) {
	p, f, err := readModel(rd, "regression")
	if err != nil {
		return nil, err
	}
	if p.Estimator != "vrvm" {
		return nil, &ModelFileError{Reason: fmt.Sprintf("file holds a %s model; use LoadRVMRegressor", p.Estimator)}
	}
	if !(p.TauShape > 0 && p.TauRate > 0) {
		return nil, &ModelFileError{Reason: "noise posterior missing"}
	}
	r := &Regressor{Kernel: f.b.kernel, NoBias: !p.Bias, res: *f}
	r.tau.ct, r.tau.dt = p.TauShape, p.TauRate
	return r, nil
}

// Save writes the fitted classifier as JSON (see LoadClassifier).
func (c *Classifier) Save(w io.Writer) error {
	p, err := c.res.encode("classification", "vrvm")
	if err != nil {
		return err
	}
	p.Xi = c.xi
	return writeModel(w, p)
}

// LoadClassifier reads a model written by Classifier.Save; see LoadRegressor.
func LoadClassifier(rd io.Reader) (*Classifier, error) {
	p, f, err := readModel(rd, "classification")
	if err != nil {
		return nil, err
	}
	if p.Estimator != "vrvm" {
		return nil, &ModelFileError{Reason: fmt.Sprintf("file holds a %s model; use LoadRVMClassifier", p.Estimator)}
	}
	return &Classifier{Kernel: f.b.kernel, NoBias: !p.Bias, res: *f, xi: p.Xi}, nil
}
