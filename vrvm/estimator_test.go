package vrvm_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// laplacian is a kernel the library does not know, written outside the
// package: exp(−‖x − y‖₁/scale).
type laplacian struct{ scale float64 }

func (k laplacian) Eval(x, y []float64) float64 {
	var d float64
	for i, v := range x {
		d += math.Abs(v - y[i])
	}
	return math.Exp(-d / k.scale)
}

func waveData(n int) (*mat.Dense, []float64, []float64) {
	x := mat.NewDense(n, 1, nil)
	t := make([]float64, n)
	labels := make([]float64, n)
	for i := range n {
		v := -8 + 16*(float64(i)+0.3)/float64(n)
		x.Set(i, 0, v)
		t[i] = math.Sin(v)/v + 0.05*math.Sin(7*v)
		if math.Sin(v) > 0 {
			labels[i] = 1
		}
	}
	return x, t, labels
}

// TestUserKernel fits, saves, loads and predicts with a kernel defined
// outside the package, for every estimator and solver, without any edit of
// the library: the kernel is named (NamedKernel) and loaded by a Loader
// that maps the name to it.
func TestUserKernel(t *testing.T) {
	t.Parallel()
	x, y, labels := waveData(40)
	xt := mat.NewDense(3, 1, []float64{-2.5, 0.3, 4})
	k := vrvm.NamedKernel("laplacian(scale=2)", laplacian{2})
	if got := k.(interface{ String() string }).String(); got != "laplacian(scale=2)" {
		t.Errorf("named kernel's String %q", got)
	}
	loader := vrvm.Loader{Kernels: map[string]vrvm.Kernel{"laplacian(scale=2)": laplacian{2}}}
	for _, m := range []vrvm.Estimator{
		&vrvm.Regressor{Kernel: k}, &vrvm.Regressor{Kernel: k, Method: vrvm.PaperSchedule{}}, &vrvm.Regressor{Kernel: k, Method: vrvm.Newton{}},
		&vrvm.Classifier{Kernel: k}, &vrvm.RVMRegressor{Kernel: k}, &vrvm.RVMClassifier{Kernel: k},
	} {
		tt := y
		if m.Task() == vrvm.Classification {
			tt = labels
		}
		if err := m.FitContext(context.Background(), x, tt); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatalf("%T: save: %v", m, err)
		}
		m2, err := loader.Load(&buf)
		if err != nil {
			t.Fatalf("%T: load: %v", m, err)
		}
		mean1, var1, err1 := m.Latent(xt)
		mean2, var2, err2 := m2.Latent(xt)
		if err1 != nil || err2 != nil {
			t.Fatalf("%T: predict: %v %v", m, err1, err2)
		}
		for i := range mean1 {
			if mean1[i] != mean2[i] || var1[i] != var2[i] {
				t.Errorf("%T: loaded model predicts %v ± %v, saved one %v ± %v", m, mean2[i], var2[i], mean1[i], var1[i])
			}
		}
		if m2.FullModelBound() != m.FullModelBound() || m2.LowerBound() != m.LowerBound() || m2.NoiseSD() != m.NoiseSD() {
			t.Errorf("%T: bounds or noise differ after loading", m)
		}
		if !(m.FullModelBound() <= m.LowerBound()+1e-9*math.Abs(m.LowerBound())) && m.Task() == vrvm.Regression {
			t.Logf("%T: full-model bound %v above the active model's %v", m, m.FullModelBound(), m.LowerBound())
		}
	}
}

func TestUnregisteredKernel(t *testing.T) {
	t.Parallel()
	x, y, _ := waveData(20)
	r := &vrvm.Regressor{Kernel: laplacian{3}}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if err := r.Save(&bytes.Buffer{}); !errors.Is(err, vrvm.ErrUnsavableKernel) {
		t.Errorf("save with an unnamed kernel: %v", err)
	}
	// A file naming a kernel the Loader does not hold.
	k := vrvm.NamedKernel("laplacian(scale=4)", laplacian{4})
	r = &vrvm.Regressor{Kernel: k}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := strings.Replace(buf.String(), `laplacian(scale=4)`, `laplacian(scale=5)`, 1)
	// The checksum covers the payload: re-seal is not possible from here,
	// so the altered file must be rejected as corrupted…
	var me *vrvm.ModelFileError
	loader := vrvm.Loader{Kernels: map[string]vrvm.Kernel{"laplacian(scale=4)": laplacian{4}}}
	if _, err := loader.Load(strings.NewReader(file)); !errors.As(err, &me) {
		t.Errorf("altered kernel name: %v", err)
	}
	// …the file as written loads with its kernel…
	if _, err := loader.Load(strings.NewReader(buf.String())); err != nil {
		t.Errorf("named kernel: %v", err)
	}
	// …and without it gives an error that names the kernel.
	_, err := vrvm.Load(strings.NewReader(buf.String()))
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `"laplacian(scale=4)"`) || !strings.Contains(err.Error(), "Loader") {
		t.Errorf("kernel not in the Loader: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NamedKernel with an empty name did not panic")
		}
	}()
	vrvm.NamedKernel("", laplacian{1})
}

