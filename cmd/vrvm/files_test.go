package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFormerModelFiles: model files written by vrvm fit in the former
// format "vrvm-cli-model", version 1 and version 2 (categorical input,
// imputed missing values), still load and predict what they predicted
// then; so does the version 2 model saved again in the current format.
// Unknown versions say how to refit.
func TestFormerModelFiles(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, "v1-regression.json", "v1.csv", "v1-regression-pred.csv",
		"v2-regression.json", "boston_score_r.csv", "v2-regression-pred.csv")
	for _, c := range []struct {
		model, data, pred string
		args              []string
		rows              int
	}{
		{"v1-regression.json", "v1.csv", "v1-regression-pred.csv", nil, 31},
		{"v2-regression.json", "boston_score_r.csv", "v2-regression-pred.csv", []string{"-keep", "tract"}, 41},
	} {
		out, errOut, code := runIn(t, dir, append(append([]string{"predict", "-model", c.model}, c.args...), c.data)...)
		if code != 0 {
			t.Fatalf("predict %s: %s", c.model, errOut)
		}
		samePredictions(t, c.model, out, filepath.Join(dir, c.pred), c.rows)
	}

	// The version 2 model in the current format predicts the same.
	b, err := os.ReadFile(filepath.Join(dir, "v2-regression.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseCLIModel(b, "v2-regression.json")
	if err != nil {
		t.Fatal(err)
	}
	meta := m.meta
	meta.Version = cliMetaVersion
	var now bytes.Buffer
	if err := m.est.save(&now, &meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "now.json"), now.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runIn(t, dir, "predict", "-model", "now.json", "-keep", "tract", "boston_score_r.csv")
	if code != 0 {
		t.Fatalf("the current format: status %d, %s", code, errOut)
	}
	samePredictions(t, "now.json", out, filepath.Join(dir, "v2-regression-pred.csv"), 41)

	b, err = os.ReadFile(filepath.Join(dir, "v1-regression.json"))
	if err != nil {
		t.Fatal(err)
	}
	v3 := bytes.Replace(b, []byte(`"version": 1,`), []byte(`"version": 3,`), 1)
	if err := os.WriteFile(filepath.Join(dir, "v3.json"), v3, 0o644); err != nil {
		t.Fatal(err)
	}
	meta.Version = 4
	var v4 bytes.Buffer
	if err := m.est.save(&v4, &meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "v4.json"), v4.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, want string }{
		{"v3.json", `vrvm predict: v3.json: bad model file: version 3 is not supported (this vrvm reads versions 1 and 2 of format "vrvm-cli-model"); fit the model again with this "vrvm fit"` + "\n"},
		{"v4.json", `vrvm predict: v4.json: bad model file: version 4 of the command's metadata is not supported (this vrvm reads version 3); fit the model again with this "vrvm fit"` + "\n"},
	} {
		_, errOut, code = runIn(t, dir, "predict", "-model", c.model, "v1.csv")
		if code != 1 || errOut != c.want {
			t.Errorf("status %d, stderr %q; want %q", code, errOut, c.want)
		}
	}
}

