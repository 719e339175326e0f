package vrvm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The fuzz targets feed Load arbitrary bytes.
// With sealed false the bytes are the model file; with sealed true they are
// the payload, wrapped in a valid envelope with the right checksum, so
// that the fuzzer reaches the validation of the payload behind the
// checksum. A load must not panic, must fail with a *ModelFileError, and a
// model that loads must predict finite values, or return an error, at a
// few inputs: zeros, ±1 and its own centres.

// seal wraps payload in an envelope whose checksum matches.
func seal(payload []byte) []byte {
	var compact bytes.Buffer
	if err := json.Compact(&compact, payload); err != nil {
		return payload
	}
	sum := sha256.Sum256(compact.Bytes())
	env := `{"format":"vrvm-model","version":1,"payload":` + compact.String() + `,"sha256":"` + hex.EncodeToString(sum[:]) + `"}`
	return []byte(env)
}

// payloadOf extracts the payload of a model file.
func payloadOf(f testing.TB, file []byte) []byte {
	var env envelope
	if err := json.Unmarshal(file, &env); err != nil {
		f.Fatal(err)
	}
	return env.Payload
}

// fuzzData is a small problem for the seed models.
func fuzzData() (*mat.Dense, []float64, []float64) {
	x := mat.NewDense(12, 2, nil)
	t := make([]float64, 12)
	labels := make([]float64, 12)
	for i := range 12 {
		a, b := float64(i)/3-2, math.Sin(float64(i))
		x.SetRow(i, []float64{a, b})
		t[i] = math.Sin(2*a) + 0.3*b
		if a+b > 0 {
			labels[i] = 1
		}
	}
	return x, t, labels
}

// fuzzKernels are the savable kernels of the seed models.
var fuzzKernels = []Kernel{Gaussian{Width: 1}, Polynomial{Degree: 2, Scale: 0.5}, Linear{}}

// probes returns the inputs a loaded model is asked to predict at.
func probes(m Estimator) *mat.Dense {
	d := m.InputDim()
	rows := [][]float64{make([]float64, d), fill(d, 1), fill(d, -1)}
	if c := m.(interface{ Inputs() *mat.Dense }).Inputs(); c != nil {
		r, _ := c.Dims()
		for i := range min(r, 5) {
			rows = append(rows, c.RawRowView(i))
		}
	}
	x := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	return x
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// checkLoadError fails unless err is what a bad model file gives.
func checkLoadError(t *testing.T, err error) {
	var me *ModelFileError
	if !errors.As(err, &me) {
		t.Fatalf("load error %v (%T) is not a *ModelFileError", err, err)
	}
}

// checkFinite fails if a prediction without an error is not finite.
func checkFiniteValues(t *testing.T, what string, err error, vs ...[]float64) {
	if err != nil {
		return
	}
	for _, v := range vs {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%s[%d] = %v without an error", what, i, x)
			}
		}
	}
}

