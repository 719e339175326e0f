package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register(&command{
		name:  "fit",
		short: "fit a VRVM to a CSV file and save the model",
		run:   fitCommand,
	})
}

const fitUsage = `Usage: vrvm fit -target NAME -o model.json [flags] data.csv

Fit fits the variational relevance vector machine (Bishop & Tipping 2000)
to the CSV file data.csv ("-" for standard input) and writes the model to
the file named by -o.

The CSV file has a header line naming the columns; every other cell is a
decimal number, except that with -labels the target column may hold the
two class names. The target is the column named by -target, the inputs
are the columns named by -inputs, or all other columns. For
classification the target must be 0 or 1, or one of the two -labels.

Model file: the library's model file (vrvm.Regressor.Save or
vrvm.Classifier.Save) cannot hold column names, so vrvm fit writes a JSON
file of its own, format "vrvm-cli-model": the library's model file
embedded unchanged under "model", with the task, the target and input
column names, the class labels and the standardisation statistics, all
covered by a SHA-256 checksum. "vrvm predict" matches the input columns
of its data by these names.

Progress goes to standard error (every second for long fits). Ctrl-C
stops the fit and exits with status 130 without writing a model.
Exit status: 0 on success, 1 for bad data or a failed fit, 2 for bad
flags.

Flags:
`

// cliModelFormat names the model files of vrvm fit.
const (
	cliModelFormat  = "vrvm-cli-model"
	cliModelVersion = 1
)

// cliModel is the file written by vrvm fit: a checksummed body.
type cliModel struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Body    json.RawMessage `json:"body"`
	SHA256  string          `json:"sha256"`
}

// cliBody is what vrvm predict needs besides the library's model.
type cliBody struct {
	Task   string   `json:"task"` // "regression" or "classification"
	Target string   `json:"target"`
	Inputs []string `json:"inputs"`
	// Labels are the names of class 0 and class 1, if the target held
	// text labels.
	Labels []string `json:"labels,omitempty"`
	// Standardized inputs: x' = (x − InputMean)/InputSD; for regression
	// also t' = (t − TargetMean)/TargetSD, undone on prediction.
	Standardized bool            `json:"standardized"`
	InputMean    []float64       `json:"input_mean,omitempty"`
	InputSD      []float64       `json:"input_sd,omitempty"`
	TargetMean   float64         `json:"target_mean,omitempty"`
	TargetSD     float64         `json:"target_sd,omitempty"`
	Model        json.RawMessage `json:"model"` // the library's model file
}