// TestOutputFiles: modes, standard output, no overwriting of an input,
// errors that name the user's path, no temporary file left.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, "v1.csv")
	data := filepath.Join(dir, "v1.csv")
	before, _ := os.ReadFile(data)
	noTemp := func(t *testing.T) {
		t.Helper()
		matches, _ := filepath.Glob(filepath.Join(dir, ".*vrvm-tmp*"))
		if len(matches) > 0 {
			t.Errorf("temporary files left: %q", matches)
		}
	}

	if _, errOut, code := runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "m.json", "v1.csv"); code != 0 {
		t.Fatal(errOut)
	}
	fi, err := os.Stat(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := os.FileMode(0o666) &^ umask(); fi.Mode().Perm() != want {
		t.Errorf("model file mode %v, want %v (0666 less the umask)", fi.Mode().Perm(), want)
	}
	// An existing file keeps its mode.
	os.Chmod(filepath.Join(dir, "m.json"), 0o600)
	if _, errOut, code := runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "m.json", "v1.csv"); code != 0 {
		t.Fatal(errOut)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "m.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten model file mode %v, want 0600 as before", fi.Mode().Perm())
	}
	noTemp(t)

	// -o - writes the model to standard output.
	out, errOut, code := runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "-", "v1.csv")
	if code != 0 || errOut != "" {
		t.Fatalf("fit -o -: status %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`fit -o - created a file named "-"`)
	}
	if _, err := parseCLIModel([]byte(out), "<stdout>"); err != nil {
		t.Errorf("the model on standard output: %v", err)
	}
	m, _ := os.ReadFile(filepath.Join(dir, "m.json"))
	if out != string(m) {
		t.Error("fit -o - and fit -o m.json wrote different models")
	}

	pred, _, code := runIn(t, dir, "predict", "-model", "m.json", "-o", "-", "v1.csv")
	if code != 0 || !strings.HasPrefix(pred, "mean,variance\n") {
		t.Fatalf("predict -o -: %q", pred)
	}
	if _, errOut, code := runIn(t, dir, "predict", "-model", "m.json", "-o", "p.csv", "v1.csv"); code != 0 {
		t.Fatal(errOut)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "p.csv")); string(b) != pred {
		t.Error("predict -o p.csv differs from standard output")
	}

	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"fit over its data", []string{"fit", "-target", "t", "-o", "v1.csv", "v1.csv"}, 2,
			"vrvm fit: -o v1.csv: refusing to overwrite the input file v1.csv\n"},
		{"fit over its data, another path", []string{"fit", "-target", "t", "-o", "./v1.csv", data}, 2,
			"vrvm fit: -o ./v1.csv: refusing to overwrite the input file " + data + "\n"},
		{"predict over its data", []string{"predict", "-model", "m.json", "-o", "v1.csv", "v1.csv"}, 2,
			"vrvm predict: -o v1.csv: refusing to overwrite the input file v1.csv\n"},
		{"predict over its model", []string{"predict", "-model", "m.json", "-o", "m.json", "v1.csv"}, 2,
			"vrvm predict: -o m.json: refusing to overwrite the input file m.json\n"},
		{"no such directory", []string{"fit", "-target", "t", "-quiet", "-o", "nodir/m.json", "v1.csv"}, 1,
			"vrvm fit: nodir/m.json: no such file or directory\n"},
		{"a directory", []string{"predict", "-model", "m.json", "-o", ".", "v1.csv"}, 1,
			"vrvm predict: .: is a directory\n"},
	} {
		_, errOut, code := runIn(t, dir, c.args...)
		if code != c.code || errOut != c.want {
			t.Errorf("%s: status %d, stderr %q; want %d, %q", c.name, code, errOut, c.code, c.want)
		}
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(before, after) {
		t.Error("the data file changed")
	}

	// A failed predict leaves an existing output as it was.
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("x1,x2\n1,oops\n"), 0o644)
	if _, _, code := runIn(t, dir, "predict", "-model", "m.json", "-o", "p.csv", "bad.csv"); code != 1 {
		t.Error("predict on bad data succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "p.csv")); string(b) != pred {
		t.Error("a failed predict changed its -o file")
	}
	noTemp(t)
}

