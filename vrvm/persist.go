package vrvm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/boundedjson"
	"github.com/vrvm/vrvm/vrvm/internal/augment"
)

// Model files are JSON: an envelope naming the format and version, the
// payload, optional caller metadata, and the SHA-256 of the compacted
// payload and metadata, so that a truncated or corrupted file is rejected
// on load. The checksum detects accidents, not deliberate edits: anyone
// can recompute it. The payload holds only what prediction needs: the
// active basis functions with their inputs, the posterior over their
// weights and the hyperparameters, plus the bound trace and the
// full-model bound.
//
// Version 2 added the full-model bound, registered kernels, the RVM
// estimators and the metadata; version 3 the low-rank form of augmented
// predictions (low_rank, (A10)–(A11)) in place of the training inputs;
// files of versions 1 and 2 still load, and keep the exact augmentation
// they hold (a fit anew writes the low-rank form). Version 4 writes Σ as
// its upper triangle, the large arrays (Σ, the training inputs,
// precisions and residuals of the exact form, the low-rank form's pivots
// and W, the floor's pivots and A) as base64 doubles (augment.Floats: the
// same numbers, bit for bit, in about half the bytes of decimals), the
// floor's A as its lower trapezoid when it is one (a_lower), and the floor
// alone of (A19) as floor_only; files of versions 1 to 3 still load.

const (
	modelFormat  = "vrvm-model"
	modelVersion = 4
	// maxModelBytes bounds the bytes Load reads: far above any model (one
	// of 20,000 augmented rows × 10 inputs is a few MB), so that
	// /dev/zero or a huge file is an error, not the whole memory.
	maxModelBytes = 1 << 30
)

type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Payload json.RawMessage `json:"payload"`
	Meta    json.RawMessage `json:"meta,omitempty"`
	SHA256  string          `json:"sha256"`
}

type payload struct {
	Task      string      `json:"task"`      // regression or classification
	Estimator string      `json:"estimator"` // vrvm or rvm
	Kernel    kernelSpec  `json:"kernel"`
	InputDim  int         `json:"input_dim"`
	Bias      bool        `json:"bias"`
	Centers   [][]float64 `json:"centers,omitempty"`
	Columns   []int       `json:"columns"` // training rows (kernel) or design columns of the active functions
	Mu        []float64   `json:"mu"`
	Sigma     [][]float64 `json:"sigma,omitempty"` // versions 1 to 3
	// SigmaUpper is Σ's upper triangle by rows, M(M + 1)/2 values
	// (version 4 on).
	SigmaUpper augment.Floats `json:"sigma_upper,omitempty"`
	Alpha      []float64      `json:"alpha"`
	Trace      []float64      `json:"bound_trace"`
	Iterations int            `json:"iterations"`
	Status     int            `json:"status"`
	FullBound  *float64       `json:"full_bound,omitempty"`
	TauShape   float64        `json:"tau_shape,omitempty"`
	TauRate    float64        `json:"tau_rate,omitempty"`
	Beta       float64        `json:"beta,omitempty"`
	Xi         []float64      `json:"xi,omitempty"`
	Augment    *augmentFile   `json:"augment,omitempty"`
	// Unit is the divisor (U1) of each active function, in the order of
	// Mu (or Weights); absent when every one is 1.
	Unit []float64 `json:"unit,omitempty"`
	// Multi-class models (task "multiclass"): the class labels and the
	// M × K weight means; Mu is empty.
	Classes []string    `json:"classes,omitempty"`
	Weights [][]float64 `json:"weights,omitempty"`
	// and each class's covariance (K × M × M) and precisions (M × K, 0
	// where the function is not active in the class); a file without
	// them (the shared-α model) uses Sigma for every class.
	ClassSigma [][][]float64 `json:"class_sigma,omitempty"`
	ClassAlpha [][]float64   `json:"class_alpha,omitempty"`
	// and the likelihood: "probit", "softmax-adaptive" (the softmax fitted
	// under the bound (M19)), or empty for the softmax (files written
	// before the probit existed); for regression, "student" (a
	// RobustRegressor) or empty (Gaussian noise).
	Likelihood string `json:"likelihood,omitempty"`
	// Nu is the degrees of freedom of a RobustRegressor's Student-t
	// noise (likelihood "student").
	Nu float64 `json:"nu,omitempty"`
	// and the state of its predictions augmented at the test point (A7):
	// the training inputs, the residuals tₙₖ − pₙₖ (N × K) and α*ₖ.
	MultiAugment *multiAugmentFile `json:"multi_augment,omitempty"`
}