// fitCommand is the "fit" command.
func fitCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	target := fs.String("target", "", "`name` of the target column (required)")
	inputs := fs.String("inputs", "", "comma-separated input column `names` (default: all columns but the target)")
	task := fs.String("task", "regression", "`task`: regression or classification")
	labels := fs.String("labels", "", "classification: the class `names` NEG,POS of a text target column (NEG is 0, POS is 1)")
	kernel := fs.String("kernel", "gaussian", "`kernel`: gaussian exp(-‖x-x'‖²/width²), polynomial (scale·x·x' + 1)^degree or linear x·x'")
	width := fs.Float64("width", 1, "width of the gaussian kernel")
	degree := fs.Int("degree", 3, "degree of the polynomial kernel")
	scale := fs.Float64("scale", 0, "scale of the polynomial kernel (0: 1; 1/d suits d standardised inputs)")
	standardize := fs.Bool("standardize", false, "standardise the inputs (and a regression target) with the mean and standard deviation of the data; predict undoes it")
	var prior vrvm.Prior
	fs.Float64Var(&prior.A, "prior-a", 0, "shape a of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&prior.B, "prior-b", 0, "rate b of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&prior.C, "prior-c", 0, "regression: shape c of the Gamma prior of the noise precision (0: 1e-6)")
	fs.Float64Var(&prior.D, "prior-d", 0, "regression: rate d of the Gamma prior of the noise precision (0: 1e-6)")
	noBias := fs.Bool("no-bias", false, "no bias basis function")
	noPrune := fs.Bool("no-prune", false, "keep every basis function to the end (slower; the paper's algorithm)")
	maxIter := fs.Int("max-iter", 0, "iteration limit (0: the library's default, 10000)")
	paperSchedule := fs.Bool("paper-schedule", false, "iterate the paper's update schedule instead of the default (sequential) solver: starts from all functions, slower, sometimes a different optimum")
	out := fs.String("o", "", "`file` to write the model to (required)")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	if code, ok := parseFlags(fs, "fit", fitUsage, args, stdout, stderr); !ok {
		return code
	}
	usageErr := func(format string, args ...any) int {
		return fail(stderr, "fit", fmt.Errorf(format+`; run "vrvm fit -h" for usage`, args...), 2)
	}
	switch {
	case fs.NArg() != 1:
		return usageErr("want one CSV file, got %d arguments", fs.NArg())
	case *target == "":
		return usageErr("-target is required")
	case *out == "":
		return usageErr("-o is required")
	case *task != "regression" && *task != "classification":
		return usageErr("-task %q: want regression or classification", *task)
	case *labels != "" && *task != "classification":
		return usageErr("-labels applies to classification only")
	case *maxIter < 0:
		return usageErr("-max-iter %d is negative", *maxIter)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var k vrvm.Kernel
	switch *kernel {
	case "gaussian":
		k = vrvm.Gaussian{Width: *width}
	case "polynomial":
		k = vrvm.Polynomial{Degree: *degree, Scale: *scale}
	case "linear":
		k = vrvm.Linear{}
	default:
		return usageErr("-kernel %q: want gaussian, polynomial or linear", *kernel)
	}
	for name, kern := range map[string]string{"width": "gaussian", "degree": "polynomial", "scale": "polynomial"} {
		if set[name] && *kernel != kern {
			return usageErr("-%s applies to the %s kernel only", name, kern)
		}
	}
	var classNames []string
	if *labels != "" {
		classNames = strings.Split(*labels, ",")
		if len(classNames) != 2 || classNames[0] == "" || classNames[1] == "" || classNames[0] == classNames[1] {
			return usageErr("-labels %q: want two different names NEG,POS", *labels)
		}
	}
	var inputNames []string
	if *inputs != "" {
		inputNames = strings.Split(*inputs, ",")
	}

	// Data.
	path := fs.Arg(0)
	var opt datasets.CSVOptions
	if classNames != nil {
		opt.Labels = map[string]map[string]float64{*target: {classNames[0]: 0, classNames[1]: 1}}
	}
	tab, err := readTable(path, opt)
	if err != nil {
		return fail(stderr, "fit", err, 1)
	}
	data, err := tab.Select(*target, inputNames...)
	if err != nil {
		return fail(stderr, "fit", err, 1)
	}
	body := cliBody{Task: *task, Target: *target, Inputs: data.Columns, Labels: classNames}
	x, t := data.X, data.T
	if *task == "classification" {
		for i, v := range t {
			if v != 0 && v != 1 {
				return fail(stderr, "fit", fmt.Errorf("%s:%d: target %q is %v, not 0 or 1 (use -labels NEG,POS for text labels)", tab.Name(), tab.Line(i), *target, v), 1)
			}
		}
	}
	if *standardize {
		body.Standardized = true
		body.InputMean, body.InputSD = meanSD(x)
		x = standardizeRows(x, body.InputMean, body.InputSD)
		if *task == "regression" {
			m, s := meanSD(mat.NewDense(len(t), 1, append([]float64(nil), t...)))
			body.TargetMean, body.TargetSD = m[0], s[0]
			st := make([]float64, len(t))
			for i, v := range t {
				st[i] = (v - m[0]) / s[0]
			}
			t = st
		}
	}

	// Fit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, d := x.Dims()
	progress := func(string, ...any) {}
	if !*quiet {
		progress = func(format string, args ...any) { fmt.Fprintf(stderr, "vrvm fit: "+format+"\n", args...) }
	}
	what := fmt.Sprintf("%s, %s kernel, %d rows × %d inputs (%s)", *task, *kernel, n, d, strings.Join(data.Columns, ", "))
	start := time.Now()
	last := start
	iter := 0
	monitor := func(p vrvm.Progress) bool {
		iter = p.Iteration
		if now := time.Now(); now.Sub(last) >= time.Second {
			last = now
			progress("iteration %d: lower bound %.6g, %d active basis functions", p.Iteration, p.Bound, p.Active)
		}
		return false
	}
	solver := vrvm.Sequential
	if *paperSchedule {
		solver = vrvm.PaperSchedule
	}
	var buf bytes.Buffer
	if *task == "regression" {
		r := &vrvm.Regressor{Kernel: k, NoBias: *noBias, Prior: prior, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor, Solver: solver}
		err = r.FitContext(ctx, x, t)
		if err == nil {
			noise := r.NoiseSD()
			if body.Standardized {
				noise *= body.TargetSD
			}
			progress("%s: %v after %d iterations (%.1f s): %d relevance vectors, noise sd %.4g, lower bound %.6g",
				what, r.Status(), r.Iterations(), time.Since(start).Seconds(), len(r.RelevanceVectors()), noise, r.LowerBound())
			err = r.Save(&buf)
		}
	} else {
		c := &vrvm.Classifier{Kernel: k, NoBias: *noBias, Prior: prior, NoPrune: *noPrune, MaxIter: *maxIter, Monitor: monitor, Solver: solver}
		err = c.FitContext(ctx, x, t)
		if err == nil {
			progress("%s: %v after %d iterations (%.1f s): %d relevance vectors, lower bound %.6g",
				what, c.Status(), c.Iterations(), time.Since(start).Seconds(), len(c.RelevanceVectors()), c.LowerBound())
			err = c.Save(&buf)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "vrvm fit: interrupted after %d iterations; no model written\n", iter)
			return 130
		}
		var le *vrvm.LabelError
		if errors.As(err, &le) {
			err = fmt.Errorf("%s:%d: %w", tab.Name(), tab.Line(le.Row), err)
		}
		return fail(stderr, "fit", err, 1)
	}
	body.Model = buf.Bytes()
	if err := writeCLIModel(*out, &body); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	progress("model written to %s", *out)
	return 0
}

