package vrvm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/augment"
)

// TestLoadBounded: Load reads a bounded number of bytes; /dev/zero, a
// sparse file larger than the limit and a stream of valid JSON beyond it
// are errors naming the problem, never the whole memory.
func TestLoadBounded(t *testing.T) {
	t.Parallel()
	want := func(t *testing.T, err error, reason string) {
		t.Helper()
		var me *ModelFileError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), reason) {
			t.Errorf("error %v (%T), want a *ModelFileError with %q", err, err, reason)
		}
	}
	if f, err := os.Open("/dev/zero"); err == nil {
		_, err := Load(f)
		f.Close()
		want(t, err, "not valid JSON")
	}
	sparse := filepath.Join(t.TempDir(), "sparse.json")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	f.Close()
	f, err = os.Open(sparse)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(f)
	f.Close()
	want(t, err, "too large: 8 GiB, more than the limit of 1 GiB")

	// A stream (no size to stat) of valid JSON longer than the limit.
	long := `{"format":"vrvm-model","version":2,"payload":[` + strings.Repeat("0,", 600) + `0]}`
	_, _, err = readModelLimit(strings.NewReader(long), nil, 1000, nil)
	want(t, err, "too large: more than the limit of 1000 bytes")
	_, _, err = readModelLimit(strings.NewReader(`{"format":"vrvm-model"} {}`), nil, 1000, nil)
	want(t, err, "not valid JSON (truncated?): { after the JSON value")
}

// TestLoadNoiseRange: a re-checksummed file whose noise variance
// d̃/c̃ or 1/β overflows is refused, naming the fields; a negative
// Gamma parameter too.
func TestLoadNoiseRange(t *testing.T) {
	t.Parallel()
	x, y, _ := fuzzData()
	r := &Regressor{Kernel: Gaussian{Width: 1}, MaxIter: 200}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Save(&b); err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(payloadOf(t, b.Bytes()), &p); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"tau_rate": 1e308, "tau_shape": 0.5}, "tau_rate 1e+308 and tau_shape 0.5: the noise variance tau_rate/tau_shape is +Inf"},
		{map[string]any{"tau_rate": 5e-324, "tau_shape": 1e300}, "the noise variance tau_rate/tau_shape is 0"},
		{map[string]any{"tau_rate": -1}, "negative tau_rate -1"},
		{map[string]any{"estimator": "rvm", "tau_rate": 0, "tau_shape": 0, "beta": 5e-324}, "beta 5e-324: the noise variance 1/beta is not finite"},
	} {
		q := map[string]any{}
		for k, v := range p {
			q[k] = v
		}
		for k, v := range c.set {
			q[k] = v
		}
		body, _ := json.Marshal(q)
		_, err := Load(bytes.NewReader(seal(body)))
		var me *ModelFileError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.set, err, c.want)
		}
	}

	// A noise variance that is finite but leaves no room for the latent
	// variance: Predict's sum overflows and is an error, not +Inf.
	q := map[string]any{}
	for k, v := range p {
		q[k] = v
	}
	q["tau_rate"], q["tau_shape"] = math.MaxFloat64, 1.0
	var sigma augment.Floats
	raw, _ := json.Marshal(p["sigma_upper"])
	if err := json.Unmarshal(raw, &sigma); err != nil {
		t.Fatal(err)
	}
	for i := range sigma {
		sigma[i] *= 1e300
	}
	q["sigma_upper"] = sigma
	delete(q, "augment") // the plain model: (37)–(38)
	body, _ := json.Marshal(q)
	m, err := Load(bytes.NewReader(seal(body)))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = m.(*Regressor).Predict(x)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.What != "predicted variance" {
		t.Errorf("Predict: %v, want a *NonFiniteError for the predicted variance", err)
	}
}
