package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/paper"
	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestCLI runs the fit, predict and paper commands end to end with one
// build of the binary.
func TestCLI(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "vrvm")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	run := func(t *testing.T, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Regression data: t = sinc(x1) + 0.1·x2 + noise, with a column that
	// is not an input.
	sinc, err := datasets.Sinc(60, 0.05, 3)
	if err != nil {
		t.Fatal(err)
	}
	var train, test strings.Builder
	train.WriteString("id,x1,t,x2\n")
	test.WriteString("x2,extra,x1\n")
	for i, ti := range sinc.T {
		x1, x2 := sinc.X.At(i, 0), float64(i%7)-3
		fmt.Fprintf(&train, "%d,%v,%v,%v\n", i, x1, ti+0.1*x2, x2)
	}
	for i := range 21 {
		x1, x2 := -10+float64(i), float64(i%5)-2
		fmt.Fprintf(&test, "%v,%d,%v\n", x2, 99, x1)
	}
	write("reg.csv", train.String())
	write("regtest.csv", test.String())

	t.Run("constant input", func(t *testing.T) {
		// An input with one value in every training row is standardised
		// with sd 1: fit says so, naming it (the sweep's N3).
		var b strings.Builder
		b.WriteString("x1,k,t\n")
		for i := range 12 {
			fmt.Fprintf(&b, "%d,5,%v\n", i, math.Sin(float64(i)))
		}
		write("constcol.csv", b.String())
		_, errOut, code := run(t, "fit", "-target", "t", "-o", "constcol.json", "constcol.csv")
		if code != 0 || !strings.Contains(errOut, `warning: input "k" is the same in every training row`) || strings.Contains(errOut, `"x1" is`) {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})

	t.Run("help", func(t *testing.T) {
		for _, c := range []struct{ cmd, want string }{
			{"fit", "vrvm-cli-model"}, {"predict", "matched by name"}, {"paper", "Table 4"},
		} {
			out, errOut, code := run(t, c.cmd, "-h")
			if code != 0 || !strings.Contains(out, "Usage: vrvm "+c.cmd) || !strings.Contains(out, c.want) || !strings.Contains(out, "-") || errOut != "" {
				t.Errorf("%s -h: status %d, stdout %q, stderr %q", c.cmd, code, out, errOut)
			}
		}
	})

	t.Run("default width", func(t *testing.T) {
		_, errOut, code := run(t, "fit", "-target", "t", "-inputs", "x1,x2", "-o", "default.json", "reg.csv")
		if code != 0 || !strings.Contains(errOut, "kernel width chosen by the dense model's evidence: Gaussian(width=") {
			t.Errorf("fit with the default kernel: status %d, no chosen width in the summary: %q", code, errOut)
		}
	})

	t.Run("default width doubled", func(t *testing.T) {
		// Friedman #1 with 45 irrelevant inputs: the sparse fit at the dense
		// model's width interpolates (γ > N/2), and the summary says that
		// the width was doubled ((W5) in the package documentation).
		d, err := datasets.Friedman1(120, 50, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for j := range 50 {
			fmt.Fprintf(&b, "x%d,", j)
		}
		b.WriteString("y\n")
		for i, y := range d.T {
			for _, v := range d.X.RawRowView(i) {
				fmt.Fprintf(&b, "%v,", v)
			}
			fmt.Fprintf(&b, "%v\n", y)
		}
		write("many.csv", b.String())
		_, errOut, code := run(t, "fit", "-target", "y", "-o", "many.json", "many.csv")
		if code != 0 || !strings.Contains(errOut, "kernel width chosen by the dense model's evidence, doubled 1 times") ||
			strings.Contains(errOut, "degrees of freedom on the mean") {
			t.Errorf("fit with many irrelevant inputs: status %d, summary %q", code, errOut)
		}
	})

	t.Run("augmented by default", func(t *testing.T) {
		// Predictions are augmented at the test point by default ((A6) in
		// the package documentation): the model file holds the
		// augmentation's state; -augment=false writes the plain model, and
		// the two predict different variances.
		variances, summaries := map[bool]string{}, map[bool]string{}
		for _, aug := range []bool{true, false} {
			args := []string{"fit", "-target", "t", "-inputs", "x1,x2", "-width", "0.5", "-o", "aug.json"}
			if !aug {
				args = append(args, "-augment=false")
			}
			_, errOut, code := run(t, append(args, "reg.csv")...)
			if code != 0 {
				t.Fatalf("fit %v: status %d: %s", args, code, errOut)
			}
			if i := strings.Index(errOut, "training RMS error"); i >= 0 {
				summaries[aug] = errOut[i : i+strings.IndexByte(errOut[i:], ';')]
			}
			model, err := os.ReadFile(filepath.Join(dir, "aug.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(model), `"augment": {`); got != aug {
				t.Errorf("fit %v: augmentation state in the model file %v, want %v", args, got, aug)
			}
			out, errOut, code := run(t, "predict", "-model", "aug.json", "regtest.csv")
			if code != 0 {
				t.Fatalf("predict: status %d: %s", code, errOut)
			}
			variances[aug] = out
		}
		if variances[true] == variances[false] {
			t.Error("augmented and plain models predict the same")
		}
		// The summary's training error is the fit's own, not that of the
		// augmented predictions.
		if summaries[true] == "" || summaries[true] != summaries[false] {
			t.Errorf("summary %q augmented, %q plain", summaries[true], summaries[false])
		}
		if _, errOut, code := run(t, "fit", "-model", "rvm", "-augment=false", "-target", "t", "-inputs", "x1,x2", "-o", "aug.json", "reg.csv"); code != 2 || !strings.Contains(errOut, "-augment applies to -model vrvm only") {
			t.Errorf("fit -model rvm -augment=false: status %d: %s", code, errOut)
		}
		if _, errOut, code := run(t, "fit", "-augment=false", "-augment-exact", "-target", "t", "-inputs", "x1,x2", "-o", "aug.json", "reg.csv"); code != 2 || !strings.Contains(errOut, "-augment-exact needs the augmentation") {
			t.Errorf("fit -augment=false -augment-exact: status %d: %s", code, errOut)
		}
		if _, errOut, code := run(t, "fit", "-augment-exact", "-target", "t", "-inputs", "x1,x2", "-o", "exact.json", "reg.csv"); code != 0 {
			t.Errorf("fit -augment-exact: status %d: %s", code, errOut)
		}
	})

	t.Run("learned kernel", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string // in the model file
		}{
			{[]string{"-kernel", "ard"}, `"scales": [`},
			{[]string{"-width", "auto", "-augment"}, `"augment": {`},
		} {
			args := append([]string{"fit", "-target", "t", "-inputs", "x1,x2", "-o", "learned.json"}, c.args...)
			_, errOut, code := run(t, append(args, "reg.csv")...)
			if code != 0 {
				t.Fatalf("fit %v: status %d: %s", c.args, code, errOut)
			}
			// A regression learns by the dense model's evidence (issue 47).
			if !strings.Contains(errOut, "kernel learned by the dense model's evidence") || !strings.Contains(errOut, "at the default width") ||
				!strings.Contains(errOut, "(in standardised input units)") {
				t.Errorf("fit %v: no learned kernel in the summary: %q", c.args, errOut)
			}
			model, err := os.ReadFile(filepath.Join(dir, "learned.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(model), c.want) {
				t.Errorf("fit %v: model file lacks %s", c.args, c.want)
			}
			out, errOut, code := run(t, "predict", "-model", "learned.json", "regtest.csv")
			if code != 0 || len(readCSV(t, out)) != 22 {
				t.Errorf("predict with the learned model: status %d: %s", code, errOut)
			}
		}
	})

	t.Run("regression round trip", func(t *testing.T) {
		_, errOut, code := run(t, "fit", "-target", "t", "-inputs", "x1,x2", "-width", "0.5", "-standardize", "-o", "reg.json", "reg.csv")
		if code != 0 {
			t.Fatalf("fit: status %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "relevance vectors") || !strings.Contains(errOut, "model written to reg.json") {
			t.Errorf("fit progress: %q", errOut)
		}
		out, errOut, code := run(t, "predict", "-model", "reg.json", "regtest.csv")
		if code != 0 {
			t.Fatalf("predict: status %d: %s", code, errOut)
		}
		rows := readCSV(t, out)
		if len(rows) != 22 || strings.Join(rows[0], ",") != "mean,variance" {
			t.Fatalf("predict output: %q", out)
		}
		// The same fit in process: inputs and target standardised with
		// the training statistics, predictions mapped back.
		tab, err := datasets.ReadCSV(strings.NewReader(train.String()), "reg.csv")
		if err != nil {
			t.Fatal(err)
		}
		d, err := tab.Select("t", "x1", "x2")
		if err != nil {
			t.Fatal(err)
		}
		sx := mustScaling(t, d.X)
		sct := mustScaling(t, mat.NewDense(len(d.T), 1, append([]float64(nil), d.T...)))
		mt, st := sct.Mean, sct.SD
		ts := make([]float64, len(d.T))
		for i, v := range d.T {
			ts[i] = (v - mt[0]) / st[0]
		}
		r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 0.5}}
		if err := r.Fit(mustApply(t, sx, d.X), ts); err != nil {
			t.Fatal(err)
		}
		xt := mat.NewDense(21, 2, nil)
		for i := range 21 {
			xt.SetRow(i, []float64{-10 + float64(i), float64(i%5) - 2})
		}
		mean, variance, err := r.Predict(mustApply(t, sx, xt))
		if err != nil {
			t.Fatal(err)
		}
		const close = 1e-12
		var sq float64
		for i, row := range rows[1:] {
			m, v := parse(t, row[0]), parse(t, row[1])
			wm, wv := mean[i]*st[0]+mt[0], variance[i]*st[0]*st[0]
			if math.Abs(m-wm) > close*math.Max(1, math.Abs(wm)) || math.Abs(v-wv) > close*wv {
				t.Errorf("row %d: mean %v, variance %v; in process %v, %v", i, m, v, wm, wv)
			}
			want := datasets.SincTrue(xt.At(i, 0)) + 0.1*xt.At(i, 1)
			sq += (m - want) * (m - want)
		}
		if rms := math.Sqrt(sq / 21); rms > 0.25 {
			t.Errorf("RMS error %v against the true function", rms)
		}
		// -o writes the same to a file.
		if _, _, code := run(t, "predict", "-model", "reg.json", "-o", "pred.csv", "regtest.csv"); code != 0 {
			t.Fatal("predict -o failed")
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "pred.csv")); string(b) != out {
			t.Error("predict -o wrote something else than stdout")
		}
	})

	t.Run("classification round trip", func(t *testing.T) {
		d, err := datasets.Ripley(120, 5)
		if err != nil {
			t.Fatal(err)
		}
		te, err := datasets.Ripley(200, 6)
		if err != nil {
			t.Fatal(err)
		}
		name := []string{"No", "Yes"}
		var b strings.Builder
		b.WriteString("xs,ys,class\n")
		for i, l := range d.T {
			fmt.Fprintf(&b, "%v,%v,%s\n", d.X.At(i, 0), d.X.At(i, 1), name[int(l)])
		}
		write("cls.csv", b.String())
		b.Reset()
		b.WriteString("class,ys,xs\n")
		for i, l := range te.T {
			fmt.Fprintf(&b, "%s,%v,%v\n", name[int(l)], te.X.At(i, 1), te.X.At(i, 0))
		}
		write("clstest.csv", b.String())
		if _, errOut, code := run(t, "fit", "-task", "classification", "-target", "class", "-labels", "No,Yes", "-width", "0.5", "-o", "cls.json", "cls.csv"); code != 0 {
			t.Fatalf("fit: status %d: %s", code, errOut)
		}
		out, errOut, code := run(t, "predict", "-model", "cls.json", "clstest.csv")
		if code != 0 {
			t.Fatalf("predict: status %d: %s", code, errOut)
		}
		rows := readCSV(t, out)
		if len(rows) != 201 || strings.Join(rows[0], ",") != "p_plugin,p_moderated,label" {
			t.Fatalf("predict output: %q", out[:min(len(out), 200)])
		}
		wrong := 0
		for i, r := range rows[1:] {
			p, pm := parse(t, r[0]), parse(t, r[1])
			if !(p >= 0 && p <= 1 && pm >= 0 && pm <= 1) || (p > 0.5) != (pm > 0.5) && p != 0.5 {
				t.Errorf("row %d: probabilities %v %v", i, p, pm)
			}
			if want := map[bool]string{false: "No", true: "Yes"}[p > 0.5]; r[2] != want {
				t.Errorf("row %d: label %q with p = %v", i, r[2], p)
			}
			if r[2] != name[int(te.T[i])] {
				wrong++
			}
		}
		if wrong > 30 {
			t.Errorf("%d of 200 test points misclassified", wrong)
		}
	})

	t.Run("rvm", func(t *testing.T) {
		// -model rvm: the type-II ML RVM (sequential algorithm), saved
		// and applied by predict exactly as the library's RVMRegressor
		// fitted in process on the standardised data.
		_, errOut, code := run(t, "fit", "-model", "rvm", "-target", "t", "-inputs", "x1,x2", "-width", "0.5", "-o", "rvm.json", "reg.csv")
		if code != 0 {
			t.Fatalf("fit -model rvm: status %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "RVM regression") || !strings.Contains(errOut, "log evidence") || strings.Contains(errOut, "lower bound") {
			t.Errorf("fit -model rvm progress: %q", errOut)
		}
		out, errOut, code := run(t, "predict", "-model", "rvm.json", "regtest.csv")
		if code != 0 {
			t.Fatalf("predict: status %d: %s", code, errOut)
		}
		rows := readCSV(t, out)
		tab, err := datasets.ReadCSV(strings.NewReader(train.String()), "reg.csv")
		if err != nil {
			t.Fatal(err)
		}
		d, err := tab.Select("t", "x1", "x2")
		if err != nil {
			t.Fatal(err)
		}
		sx := mustScaling(t, d.X)
		sct := mustScaling(t, mat.NewDense(len(d.T), 1, append([]float64(nil), d.T...)))
		mt, st := sct.Mean, sct.SD
		ts := make([]float64, len(d.T))
		for i, v := range d.T {
			ts[i] = (v - mt[0]) / st[0]
		}
		r := &vrvm.RVMRegressor{Kernel: vrvm.Gaussian{Width: 0.5}}
		if err := r.Fit(mustApply(t, sx, d.X), ts); err != nil {
			t.Fatal(err)
		}
		if r.Method != nil || r.Status() != vrvm.Converged {
			t.Errorf("in process: method %v (want nil, the default), %v", r.Method, r.Status())
		}
		xt := mat.NewDense(21, 2, nil)
		for i := range 21 {
			xt.SetRow(i, []float64{-10 + float64(i), float64(i%5) - 2})
		}
		mean, variance, err := r.Predict(mustApply(t, sx, xt))
		if err != nil {
			t.Fatal(err)
		}
		const close = 1e-12
		if len(rows) != 22 {
			t.Fatalf("predict output: %q", out)
		}
		for i, row := range rows[1:] {
			m, v := parse(t, row[0]), parse(t, row[1])
			wm, wv := mean[i]*st[0]+mt[0], variance[i]*st[0]*st[0]
			if math.Abs(m-wm) > close*math.Max(1, math.Abs(wm)) || math.Abs(v-wv) > close*wv {
				t.Errorf("row %d: mean %v, variance %v; in process %v, %v", i, m, v, wm, wv)
			}
		}
		if _, errOut, code := run(t, "fit", "-model", "rvm", "-task", "classification", "-target", "class", "-labels", "No,Yes", "-width", "0.5", "-o", "rvmcls.json", "cls.csv"); code != 0 || !strings.Contains(errOut, "log evidence") {
			t.Errorf("fit -model rvm -task classification: status %d: %s", code, errOut)
		}
		for _, args := range [][]string{
			{"-model", "svm"}, {"-model", "rvm", "-prior-a", "1"}, {"-model", "rvm", "-no-prune"}, {"-model", "rvm", "-paper-schedule"},
		} {
			a := append([]string{"fit", "-target", "t", "-o", "bad.json"}, args...)
			if _, errOut, code := run(t, append(a, "reg.csv")...); code != 2 || !strings.Contains(errOut, "-") {
				t.Errorf("fit %v: status %d, %q", args, code, errOut)
			}
		}
	})

	// A classification model relabelled as regression with a valid
	// checksum, and a file of the library without column names.
	relabelled := func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "cls.json"))
		if err != nil {
			t.Skip("no classification model")
		}
		var meta cliMeta
		m, err := vrvm.LoadMeta(bytes.NewReader(b), &meta)
		if err != nil {
			t.Fatal(err)
		}
		meta.Task, meta.Labels = "regression", nil
		var out bytes.Buffer
		if err := vrvm.SaveMeta(&out, m, &meta); err != nil {
			t.Fatal(err)
		}
		write("relabelled.json", out.String())
	}
	library := func(t *testing.T) {
		r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 2}}
		if err := r.Fit(sinc.X, sinc.T); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Save(&b); err != nil {
			t.Fatal(err)
		}
		write("library.json", b.String())
	}
	corrupted := func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "reg.json"))
		if err != nil {
			t.Skip("no regression model")
		}
		i := bytes.Index(b, []byte(`x1`))
		b[i+1] = '9'
		write("corrupted.json", string(b))
	}
	truncated := func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "reg.json"))
		if err != nil {
			t.Skip("no regression model")
		}
		write("truncated.json", string(b[:len(b)/2]))
	}
	write("ragged.csv", "x,t\n1,2\n3\n4,5\n")
	write("ragged2.csv", "x1,x2\n1,2\n3\n4,5\n")
	write("text.csv", "x,t\n1,2\n3,4\nabc,5\n")
	write("semicolons.csv", "x;t\n1;2\n3;4\n")
	write("tabs.csv", "x\tt\n1\t2\n3\t4\n")
	write("joined.csv", "c,t\na,no\nb,yes\nc,t\na,yes\nb,no\nc,t\nb,yes\n")
	write("labels.csv", "x,t\n1,0\n2,1\n3,2\n")
	write("halflabels.csv", "x,t\n1,0\n2,1.5\n3,2\n4,2\n")
	write("nox2.csv", "x1,t\n1,2\n")

	for _, c := range []struct {
		name  string
		setup func(t *testing.T) // writes the files args name
		args  []string
		code  int
		want  string
	}{
		{"missing file", nil, []string{"fit", "-target", "t", "-o", "m.json", "nonexistent.csv"},
			1, "vrvm fit: open nonexistent.csv: no such file or directory"},
		{"ragged row", nil, []string{"fit", "-target", "t", "-o", "m.json", "ragged.csv"},
			1, "vrvm fit: ragged.csv:3: wrong number of fields"},
		{"non-numeric cell", nil, []string{"fit", "-target", "t", "-o", "m.json", "text.csv"},
			1, `vrvm fit: text.csv:4: column "x" (field 1): not a number`},
		{"unknown target", nil, []string{"fit", "-target", "price", "-o", "m.json", "reg.csv"},
			1, `no such column "price" (-target); columns are id, x1, t, x2`},
		{"fields separated by semicolons", nil, []string{"fit", "-target", "t", "-o", "m.json", "semicolons.csv"},
			1, `vrvm fit: semicolons.csv: no such column "t" (-target); columns are x;t (one column: the file seems to separate its fields by semicolons; vrvm reads comma-separated files)`},
		{"fields separated by tabs", nil, []string{"fit", "-target", "t", "-o", "m.json", "tabs.csv"},
			1, `vrvm fit: tabs.csv:1: field 1: bad header: column name "x\tt" is not valid UTF-8 or holds a control character (one column: the file seems to separate its fields by tabs; vrvm reads comma-separated files)`},
		// Two repeated header lines made a class "t" of two rows, with the
		// category "c".
		{"header line repeated", nil, []string{"fit", "-task", "classification", "-categorical", "c", "-target", "t", "-o", "m.json", "joined.csv"},
			1, "vrvm fit: joined.csv:4: bad header: the line repeats the header line (files joined with their headers?); delete it"},
		{"labels 0, 1, 2: a multi-class model, whose classes need two rows each", nil, []string{"fit", "-task", "classification", "-target", "t", "-o", "m.json", "labels.csv"},
			1, `vrvm fit: labels.csv:2: label "0" is the only row of its class; every class needs at least 2`},
		{"non-integer numeric class label", nil, []string{"fit", "-task", "classification", "-target", "t", "-o", "m.json", "halflabels.csv"},
			1, `vrvm fit: halflabels.csv:3: column "t" (field 2): bad label "1.5": a numeric class label must be an integer (or write the labels as text)`},
		{"unknown flag", nil, []string{"fit", "-frobnicate", "reg.csv"},
			2, `vrvm fit: flag provided but not defined: -frobnicate; run "vrvm fit -h" for usage`},
		{"unknown kernel", nil, []string{"fit", "-target", "t", "-kernel", "rbf", "-o", "m.json", "reg.csv"},
			2, `vrvm fit: -kernel "rbf": want gaussian, ard, polynomial or linear`},
		{"width not a number", nil, []string{"fit", "-target", "t", "-width", "wide", "-o", "m.json", "reg.csv"},
			2, `vrvm fit: -width "wide": want a number or auto`},
		{"width of a polynomial", nil, []string{"fit", "-target", "t", "-kernel", "polynomial", "-width", "2", "-o", "m.json", "reg.csv"},
			2, "vrvm fit: -width applies to the gaussian kernel only"},
		{"bad kernel parameter", nil, []string{"fit", "-target", "t", "-width", "-1", "-o", "m.json", "reg.csv"},
			1, "vrvm fit: invalid option Gaussian.Width = -1: must be positive and finite"},
		{"no output", nil, []string{"fit", "-target", "t", "reg.csv"},
			2, "vrvm fit: -o is required"},
		{"predict unknown flag", nil, []string{"predict", "--model=reg.json", "--verbose", "regtest.csv"},
			2, `vrvm predict: flag provided but not defined: -verbose`},
		{"predict missing model", nil, []string{"predict", "-model", "none.json", "regtest.csv"},
			1, "vrvm predict: open none.json: no such file or directory"},
		{"predict missing data", nil, []string{"predict", "-model", "reg.json", "none.csv"},
			1, "vrvm predict: open none.csv: no such file or directory"},
		{"predict missing input", nil, []string{"predict", "-model", "reg.json", "nox2.csv"},
			1, `vrvm predict: nox2.csv: no such column "x2", an input of the model; columns are x1, t`},
		{"predict ragged", nil, []string{"predict", "-model", "reg.json", "ragged2.csv"},
			1, "vrvm predict: ragged2.csv:3: wrong number of fields"},
		{"model of another task", relabelled, []string{"predict", "-model", "relabelled.json", "regtest.csv"},
			1, "vrvm predict: relabelled.json: bad model file: file holds a classification model, not regression"},
		{"library model file", library, []string{"predict", "-model", "library.json", "regtest.csv"},
			1, "vrvm predict: library.json: bad model file: it is a model file of the vrvm library, without column names"},
		{"corrupted model", corrupted, []string{"predict", "-model", "corrupted.json", "regtest.csv"},
			1, "vrvm predict: corrupted.json: bad model file: checksum mismatch: the file was altered or corrupted"},
		{"truncated model", truncated, []string{"predict", "-model", "truncated.json", "regtest.csv"},
			1, "vrvm predict: truncated.json: bad model file: not valid JSON (truncated?)"},
		{"data as model", nil, []string{"predict", "-model", "reg.csv", "regtest.csv"},
			1, "vrvm predict: reg.csv: bad model file: not valid JSON"},
		{"paper bad table", nil, []string{"paper", "-tables", "1,5"},
			2, `vrvm paper: -tables: "5" is not a table number 1–4`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup(t)
			}
			out, errOut, code := run(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) || out != "" {
				t.Errorf("status %d (want %d), stdout %q, stderr %q; want %q", code, c.code, out, errOut, c.want)
			}
			if n := strings.Count(errOut, "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want one: %q", n, errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Error("a failed fit wrote a model file")
	}

	t.Run("interrupt fit", func(t *testing.T) {
		// 300 points without pruning take minutes with the paper's
		// schedule: interrupt the fit.
		var b strings.Builder
		b.WriteString("x,t\n")
		for i := range 300 {
			x := -10 + 20*float64(i)/299
			fmt.Fprintf(&b, "%v,%v\n", x, datasets.SincTrue(x)+0.1*math.Sin(7*x))
		}
		write("big.csv", b.String())
		errOut, code := interrupt(t, exec.Command(bin, "fit", "-target", "t", "-no-prune", "-paper-schedule", "-max-iter", "1000000", "-o", "big.json", "big.csv"), dir, "iteration")
		if code != 130 || !strings.Contains(errOut, "vrvm fit: stopping… (press Ctrl-C again to exit at once)\n") || !strings.Contains(errOut, "vrvm fit: interrupted after") || !strings.Contains(errOut, "no model written") {
			t.Errorf("status %d, stderr %q", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "big.json")); err == nil {
			t.Error("an interrupted fit wrote a model file")
		}
	})

	t.Run("paper", func(t *testing.T) {
		data := testDataDir(t)
		cmd := exec.Command(bin, "paper", "-tables", "1", "-no-study")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "VRVM_DATA="+data)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, e.String())
		}
		for _, want := range []string{"### Table 1: sinc", "| VRVM | 0.0", "| SVM | – | 0.0519 |", "Gaussian", "Targets:", "Total wall time"} {
			if !strings.Contains(o.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, o.String())
			}
		}
		if !strings.Contains(e.String(), "vrvm paper: [75/75] table 1") {
			t.Errorf("progress: %q", e.String())
		}
		// Fits cut short at the iteration limit are warned about.
		cmd = exec.Command(bin, "paper", "-tables", "1", "-no-study", "-max-iter", "2", "-quiet")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "VRVM_DATA="+data)
		e.Reset()
		cmd.Stdout, cmd.Stderr = io.Discard, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, e.String())
		}
		if want := "vrvm paper: warning: table 1: 25 of the 25 VRVM fits stopped at the iteration limit before converging; raise -max-iter\n"; !strings.Contains(e.String(), want) {
			t.Errorf("stderr %q lacks %q", e.String(), want)
		}

		cmd = exec.Command(bin, "paper", "-tables", "4")
		cmd.Env = append(os.Environ(), "VRVM_DATA="+data)
		errOut, code := interrupt(t, cmd, dir, "table 4")
		if code != 130 || !strings.Contains(errOut, "vrvm paper: interrupted; the fits were stopped") {
			t.Errorf("interrupted paper: status %d, stderr %q", code, errOut)
		}
	})
}