// readTable reads a CSV file, or standard input for "-".
func readTable(path string, opt datasets.CSVOptions) (*datasets.Table, error) {
	if path == "-" {
		return datasets.ReadCSVOptions(os.Stdin, "<stdin>", opt)
	}
	return datasets.ReadCSVFile(path, opt)
}

// csvHeader returns the column names of a CSV file's first line.
func csvHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	h, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the header line: %w", path, err)
	}
	for i := range h {
		h[i] = strings.TrimSpace(strings.TrimPrefix(h[i], "\uFEFF"))
	}
	return h, nil
}

// meanSD returns the mean and population standard deviation of each
// column of x; a constant column gets standard deviation 1.
func meanSD(x mat.Matrix) (mean, sd []float64) {
	n, d := x.Dims()
	mean, sd = make([]float64, d), make([]float64, d)
	for j := range d {
		for i := range n {
			mean[j] += x.At(i, j)
		}
		mean[j] /= float64(n)
		for i := range n {
			v := x.At(i, j) - mean[j]
			sd[j] += v * v
		}
		sd[j] = math.Sqrt(sd[j] / float64(n))
		if sd[j] == 0 {
			sd[j] = 1
		}
	}
	return mean, sd
}

func standardizeRows(x mat.Matrix, mean, sd []float64) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			out.Set(i, j, (x.At(i, j)-mean[j])/sd[j])
		}
	}
	return out
}