// summarised is the display every estimator has beside Estimator.
type summarised interface {
	String() string
	HTML() string
}

func TestEstimatorInterface(t *testing.T) {
	t.Parallel()
	x, y, labels := waveData(30)
	for _, m := range []vrvm.Estimator{&vrvm.Regressor{}, &vrvm.Classifier{}, &vrvm.RVMRegressor{}, &vrvm.RVMClassifier{}} {
		s := m.(summarised).String()
		if !strings.Contains(s, "not fitted") || strings.Contains(s, "0x") {
			t.Errorf("unfitted %T prints %q", m, s)
		}
		c := m.WithKernel(vrvm.Gaussian{Width: 2})
		if c.Status() != vrvm.NotFitted || c.Task() != m.Task() {
			t.Errorf("%T.WithKernel: %v, %v", m, c.Status(), c.Task())
		}
		tt := y
		if m.Task() == vrvm.Classification {
			tt = labels
		}
		if err := c.FitContext(context.Background(), x, tt); err != nil {
			t.Fatal(err)
		}
		if m.Status() != vrvm.NotFitted {
			t.Errorf("%T: fitting the copy fitted the template", m)
		}
		s = c.(summarised).String()
		if !strings.Contains(s, "Gaussian(width=2)") || !strings.Contains(s, "relevance vectors") || strings.Count(s, "\n") > 5 || strings.Contains(s, "0x") {
			t.Errorf("fitted %T prints %q", c, s)
		}
		if h := c.(summarised).HTML(); !strings.HasPrefix(h, `<table`) || !strings.Contains(h, "Gaussian(width=2)") || strings.Contains(h, "<script") || !strings.Contains(h, ">relevance vectors</th>") {
			t.Errorf("%T HTML %q for String %q", c, h, s)
		}
		if c.InputDim() != 1 {
			t.Errorf("%T: InputDim %d", c, c.InputDim())
		}
		if (c.NoiseSD() > 0) != (c.Task() == vrvm.Regression) {
			t.Errorf("%T: NoiseSD %v", c, c.NoiseSD())
		}
		// Zero rows: empty predictions, no panic.
		mean, v, err := c.Latent(mat.NewDense(1, 1, nil).Slice(0, 0, 0, 1))
		if err != nil || len(mean) != 0 || len(v) != 0 {
			t.Errorf("%T: zero rows: %v %v %v", c, mean, v, err)
		}
		if _, _, err := c.Latent(mat.NewDense(2, 3, nil)); err == nil {
			t.Errorf("%T: three input columns accepted", c)
		}
	}
}

func TestSaveMeta(t *testing.T) {
	t.Parallel()
	x, y, _ := waveData(25)
	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 2}}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	type meta struct {
		Inputs []string `json:"inputs"`
	}
	var buf bytes.Buffer
	if err := vrvm.SaveMeta(&buf, r, meta{Inputs: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	var got meta
	m, err := vrvm.LoadMeta(strings.NewReader(file), &got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Inputs) != 1 || got.Inputs[0] != "x" || m.LowerBound() != r.LowerBound() {
		t.Errorf("metadata %+v, bound %v", got, m.LowerBound())
	}
	// The checksum covers the metadata too.
	var me *vrvm.ModelFileError
	if _, err := vrvm.Load(strings.NewReader(strings.Replace(file, `"x"`, `"y"`, 1))); !errors.As(err, &me) {
		t.Errorf("altered metadata: %v", err)
	}
}

// TestTaskString checks that a Task that is neither regression nor
// classification is not named as either.
func TestTaskString(t *testing.T) {
	t.Parallel()
	for task, want := range map[vrvm.Task]string{vrvm.Regression: "regression", vrvm.Classification: "classification", vrvm.Task(7): "Task(7)"} {
		if got := task.String(); got != want {
			t.Errorf("Task(%d).String() = %q, want %q", int(task), got, want)
		}
	}
}