// interrupt starts cmd, sends it SIGINT once its standard error contains
// ready, and returns its standard error and exit status.
func interrupt(t *testing.T, cmd *exec.Cmd, dir, ready string) (string, int) {
	t.Helper()
	cmd.Dir = dir
	var e syncBuffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(e.String(), ready) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("no exit 30 s after SIGINT; stderr %q", e.String())
	}
	return e.String(), cmd.ProcessState.ExitCode()
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func (s *syncBuffer) lock() {
	if s.mu == nil {
		s.mu = make(chan struct{}, 1)
	}
	s.mu <- struct{}{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.lock()
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.lock()
	defer func() { <-s.mu }()
	return s.b.String()
}

// testDataDir returns the directory of the project's data files, skipping
// the test if there is none.
func testDataDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{os.Getenv(datasets.EnvDir), filepath.Join("..", "..", "..", "shared", "data")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "sinc_N100_25sets.csv")); err == nil {
			abs, err := filepath.Abs(d)
			if err != nil {
				t.Fatal(err)
			}
			return abs
		}
	}
	t.Skip("no data directory; set VRVM_DATA to shared/data")
	return ""
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v", err)
	}
	return rows
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConvergenceWarnings: one warning per model and kind of fit that did
// not end as Converged, none for converged fits and quoted rows.
func TestConvergenceWarnings(t *testing.T) {
	tb := &paper.Table{Rows: []paper.Row{
		{Model: "SVM"},
		{Model: "RVM", Measured: true, Runs: []paper.Run{{Status: vrvm.Converged}, {Status: vrvm.Converged}}},
		{Model: "VRVM", Measured: true, Runs: []paper.Run{{Status: vrvm.IterationLimit}, {Status: vrvm.InterceptOnly}, {Status: vrvm.IterationLimit}}},
	}}
	got := convergenceWarnings(tb)
	want := []string{
		"2 of the 3 VRVM fits stopped at the iteration limit before converging; raise -max-iter",
		"1 of the 3 VRVM fits kept no relevance vector: the model predicts a constant",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// mustScaling returns the Scaling of x (datasets.NewScaling), as vrvm fit
// computes it.
func mustScaling(t *testing.T, x mat.Matrix) *datasets.Scaling {
	t.Helper()
	s, err := datasets.NewScaling(x)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustApply returns x standardised by s.
func mustApply(t *testing.T, s *datasets.Scaling, x mat.Matrix) *mat.Dense {
	t.Helper()
	z, err := s.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	return z
}