// multiAugmentFile is the state of a MultiClassifier's augmented
// predictions (A7) in a model file.
type multiAugmentFile struct {
	X         [][]float64   `json:"x,omitempty"`
	Resid     [][]float64   `json:"resid,omitempty"`
	AlphaStar []float64     `json:"alpha_star"`
	LowRank   *augment.File `json:"low_rank,omitempty"`
}

// augmentFile is the state of augmented predictions (Augment) in a model
// file: the training inputs, the likelihood's precisions, the residuals
// and α* of (A1)–(A5), or, from version 3, α* and the low-rank form
// (A10)–(A11) in their place.
type augmentFile struct {
	// X (versions 1 to 3) or XData (by rows, version 4 on) are the
	// training inputs of the exact form.
	X         [][]float64    `json:"x,omitempty"`
	XData     augment.Floats `json:"x_data,omitempty"`
	Beta      augment.Floats `json:"beta,omitempty"`
	Resid     augment.Floats `json:"resid,omitempty"`
	AlphaStar float64        `json:"alpha_star"`
	LowRank   *augment.File  `json:"low_rank,omitempty"`
	// Floor is the GP floor of the variance (A15)–(A18); files written
	// before it have none and predict without it.
	Floor *augment.FloorFile `json:"floor,omitempty"`
	// FloorOnly (version 4 on) is (A19): the floor alone, without the
	// training inputs or a low-rank form.
	FloorOnly bool `json:"floor_only,omitempty"`
}

// encode builds the payload of a fitted result.
func (f *fitted) encode() (*payload, error) {
	if !f.hasPosterior() {
		return nil, ErrNotFitted
	}
	spec, err := specOf(f.b.kernel)
	if err != nil {
		return nil, err
	}
	full := f.full
	p := &payload{Task: f.task, Estimator: f.estimator, Kernel: spec, InputDim: f.b.dim,
		Mu: f.mu, Alpha: f.alpha, Trace: f.trace, Iterations: f.iters, Status: int(f.status), FullBound: &full,
		TauShape: f.ct, TauRate: f.dt, Xi: f.xi, Unit: f.unit}
	if f.estimator == "rvm" && f.task == "regression" {
		p.Beta = 1 / f.noise
	}
	if f.w != nil {
		p.Classes = f.classes
		switch f.multiLik {
		case Probit:
			p.Likelihood = "probit"
		case SoftmaxAdaptive:
			p.Likelihood = "softmax-adaptive"
		}
		r, _ := f.w.Dims()
		for i := range r {
			p.Weights = append(p.Weights, f.w.RawRowView(i))
		}
		for _, s := range f.sigmas {
			p.ClassSigma = append(p.ClassSigma, symRows(s))
		}
		if f.alphaK != nil {
			for i := range r {
				p.ClassAlpha = append(p.ClassAlpha, f.alphaK.RawRowView(i))
			}
		}
		if a := f.mcAug; a != nil {
			if err := a.prepare(f); err != nil {
				return nil, err
			}
			ma := &multiAugmentFile{AlphaStar: a.alphaStar}
			if a.ny != nil {
				ma.LowRank = a.ny.Encode()
			} else {
				n, _ := a.x.Dims()
				for i := range n {
					ma.X = append(ma.X, a.x.RawRowView(i))
					ma.Resid = append(ma.Resid, a.resid.RawRowView(i))
				}
			}
			p.MultiAugment = ma
		}
	}
	if f.design != nil {
		p.Columns = f.design
	} else {
		p.Bias = f.b.bias
		p.Columns = f.ActiveSet()
		if f.b.centers != nil {
			r, _ := f.b.centers.Dims()
			for i := range r {
				p.Centers = append(p.Centers, f.b.centers.RawRowView(i))
			}
		}
	}
	if f.aug != nil {
		if err := f.aug.prepare(f); err != nil {
			return nil, err
		}
		a := &augmentFile{Beta: f.aug.beta, Resid: f.aug.resid, AlphaStar: f.aug.alphaStar, FloorOnly: f.aug.floorOnly}
		if f.aug.ny != nil {
			a.LowRank = f.aug.ny.Encode()
		} else if !f.aug.floorOnly {
			r, d := f.aug.x.Dims()
			for i := range r {
				a.XData = append(a.XData, f.aug.x.RawRowView(i)[:d]...)
			}
		}
		if f.aug.floor != nil {
			a.Floor = f.aug.floor.Encode()
		}
		p.Augment = a
	}
	p.SigmaUpper = symUpper(f.sigma.get())
	return p, nil
}