// writeCLIModel writes the model file atomically.
func writeCLIModel(path string, b *cliBody) error {
	body, err := json.Marshal(b)
	if err != nil {
		return err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return err
	}
	sum := sha256.Sum256(compact.Bytes())
	data, err := json.MarshalIndent(cliModel{Format: cliModelFormat, Version: cliModelVersion, Body: compact.Bytes(), SHA256: hex.EncodeToString(sum[:])}, "", " ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vrvm-model-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// modelError is the error of a model file that cannot be used.
type modelError struct {
	path, reason string
}

func (e *modelError) Error() string { return e.path + ": bad model file: " + e.reason }

// loadedModel is a model file read back by vrvm predict.
type loadedModel struct {
	body cliBody
	reg  *vrvm.Regressor
	cls  *vrvm.Classifier
}

// readCLIModel reads and checks a file written by vrvm fit.
func readCLIModel(path string) (*loadedModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return &modelError{path: path, reason: fmt.Sprintf(format, args...)}
	}
	var env cliModel
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, bad("not valid JSON (truncated?): %v", err)
	}
	switch env.Format {
	case cliModelFormat:
	case "vrvm-model":
		return nil, bad(`it is a model file of the vrvm library, without column names; use a model written by "vrvm fit"`)
	default:
		return nil, bad("format %q, want %q (a model written by \"vrvm fit\")", env.Format, cliModelFormat)
	}
	if env.Version != cliModelVersion {
		return nil, bad("version %d is not supported (want %d)", env.Version, cliModelVersion)
	}
	var compact bytes.Buffer
	if len(env.Body) == 0 || json.Compact(&compact, env.Body) != nil {
		return nil, bad("missing body")
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return nil, bad("checksum mismatch: the file was altered or corrupted")
	}
	m := &loadedModel{}
	dec := json.NewDecoder(bytes.NewReader(env.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m.body); err != nil {
		return nil, bad("body: %v", err)
	}
	b := &m.body
	if len(b.Inputs) == 0 {
		return nil, bad("no input columns")
	}
	seen := map[string]bool{b.Target: true}
	for _, c := range b.Inputs {
		if c == "" || seen[c] {
			return nil, bad("input column %q is empty or repeated", c)
		}
		seen[c] = true
	}
	if b.Standardized {
		if len(b.InputMean) != len(b.Inputs) || len(b.InputSD) != len(b.Inputs) {
			return nil, bad("%d input means and %d standard deviations for %d inputs", len(b.InputMean), len(b.InputSD), len(b.Inputs))
		}
		for j := range b.Inputs {
			if !finite(b.InputMean[j]) || !(b.InputSD[j] > 0) || !finite(b.InputSD[j]) {
				return nil, bad("bad standardisation of input %q", b.Inputs[j])
			}
		}
	}
	switch b.Task {
	case "regression":
		if b.Labels != nil {
			return nil, bad("class labels in a regression model")
		}
		if b.Standardized && (!finite(b.TargetMean) || !(b.TargetSD > 0) || !finite(b.TargetSD)) {
			return nil, bad("bad standardisation of the target")
		}
		m.reg, err = loadAs[*vrvm.Regressor](b.Model, "regression")
	case "classification":
		if b.Labels != nil && (len(b.Labels) != 2 || b.Labels[0] == b.Labels[1]) {
			return nil, bad("class labels %q: want two different names", b.Labels)
		}
		m.cls, err = loadAs[*vrvm.Classifier](b.Model, "classification")
	default:
		return nil, bad("task %q, want regression or classification", b.Task)
	}
	if err != nil {
		return nil, &modelError{path: path, reason: strings.TrimPrefix(err.Error(), "vrvm: bad model file: ")}
	}
	// The library's model must take as many inputs as there are columns.
	probe := mat.NewDense(1, len(b.Inputs), nil)
	if m.reg != nil {
		_, _, err = m.reg.Predict(probe)
	} else {
		_, err = m.cls.ProbPlugin(probe)
	}
	var de *vrvm.DimensionError
	if errors.As(err, &de) {
		return nil, bad("the model takes %d inputs but names %d columns", de.Want, len(b.Inputs))
	}
	return m, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// parseFlags parses the flags of a subcommand. Help goes to stdout with
// status 0; a bad flag is one line on stderr with status 2. ok is false
// when the command should return code.
func parseFlags(fs *flag.FlagSet, name, usage string, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0, false
	}
	fmt.Fprintf(stderr, "vrvm %s: %v; run \"vrvm %s -h\" for usage\n", name, err, name)
	return 2, false
}

// fail prints one line "vrvm NAME: err" and returns code.
func fail(stderr io.Writer, name string, err error, code int) int {
	msg := strings.TrimPrefix(err.Error(), "vrvm: ")
	fmt.Fprintf(stderr, "vrvm %s: %s\n", name, strings.ReplaceAll(msg, "\n", " "))
	return code
}

// loadAs loads a library model file that must hold an estimator of type
// T, a model for task want.
func loadAs[T vrvm.Estimator](data []byte, want string) (T, error) {
	var zero T
	m, err := vrvm.Load(bytes.NewReader(data))
	if err != nil {
		return zero, err
	}
	t, ok := m.(T)
	if !ok {
		return zero, fmt.Errorf("file holds a %s model, not %s", m.Task(), want)
	}
	return t, nil
}