// TestWriteOutputError: an error of the writer removes the temporary
// file and is returned as it is.
func TestWriteOutputError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	want := fmt.Errorf("the writer's error")
	err := writeOutput(path, io.Discard, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return want
	})
	if err != want {
		t.Errorf("error %v, want %v", err, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// TestInterrupt: the first SIGINT prints "stopping…" and cancels, the
// second removes the temporary files and exits with 130 at once.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	exited := make(chan int, 1)
	exit = func(code int) { exited <- code }
	defer func() { exit = os.Exit }()
	defer func() {
		tempFiles.Lock()
		tempFiles.exiting = false
		tempFiles.Unlock()
	}()
	var stderr syncBuffer
	ctx, stop := onInterrupt("fit", &stderr)
	defer stop()

	// A write in progress when the signals come.
	inWrite := make(chan struct{})
	release := make(chan struct{})
	werr := make(chan error, 1)
	go func() {
		werr <- writeOutput(filepath.Join(dir, "m.json"), io.Discard, func(w io.Writer) error {
			close(inWrite)
			<-release
			return nil
		})
	}()
	<-inWrite
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGINT did not cancel")
	}
	for !strings.Contains(stderr.String(), "vrvm fit: stopping…") {
		time.Sleep(time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit status %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT did not exit")
	}
	if !strings.Contains(stderr.String(), "exiting at once") {
		t.Errorf("stderr %q", stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left after the second SIGINT: %v", entries)
	}
	close(release)
	<-werr
	if entries, _ := os.ReadDir(dir); len(entries) > 1 {
		t.Errorf("files: %v", entries)
	}
}

// TestFitSummary: the summary a user can act on, and its warnings.
func TestFitSummary(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, "v1.csv", "boston_train_r.csv")
	_, errOut, code := runIn(t, dir, "fit", "-target", "t", "-o", "m.json", "v1.csv")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"regression, gaussian kernel, 30 rows × 2 inputs (x1, x2): converged after", "relevance vectors", "of 30 rows; noise sd", "training RMS error", "(target units); lower bound", "model written to m.json"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("summary %q lacks %q", errOut, want)
		}
	}
	if strings.Contains(errOut, "warning") {
		t.Errorf("warning in %q", errOut)
	}
	_, errOut, code = runIn(t, dir, "fit", "-target", "t", "-max-iter", "2", "-paper-schedule", "-quiet", "-o", "m.json", "v1.csv")
	if code != 0 || errOut != "vrvm fit: warning: stopped at the iteration limit (2) before converging; raise -max-iter\n" {
		t.Errorf("iteration limit: status %d, stderr %q", code, errOut)
	}
	// A target unrelated to a constant input: no relevance vector.
	var b strings.Builder
	b.WriteString("x,t\n")
	for i := range 40 {
		fmt.Fprintf(&b, "1,%v\n", math.Sin(float64(i*i)))
	}
	os.WriteFile(filepath.Join(dir, "const.csv"), []byte(b.String()), 0o644)
	_, errOut, code = runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "c.json", "const.csv")
	if code != 0 || !strings.Contains(errOut, "vrvm fit: warning: no relevance vector: the model predicts a constant") {
		t.Errorf("constant model: status %d, stderr %q", code, errOut)
	}

	// Rows that repeat an earlier row, inputs and target, are fitted once
	// (D1), with a warning.
	b.Reset()
	b.WriteString("x,t\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%v,%v\n", i, math.Sin(float64(i)/4))
	}
	for i := range 5 {
		fmt.Fprintf(&b, "%v,%v\n", 3*i, math.Sin(float64(3*i)/4))
	}
	os.WriteFile(filepath.Join(dir, "rep.csv"), []byte(b.String()), 0o644)
	_, errOut, code = runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "r.json", "rep.csv")
	if want := "vrvm fit: warning: 5 of the 45 rows repeat an earlier row, inputs and target, and were fitted once each"; code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("repeated rows: status %d, stderr %q; want %q…", code, errOut, want)
	}

	// Standardisation is the default; off, inputs of different scales
	// are warned about.
	base := []string{"fit", "-target", "medv", "-inputs", "crim,rm,tax", "-missing", "drop", "-quiet"}
	_, errOut, code = runIn(t, dir, append(base, "-o", "d.json", "boston_train_r.csv")...)
	if code != 0 || errOut != "" {
		t.Errorf("default: status %d, stderr %q", code, errOut)
	}
	// A kernel far narrower than the rows' spacing: the model nearly
	// interpolates, and its noise estimate collapses.
	_, errOut, code = runIn(t, dir, append(base, "-width", "0.05", "-o", "n.json", "boston_train_r.csv")...)
	if want := "vrvm fit: warning: the model spends γ = "; code != 0 || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "degrees of freedom on the mean") {
		t.Errorf("narrow kernel: status %d, stderr %q; want a warning %q…", code, errOut, want)
	}
	_, _, code = runIn(t, dir, append(base, "-standardize", "-o", "s.json", "boston_train_r.csv")...)
	d, _ := os.ReadFile(filepath.Join(dir, "d.json"))
	s, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	if code != 0 || !bytes.Equal(d, s) {
		t.Error("the default and -standardize differ")
	}
	if m, err := parseCLIModel(d, "d.json"); err != nil || !m.meta.Standardized {
		t.Error("the default model is not standardised")
	}
	_, errOut, code = runIn(t, dir, append(base, "-standardize=false", "-o", "r.json", "boston_train_r.csv")...)
	// R: sd of tax 175.28, of rm 0.63352 (population), ratio 276.68.
	want := `vrvm fit: warning: -standardize=false and the inputs differ in scale by a factor 277 (standard deviation of "tax" 175, of "rm" 0.634)`
	if code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("raw inputs: status %d, stderr %q; want %q", code, errOut, want)
	}
}

// samePredictions checks that the CSV out of "vrvm predict" with model has
// rows lines and agrees with the file wantPath, written by the former
// format, to 1e-12 relative in every number (kernel values are rounded
// differently since predictions are computed by blocks).
func samePredictions(t *testing.T, model, out, wantPath string, rows int) {
	t.Helper()
	got := readCSV(t, out)
	want := records(t, wantPath)
	if len(got) != len(want) || len(got) != rows || strings.Join(got[0], ",") != strings.Join(want[0], ",") {
		t.Fatalf("%s: %d lines, want %d; header %q, want %q", model, len(got), len(want), got[0], want[0])
	}
	for i := 1; i < len(got); i++ {
		for j := range got[i] {
			if got[i][j] == want[i][j] {
				continue
			}
			const close = 1e-12
			g, w := parse(t, got[i][j]), parse(t, want[i][j])
			if math.Abs(g-w) > close*math.Abs(w) {
				t.Errorf("%s, line %d: %v, the former format predicted %v", model, i+1, g, w)
			}
		}
	}
}