// symUpper returns the upper triangle of s by rows.
func symUpper(s *mat.SymDense) augment.Floats {
	m := s.SymmetricDim()
	out := make(augment.Floats, 0, m*(m+1)/2)
	for i := range m {
		for j := i; j < m; j++ {
			out = append(out, s.At(i, j))
		}
	}
	return out
}

// symRows returns the rows of s.
func symRows(s *mat.SymDense) [][]float64 {
	m := s.SymmetricDim()
	out := make([][]float64, m)
	for i := range m {
		out[i] = make([]float64, m)
		for j := range m {
			out[i][j] = s.At(i, j)
		}
	}
	return out
}

// Save writes the fitted model as JSON; Load reads it back, as the
// estimator that wrote it. It returns ErrNotFitted before a fit, and
// ErrUnsavableKernel for a kernel that is neither this package's nor
// named with NamedKernel.
func (f *fitted) Save(w io.Writer) error {
	p, err := f.encode()
	if err != nil {
		return err
	}
	return writeModel(w, p, nil)
}

// writeModel writes the envelope of p, with the caller's metadata meta
// (any value encoding/json can marshal; nil for none).
func writeModel(w io.Writer, p *payload, meta any) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var mb []byte
	if meta != nil {
		if mb, err = json.Marshal(meta); err != nil {
			return err
		}
	}
	env := envelope{Format: modelFormat, Version: modelVersion, Payload: body, Meta: mb, SHA256: checksum(body, mb)}
	out, err := json.MarshalIndent(env, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// checksum is the hex SHA-256 of the payload, followed by the metadata if
// there is any (version 1 files have none).
func checksum(payload, meta []byte) string {
	h := sha256.New()
	h.Write(payload)
	h.Write(meta)
	return hex.EncodeToString(h.Sum(nil))
}

// readModel reads and verifies a model file, and decodes its metadata into
// meta if meta is not nil.
func readModel(r io.Reader, meta any, kernels map[string]Kernel) (*payload, *fitted, error) {
	return readModelLimit(r, meta, maxModelBytes, kernels)
}

// readModelLimit is readModel reading at most limit bytes.
func readModelLimit(r io.Reader, meta any, limit int64, kernels map[string]Kernel) (*payload, *fitted, error) {
	data, err := boundedjson.Read(r, limit)
	var tl *boundedjson.TooLargeError
	var se *boundedjson.SyntaxError
	switch {
	case errors.As(err, &tl):
		return nil, nil, &ModelFileError{Reason: "too large: " + err.Error()}
	case errors.As(err, &se):
		return nil, nil, &ModelFileError{Reason: "not valid JSON (truncated?): " + err.Error()}
	case err != nil:
		return nil, nil, err
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, nil, &ModelFileError{Reason: "not valid JSON (truncated?): " + err.Error()}
	}
	if env.Format != modelFormat {
		return nil, nil, &ModelFileError{Reason: fmt.Sprintf("format is %q, want %q", env.Format, modelFormat)}
	}
	if env.Version < 1 || env.Version > modelVersion {
		return nil, nil, &ModelFileError{Reason: fmt.Sprintf("version %d is not supported (this library reads 1 to %d; refit the model with this version)", env.Version, modelVersion)}
	}
	var compact, compactMeta bytes.Buffer
	if err := json.Compact(&compact, env.Payload); err != nil || len(env.Payload) == 0 {
		return nil, nil, &ModelFileError{Reason: "missing payload"}
	}
	if len(env.Meta) > 0 {
		if err := json.Compact(&compactMeta, env.Meta); err != nil {
			return nil, nil, &ModelFileError{Reason: "metadata: " + err.Error()}
		}
	}
	if checksum(compact.Bytes(), compactMeta.Bytes()) != env.SHA256 {
		return nil, nil, &ModelFileError{Reason: "checksum mismatch: the file was altered or corrupted"}
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(env.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, nil, &ModelFileError{Reason: "payload: " + err.Error()}
	}
	if meta != nil && compactMeta.Len() > 0 {
		if err := json.Unmarshal(compactMeta.Bytes(), meta); err != nil {
			return nil, nil, &ModelFileError{Reason: "metadata: " + err.Error()}
		}
	}
	f, err := p.decode(kernels)
	if err != nil {
		return nil, nil, err
	}
	return &p, f, nil
}

// badModel is a ModelFileError with a formatted reason.
func badModel(format string, args ...any) error {
	return &ModelFileError{Reason: fmt.Sprintf(format, args...)}
}

// decode validates a payload and rebuilds the fitted result; kernels
// resolves a NamedKernel's name (Loader.Kernels).
func (p *payload) decode(kernels map[string]Kernel) (*fitted, error) {
	k, err := kernelFromSpec(p.Kernel, kernels)
	if err != nil {
		return nil, err
	}
	m, err := p.activeCount()
	if err != nil {
		return nil, err
	}
	if p.InputDim < 1 {
		return nil, badModel("input_dim %d", p.InputDim)
	}
	if err := checkKernelDim(k, p.InputDim); err != nil {
		return nil, badModel("%v", err)
	}
	if Status(p.Status) <= NotFitted || Status(p.Status) > InterceptOnly {
		return nil, badModel("status %d", p.Status)
	}
	sigma, err := p.covariance(m)
	if err != nil {
		return nil, err
	}
	full := math.NaN()
	if p.FullBound != nil {
		full = *p.FullBound
	}
	if err := p.checkNumbers(); err != nil {
		return nil, err
	}
	if err := checkCovariance(sigma); err != nil {
		return nil, err
	}
	if err := p.checkPrecisions(m, full); err != nil {
		return nil, err
	}
	f := &fitted{status: Status(p.Status), mu: p.Mu, sigma: &lazySigma{v: sigma}, alpha: p.Alpha, trace: p.Trace, iters: p.Iterations, full: full,
		task: p.Task, estimator: p.Estimator, unit: p.Unit}
	if err := p.decodeBasis(f, k, m); err != nil {
		return nil, err
	}
	return f, nil
}

// activeCount checks the weights (a multi-class model's per class) and
// returns the number of active functions.
func (p *payload) activeCount() (int, error) {
	m := len(p.Mu)
	if p.Task == "multiclass" {
		if m != 0 {
			return 0, badModel("multi-class model with single-output weights")
		}
		m = len(p.Weights)
		if len(p.Classes) < 2 {
			return 0, badModel("multi-class model with %d classes", len(p.Classes))
		}
		seen := map[string]bool{}
		for _, c := range p.Classes {
			if seen[c] {
				return 0, badModel("class %q listed twice", c)
			}
			seen[c] = true
		}
		for i, row := range p.Weights {
			if len(row) != len(p.Classes) {
				return 0, badModel("weight row %d has %d entries for %d classes", i, len(row), len(p.Classes))
			}
			for _, x := range row {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return 0, badModel("non-finite weight %v", x)
				}
			}
		}
	} else if len(p.Weights) != 0 || len(p.Classes) != 0 {
		return 0, badModel("weights or classes in a %s model", p.Task)
	}
	if m == 0 {
		return 0, badModel("no active basis functions")
	}
	rows := len(p.Sigma)
	if len(p.SigmaUpper) > 0 {
		rows = int((math.Sqrt(float64(8*len(p.SigmaUpper)+1)) - 1) / 2)
		if len(p.Sigma) != 0 || rows*(rows+1)/2 != len(p.SigmaUpper) {
			return 0, badModel("covariance: %d rows and %d values of an upper triangle", len(p.Sigma), len(p.SigmaUpper))
		}
	}
	if len(p.Alpha) != m || rows != m {
		return 0, badModel("sizes disagree: %d weights, %d alphas, %d covariance rows", m, len(p.Alpha), rows)
	}
	return m, nil
}

// covariance returns Σ of m weights, checked square, finite and symmetric.
func (p *payload) covariance(m int) (*mat.SymDense, error) {
	if len(p.SigmaUpper) > 0 {
		sigma := mat.NewSymDense(m, nil)
		k := 0
		for i := range m {
			for j := i; j < m; j++ {
				if x := p.SigmaUpper[k]; math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, badModel("non-finite covariance entry %v", x)
				}
				sigma.SetSym(i, j, p.SigmaUpper[k])
				k++
			}
		}
		return sigma, nil
	}
	for i, row := range p.Sigma {
		if len(row) != m {
			return nil, badModel("covariance row %d has %d entries, want %d", i, len(row), m)
		}
		for _, x := range row {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, badModel("non-finite covariance entry %v", x)
			}
		}
	}
	sigma := mat.NewSymDense(m, nil)
	for i, row := range p.Sigma {
		for j := i; j < m; j++ {
			if row[j] != p.Sigma[j][i] {
				return nil, badModel("covariance is not symmetric at (%d, %d)", i, j)
			}
			sigma.SetSym(i, j, row[j])
		}
	}
	return sigma, nil
}