func FuzzLoadRegressor(f *testing.F) {
	x, y, _ := fuzzData()
	for _, k := range fuzzKernels {
		for _, noBias := range []bool{false, true} {
			r := &Regressor{Kernel: k, NoBias: noBias, MaxIter: 200}
			if err := r.Fit(x, y); err != nil {
				f.Fatal(err)
			}
			var b bytes.Buffer
			if err := r.Save(&b); err != nil {
				f.Fatal(err)
			}
			f.Add(b.Bytes(), false)
			f.Add(payloadOf(f, b.Bytes()), true)
		}
	}
	d := &Regressor{MaxIter: 100}
	if err := d.FitDesign(x, y); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Save(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes(), false)
	f.Add(payloadOf(f, b.Bytes()), true)
	f.Add([]byte(`{"format":"vrvm-model","version":1}`), false)
	f.Add([]byte(`{}`), true)
	// Valid payloads with extreme but finite values and a polynomial
	// kernel, for the mutator to push further.
	f.Add([]byte(`{"task":"regression","estimator":"vrvm","kernel":{"type":"gaussian","width":1e-300},"input_dim":1,"bias":true,"centers":[[1e300]],"columns":[0],"mu":[1e300,-1e300],"sigma":[[1e300,0],[0,1e300]],"alpha":[1e-300,1e300],"bound_trace":[-1e300],"iterations":1,"status":1,"tau_shape":1e-300,"tau_rate":1e-8}`), true)
	// Payloads that each fail one check of decode.
	for _, p := range []string{
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"spline"},"input_dim":1,"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":1,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"gaussian","width":-1},"input_dim":1,"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":1,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"gaussian","width":1},"input_dim":1,"bias":true,"mu":[1,2],"sigma":[[1,0],[1,1]],"alpha":[1,1],"bound_trace":[0],"status":1,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"gaussian","width":1},"input_dim":2,"bias":false,"centers":[[1]],"columns":[0],"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":1,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"design"},"input_dim":2,"columns":[2],"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":1,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"rvm","kernel":{"type":"linear"},"input_dim":1,"bias":true,"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":0,"tau_shape":1,"tau_rate":1}`,
		`{"task":"regression","estimator":"vrvm","kernel":{"type":"linear"},"input_dim":1,"bias":true,"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[],"status":1,"tau_shape":0,"tau_rate":1}`,
		`{"task":"classification","estimator":"vrvm","kernel":{"type":"linear"},"input_dim":1,"bias":true,"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"status":1}`,
	} {
		f.Add([]byte(p), true)
	}
	f.Add([]byte(`{"task":"regression","estimator":"vrvm","kernel":{"type":"polynomial","degree":3,"scale":1e10},"input_dim":2,"bias":false,"centers":[[1,2],[3,4]],"columns":[0,1],"mu":[1,2],"sigma":[[1,0.5],[0.5,1]],"alpha":[1,1],"bound_trace":[0],"iterations":1,"status":2,"tau_shape":1,"tau_rate":1}`), true)
	// Found by the fuzzer: short covariance rows after the first (a panic
	// in the symmetry check before the rows' lengths were checked).
	f.Add([]byte(`{"tAsk":"regression","kernel":{"tYpe":"gaussian","width":1},"input_dim":1,"mu":[0,0,0,0,0,0,0],"sigmA":[[0,1e19,0,0,0,0,0],[],[],[],[],[],[]],"AlphA":[0,0,0,0,0,0,0],"stAtus":1}`), true)
	// Found by hand: predictions that overflow, a huge degree, a
	// covariance with a negative variance.
	f.Add([]byte(`{"task":"regression","estimator":"vrvm","kernel":{"type":"linear"},"input_dim":1,"bias":true,"centers":[[1]],"columns":[0],"mu":[1e308,1e308],"sigma":[[1,0],[0,1]],"alpha":[1,1],"bound_trace":[0],"iterations":1,"status":1,"tau_shape":5e-324,"tau_rate":1e308}`), true)
	f.Add([]byte(`{"task":"regression","estimator":"vrvm","kernel":{"type":"polynomial","degree":1000000000},"input_dim":1,"bias":false,"centers":[[1]],"columns":[0],"mu":[1],"sigma":[[1]],"alpha":[1],"bound_trace":[0],"iterations":1,"status":1,"tau_shape":1,"tau_rate":1}`), true)
	f.Add([]byte(`{"task":"regression","estimator":"vrvm","kernel":{"type":"linear"},"input_dim":1,"bias":false,"centers":[[1]],"columns":[0],"mu":[1],"sigma":[[-1]],"alpha":[1],"bound_trace":[0],"iterations":1,"status":1,"tau_shape":1,"tau_rate":1}`), true)

	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		if sealed {
			data = seal(data)
		}
		checkLoaded(t, data)
	})
}

func FuzzLoadClassifier(f *testing.F) {
	x, _, labels := fuzzData()
	for _, k := range fuzzKernels {
		for _, noBias := range []bool{false, true} {
			c := &Classifier{Kernel: k, NoBias: noBias, MaxIter: 200}
			if err := c.Fit(x, labels); err != nil {
				f.Fatal(err)
			}
			var b bytes.Buffer
			if err := c.Save(&b); err != nil {
				f.Fatal(err)
			}
			f.Add(b.Bytes(), false)
			f.Add(payloadOf(f, b.Bytes()), true)
		}
	}
	f.Add([]byte(`{"format":"vrvm-model","version":1}`), false)
	f.Add([]byte(`{}`), true)
	f.Add([]byte(`{"task":"classification","estimator":"vrvm","kernel":{"type":"gaussian","width":1e-300},"input_dim":1,"bias":true,"centers":[[1e300]],"columns":[0],"mu":[1e300,-1e300],"sigma":[[1e300,0],[0,1e300]],"alpha":[1e-300,1e300],"bound_trace":[-1e300],"iterations":1,"status":1,"xi":[1e300,0]}`), true)
	f.Add([]byte(`{"task":"classification","estimator":"vrvm","kernel":{"type":"polynomial","degree":3,"scale":1e10},"input_dim":2,"bias":false,"centers":[[1,2],[3,4]],"columns":[0,1],"mu":[1,2],"sigma":[[1,0.5],[0.5,1]],"alpha":[1,1],"bound_trace":[0],"iterations":1,"status":2}`), true)

	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		if sealed {
			data = seal(data)
		}
		checkLoaded(t, data)
	})
}

// checkLoaded loads a model file, which must either fail with a
// *ModelFileError or give a model whose predictions are finite or errors.
func checkLoaded(t *testing.T, data []byte) {
	m, err := Load(bytes.NewReader(data))
	if err != nil {
		checkLoadError(t, err)
		return
	}
	p := probes(m)
	mean, v, err := m.Latent(p)
	checkFiniteValues(t, "Latent", err, mean, v)
	switch m := m.(type) {
	case *Regressor:
		mean, v, err := m.Predict(p)
		checkFiniteValues(t, "Predict", err, mean, v)
	case *Classifier:
		pp, err := m.ProbPlugin(p)
		checkFiniteValues(t, "ProbPlugin", err, pp)
		pm, err := m.ProbModerated(p)
		checkFiniteValues(t, "ProbModerated", err, pm)
		l, err := m.Predict(p)
		checkFiniteValues(t, "Predict", err, l)
	}
}