// checkNumbers checks that the vectors and scalars of the posterior are
// finite and the noise parameters not negative.
func (p *payload) checkNumbers() error {
	for _, v := range []struct {
		name string
		x    []float64
	}{{"mu", p.Mu}, {"alpha", p.Alpha}, {"bound_trace", p.Trace}, {"xi", p.Xi}, {"tau_shape", []float64{p.TauShape}}, {"tau_rate", []float64{p.TauRate}}, {"beta", []float64{p.Beta}}} {
		for i, x := range v.x {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return badModel("non-finite %s[%d] %v", v.name, i, x)
			}
		}
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"tau_shape", p.TauShape}, {"tau_rate", p.TauRate}, {"beta", p.Beta}} {
		if v.x < 0 {
			return badModel("negative %s %v", v.name, v.x)
		}
	}
	if len(p.Trace) == 0 {
		return badModel("empty bound trace")
	}
	return nil
}

// checkCovariance checks that Σ is a covariance: symmetric positive
// semi-definite. A small relative jitter allows for the rounding of a
// singular-looking Σ.
func checkCovariance(sigma *mat.SymDense) error {
	m := sigma.SymmetricDim()
	var chol mat.Cholesky
	jittered := mat.NewSymDense(m, nil)
	jittered.CopySym(sigma)
	var maxDiag float64
	for i := range m {
		if sigma.At(i, i) < 0 {
			return badModel("covariance has a negative variance %v at %d", sigma.At(i, i), i)
		}
		maxDiag = math.Max(maxDiag, sigma.At(i, i))
	}
	for i := range m {
		jittered.SetSym(i, i, sigma.At(i, i)+1e-10*maxDiag+math.SmallestNonzeroFloat64)
	}
	if !chol.Factorize(jittered) {
		return badModel("covariance is not positive semi-definite")
	}
	return nil
}

// checkPrecisions checks the precisions ⟨αₘ⟩, the unit divisors (U1) of
// m weights and the full-model bound.
func (p *payload) checkPrecisions(m int, full float64) error {
	for _, a := range p.Alpha {
		if !(a > 0) {
			return badModel("non-positive precision alpha %v", a)
		}
	}
	if p.Unit != nil && len(p.Unit) != m {
		return badModel("%d unit divisors for %d weights", len(p.Unit), m)
	}
	for _, u := range p.Unit {
		if !(u >= 1) || math.IsInf(u, 0) {
			return badModel("unit divisor %v, want finite and at least 1", u)
		}
	}
	if p.FullBound != nil && (math.IsNaN(full) || math.IsInf(full, 0)) {
		return badModel("non-finite full-model bound %v", full)
	}
	return nil
}

// decodeBasis sets f's basis of m functions with kernel k (nil: design
// columns), its training rows and its augmentation.
func (p *payload) decodeBasis(f *fitted, k Kernel, m int) error {
	if k == nil {
		if len(p.Columns) != m {
			return badModel("%d design columns for %d weights", len(p.Columns), m)
		}
		for _, c := range p.Columns {
			if c < 0 || c >= p.InputDim {
				return badModel("design column %d out of range [0, %d)", c, p.InputDim)
			}
		}
		f.b = basis{dim: p.InputDim}
		f.design = p.Columns
		f.rows = p.Columns
		return nil
	}
	nb := 0
	if p.Bias {
		nb = 1
	}
	if len(p.Centers)+nb != m || len(p.Columns) != len(p.Centers) {
		return badModel("%d centres, %d rows and bias=%v for %d weights", len(p.Centers), len(p.Columns), p.Bias, m)
	}
	f.b = basis{kernel: k, bias: p.Bias, dim: p.InputDim}
	if len(p.Centers) > 0 {
		f.b.centers = mat.NewDense(len(p.Centers), p.InputDim, nil)
		for i, c := range p.Centers {
			if len(c) != p.InputDim {
				return badModel("centre %d has %d inputs, want %d", i, len(c), p.InputDim)
			}
			for _, v := range c {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return badModel("non-finite centre value %v", v)
				}
			}
			f.b.centers.SetRow(i, c)
		}
	}
	for _, r := range p.Columns {
		if r < 0 {
			return badModel("negative training row %d", r)
		}
	}
	f.rows = p.Columns
	if p.Augment != nil {
		a, err := p.Augment.decode(p.InputDim, m, nb)
		if err != nil {
			return badModel("augment: %v", err)
		}
		if f.b.kernel != nil && augmentedConstantDiag(a.ny, a.x, f.b.kernel, f.b.centers) { // (A9)
			f.aug = a
		}
		if k, ok := floorKernel(f.b.kernel); ok && p.Augment.Floor != nil && f.aug != nil {
			if f.aug.floor, err = p.Augment.Floor.Decode(k, p.InputDim); err != nil {
				return badModel("augment: %v", err)
			}
		}
		if f.aug != nil && f.aug.floorOnly && f.aug.floor == nil {
			return badModel("augment: floor_only for a kernel without the floor's")
		}
	}
	return nil
}

// decode validates the augmentation state of a model file.
func (a *augmentFile) decode(dim, m, off int) (*augmentation, error) {
	if !(a.AlphaStar > 0) || math.IsInf(a.AlphaStar, 0) {
		return nil, fmt.Errorf("alpha_star %v", a.AlphaStar)
	}
	if len(a.XData) > 0 {
		if len(a.X) != 0 || len(a.XData)%dim != 0 {
			return nil, fmt.Errorf("training inputs: %d rows and %d values for %d inputs", len(a.X), len(a.XData), dim)
		}
		a.X, _ = a.XData.Rows(len(a.XData)/dim, dim)
	}
	n := len(a.X)
	if a.FloorOnly {
		if n != 0 || len(a.Beta) != 0 || len(a.Resid) != 0 || a.LowRank != nil || a.Floor == nil {
			return nil, fmt.Errorf("floor_only with %d training inputs, a low-rank form (%v) or no floor", n, a.LowRank != nil)
		}
		aug := &augmentation{alphaStar: a.AlphaStar, floorOnly: true}
		aug.once.Do(func() {})
		return aug, nil
	}
	if a.LowRank != nil {
		if n != 0 || len(a.Beta) != 0 || len(a.Resid) != 0 {
			return nil, fmt.Errorf("both the low-rank form and %d training inputs", n)
		}
		ny, err := a.LowRank.Decode(dim, m, off, []float64{a.AlphaStar})
		if err != nil {
			return nil, err
		}
		aug := &augmentation{alphaStar: a.AlphaStar, ny: ny}
		aug.once.Do(func() {})
		return aug, nil
	}
	if n == 0 || len(a.Beta) != n || len(a.Resid) != n {
		return nil, fmt.Errorf("%d inputs, %d precisions, %d residuals", n, len(a.Beta), len(a.Resid))
	}
	x := mat.NewDense(n, dim, nil)
	for i, r := range a.X {
		if len(r) != dim {
			return nil, fmt.Errorf("input %d has %d columns, want %d", i, len(r), dim)
		}
		for _, v := range append(append(append([]float64(nil), r...), a.Beta[i]), a.Resid[i]) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("non-finite value %v in row %d", v, i)
			}
		}
		if a.Beta[i] < 0 {
			return nil, fmt.Errorf("negative precision %v in row %d", a.Beta[i], i)
		}
		x.SetRow(i, r)
	}
	// A file of the exact form (versions 1 and 2, or a kernel matrix of
	// high rank) keeps it: the loaded model predicts as the saved one.
	return &augmentation{x: x, beta: a.Beta, resid: a.Resid, alphaStar: a.AlphaStar, lowRank: augment.Settings{Exact: true}}, nil
}

// Load reads a model written by the Save method of any estimator and
// returns it as the estimator that wrote it (*Regressor, *Classifier,
// *RVMRegressor, *RVMClassifier or *RobustRegressor). The loaded model predicts exactly as
// the saved one; a truncated, corrupted or foreign file gives a
// *ModelFileError, and so do a file above 1 GiB (far above any model;
// Load reads no more) and numbers out of their range (a non-finite
// value, a precision or Gamma parameter that is not positive, a noise
// variance that overflows), which the error names. The file's checksum is a plain SHA-256 of its content:
// it detects accidents (truncation, corruption), not deliberate edits,
// which anyone can re-checksum; load only files you trust. A model fitted with a kernel of the caller's own
// (NamedKernel) is read by a Loader whose Kernels hold its name.
func Load(r io.Reader) (Estimator, error) { return Loader{}.LoadMeta(r, nil) }

// SaveMeta writes m like m.Save, together with caller metadata meta (any
// value encoding/json can marshal, for example the names of the input
// columns), covered by the same checksum. LoadMeta reads it back.
func SaveMeta(w io.Writer, m Estimator, meta any) error {
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		return err
	}
	var env envelope
	if err := json.Unmarshal(buf.Bytes(), &env); err != nil {
		return err
	}
	var p payload
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return err
	}
	return writeModel(w, &p, meta)
}

// LoadMeta is Load that also decodes the file's metadata, if any, into
// meta (a pointer, as for json.Unmarshal; nil to ignore it).
func LoadMeta(r io.Reader, meta any) (Estimator, error) { return Loader{}.LoadMeta(r, meta) }

// Loader reads model files as Load, LoadMeta, LoadMultiClassifier and
// LoadMultiClassifierMeta do, which are the methods of the zero Loader.
// Its zero value reads models of this package's kernels.
type Loader struct {
	// Kernels maps the name of every NamedKernel the files may hold to
	// its kernel, for example
	// map[string]vrvm.Kernel{"laplace(scale=2)": laplace{2}}. A file whose
	// kernel's name is not in it gives a *ModelFileError naming the
	// kernel. The kernels are not modified; a Learnable kernel is set to
	// the learned parameters the file holds.
	Kernels map[string]Kernel
}

// Load is the package's Load, resolving named kernels by l.Kernels.
func (l Loader) Load(r io.Reader) (Estimator, error) { return l.LoadMeta(r, nil) }

// LoadMeta is the package's LoadMeta, resolving named kernels by
// l.Kernels.
func (l Loader) LoadMeta(r io.Reader, meta any) (Estimator, error) {
	p, f, err := readModel(r, meta, l.Kernels)
	if err != nil {
		return nil, err
	}
	switch p.Task + "/" + p.Estimator {
	case "regression/vrvm":
		if !(p.TauShape > 0 && p.TauRate > 0) {
			return nil, &ModelFileError{Reason: "noise posterior missing"}
		}
		// The noise variance 1/⟨τ⟩ = d̃/c̃ of (37)–(38).
		noise := p.TauRate / p.TauShape
		if !(noise > 0) || math.IsInf(noise, 0) {
			return nil, &ModelFileError{Reason: fmt.Sprintf("tau_rate %v and tau_shape %v: the noise variance tau_rate/tau_shape is %v, want positive and finite", p.TauRate, p.TauShape, noise)}
		}
		f.noise, f.ct, f.dt = noise, p.TauShape, p.TauRate
		if p.Likelihood == studentLikelihood {
			return loadRobust(p, f)
		}
		return &Regressor{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, NoAugment: f.aug == nil, regressionFit: regressionFit{*f}}, nil
	case "classification/vrvm":
		f.xi = p.Xi
		return &Classifier{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, NoAugment: f.aug == nil, classificationFit: classificationFit{*f}}, nil
	case "regression/rvm":
		if !(p.Beta > 0) {
			return nil, &ModelFileError{Reason: "noise precision missing"}
		}
		if math.IsInf(1/p.Beta, 0) {
			return nil, &ModelFileError{Reason: fmt.Sprintf("beta %v: the noise variance 1/beta is not finite", p.Beta)}
		}
		f.noise = 1 / p.Beta
		return &RVMRegressor{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, regressionFit: regressionFit{*f}}, nil
	case "multiclass/vrvm":
		return nil, &ModelFileError{Reason: "a multi-class model: read it with vrvm.LoadMultiClassifier"}
	case "classification/rvm":
		return &RVMClassifier{Kernel: ownKernel(f.b.kernel), NoBias: !p.Bias, classificationFit: classificationFit{*f}}, nil
	}
	return nil, &ModelFileError{Reason: fmt.Sprintf("unknown model %q / %q", p.Task, p.Estimator)}
}
