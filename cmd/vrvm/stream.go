package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

const streamUsage = `Usage: vrvm fit -stream -target NAME -o model.json [flags] FILE|DIR...

Fit -stream fits the variational RVM to CSV or Parquet files of any size
in memory that does not grow with the number of rows: the files (and the
*.csv and *.parquet files of each directory, in name order) are one data
set, read row by row (CSV by the rules of vrvm fit, a header naming the
columns; Parquet by row groups, numeric or text columns by name), the
same columns in every file, no missing cells. A first pass gathers the inputs' and the
target's means and standard deviations (the inputs, and a regression
target, are standardised) and a seeded uniform sample of -centres rows,
the centres of the Gaussian kernel functions; the default width is the
one vrvm fit chooses on that sample. A second pass accumulates the
sufficient statistics ΦᵀΦ, Φᵀt of the basis by blocks of rows, from which
the regression is fitted (vrvm.Regressor.FitStats). Binary classification
(-task classification, labels 0/1 or -labels NEG,POS) reads the rows once
per update of its variational parameters, each pass followed by a fit at
fixed parameters, until the bound converges (vrvm.Classifier.FitPasses).
Each pass reports its rate on standard error. The model file is the one
vrvm fit writes: vrvm predict reads it. See docs/streaming.md.

Flags:
`

// streamArg reports whether args ask for vrvm fit -stream.
func streamArg(args []string) bool {
	for _, a := range args {
		switch a {
		case "-stream", "--stream", "-stream=true", "--stream=true":
			return true
		case "--":
			return false
		}
	}
	return false
}

// streamOptions are the flags of vrvm fit -stream.
type streamOptions struct {
	target, inputs, task, labels, width, out string
	centres, maxIter, maxPasses, block       int
	seed                                     uint64
	quiet, noBias                            bool
	prior                                    vrvm.Prior
}

func streamFitCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var o streamOptions
	fs.Bool("stream", true, "stream the files (this mode)")
	fs.StringVar(&o.target, "target", "", "`name` of the target column (required)")
	fs.StringVar(&o.inputs, "inputs", "", "comma-separated input column `names` (default: all columns but the target and an index column)")
	fs.StringVar(&o.task, "task", "regression", "`task`: regression or classification (binary)")
	fs.StringVar(&o.labels, "labels", "", "classification: the class `names` NEG,POS of a text target column")
	fs.StringVar(&o.width, "width", "", "`width` of the Gaussian kernel, in standardised input units (default: vrvm fit's choice on the sample of centres)")
	fs.IntVar(&o.centres, "centres", 1000, "number of kernel functions, centred at rows sampled uniformly (at most the number of rows)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the sample of centres")
	fs.IntVar(&o.maxIter, "max-iter", 0, "iteration limit of each fit from the statistics (0: the library's, 10000)")
	fs.IntVar(&o.maxPasses, "max-passes", 0, "classification: limit on the passes over the rows (0: 50)")
	fs.IntVar(&o.block, "block", 2048, "rows per block of the statistics' dense products")
	fs.BoolVar(&o.noBias, "no-bias", false, "no bias basis function")
	fs.Float64Var(&o.prior.A, "prior-a", 0, "shape a of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&o.prior.B, "prior-b", 0, "rate b of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&o.prior.C, "prior-c", 0, "regression: shape c of the Gamma prior of the noise precision (0: 1e-6)")
	fs.Float64Var(&o.prior.D, "prior-d", 0, "regression: rate d of the Gamma prior of the noise precision (0: 1e-6)")
	fs.StringVar(&o.out, "o", "", "`file` to write the model to, \"-\" for standard output (required)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress or summary on standard error")
	if code, ok := parseFlags(fs, "fit", streamUsage, args, stdout, stderr); !ok {
		return code
	}
	usageErr := usageError(stderr, "fit")
	switch {
	case o.target == "":
		return usageErr("-target is required")
	case o.out == "":
		return usageErr("-o is required")
	case o.task != "regression" && o.task != "classification":
		return usageErr("-task %q: want regression or classification", o.task)
	case o.labels != "" && o.task != "classification":
		return usageErr("-labels applies to classification only")
	case o.centres < 1:
		return usageErr("-centres %d: want at least 1", o.centres)
	case o.block < 1 || o.maxIter < 0 || o.maxPasses < 0:
		return usageErr("-block, -max-iter and -max-passes must not be negative (-block at least 1)")
	case fs.NArg() == 0:
		return usageErr("want one or more CSV files or directories")
	}
	files, err := streamFiles(fs.Args())
	if err != nil {
		return fail(stderr, "fit", err, 1)
	}
	if err := checkNotInput(o.out, files...); err != nil {
		return fail(stderr, "fit", err, 2)
	}
	if err := checkOutput(o.out); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	ctx, stop := onInterrupt("fit", stderr)
	defer stop()
	start := time.Now()
	buf, err := streamFit(ctx, &o, files, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "vrvm fit: interrupted (%.1f s); no model written\n", time.Since(start).Seconds())
			return interruptStatus(ctx)
		}
		return fail(stderr, "fit", err, 1)
	}
	if err := writeOutput(o.out, stdout, func(w io.Writer) error { _, err := w.Write(buf); return err }); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	if !o.quiet && o.out != "-" {
		fmt.Fprintf(stderr, "vrvm fit: model written to %s\n", o.out)
	}
	return 0
}

// streamFiles lists the files of args: each file, and the *.csv and
// *.parquet files of each directory in name order.
func streamFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.csv"))
		if err != nil {
			return nil, err
		}
		mp, err := filepath.Glob(filepath.Join(a, "*.parquet"))
		if err != nil {
			return nil, err
		}
		m = append(m, mp...)
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: a directory without *.csv or *.parquet files", a)
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	return files, nil
}

// streamSource is the files of vrvm fit -stream, read as one data set.
type streamSource struct {
	files   []string
	columns []string // the inputs, then the target
	labels  map[string]map[string]float64
	header  []string // the first file's
	binary  bool     // the target must be 0 or 1
	// The standardisation of the inputs and of a regression target.
	mean, sd []float64
	tMean    float64
	tSD      float64
}

// each calls fn with blocks of at most block rows, inputs standardised
// (once mean and sd are set) and targets, checking ctx between blocks.
func (s *streamSource) each(ctx context.Context, block int, fn func(x *mat.Dense, t []float64) error) error {
	d := len(s.columns) - 1
	row := make([]float64, d+1)
	x := mat.NewDense(block, d, nil)
	t := make([]float64, block)
	k := 0
	flush := func() error {
		if k == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := fn(x.Slice(0, k, 0, d).(*mat.Dense), t[:k])
		k = 0
		return err
	}
	add := func(r []float64) error {
		dst := x.RawRowView(k)
		for j := range d {
			dst[j] = r[j]
			if s.sd != nil {
				dst[j] = (r[j] - s.mean[j]) / s.sd[j]
			}
		}
		t[k] = (r[d] - s.tMean) / s.tSD
		if k++; k == block {
			return flush()
		}
		return nil
	}
	for _, name := range s.files {
		if isParquet(name) {
			if err := s.readParquet(name, row, add); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = s.readFile(f, name, row, add)
		f.Close()
		if err != nil {
			return err
		}
	}
	return flush()
}

// readFile reads one file's rows, checking its header against the
// first file's.
func (s *streamSource) readFile(f io.Reader, name string, row []float64, fn func([]float64) error) error {
	header := s.header
	if isParquet(s.files[0]) {
		header = nil // the columns in any order, as a Parquet shard's
	}
	rr, err := datasets.NewRowReader(f, name, datasets.RowOptions{Columns: s.columns, Labels: s.labels, Header: header})
	if errors.Is(err, datasets.ErrHeader) && name != s.files[0] {
		return fmt.Errorf("%w (the files of a data set need the columns of the first, %s)", err, s.files[0])
	}
	if err != nil {
		return err
	}
	if header == nil && !sameColumns(s.header, rr.Columns()) {
		return fmt.Errorf("%s:1: columns %s, want %s (the files of a data set need the columns of the first, %s)", name, strings.Join(rr.Columns(), ","), strings.Join(s.header, ","), s.files[0])
	}
	for {
		err := rr.Next(row)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.checkRow(row, func() string { return fmt.Sprintf("%s:%d", name, rr.Line()) }); err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// checkRow checks a row read (the inputs, then the target): no missing
// value, a binary target 0 or 1; where names the row in an error.
func (s *streamSource) checkRow(row []float64, where func() string) error {
	for j, v := range row {
		if math.IsNaN(v) {
			return fmt.Errorf("%s: column %q: missing value (vrvm fit -stream needs every cell of the inputs and the target)", where(), s.columns[j])
		}
	}
	if t := row[len(row)-1]; s.binary && t != 0 && t != 1 {
		return fmt.Errorf("%s: target %q is %v, not 0 or 1 (use -labels NEG,POS for text labels; vrvm fit -stream fits binary models only)", where(), s.columns[len(row)-1], t)
	}
	return nil
}

// newStreamSource reads the first file's header and chooses the columns.
func newStreamSource(o *streamOptions, files []string) (*streamSource, error) {
	header, err := fileColumns(files[0])
	if err != nil {
		return nil, err
	}
	s := &streamSource{files: files, header: header, tSD: 1, binary: o.task == "classification"}
	inputs, err := nameList("-inputs", o.inputs)
	if err != nil {
		return nil, err
	}
	if inputs == nil {
		for i, c := range s.header {
			if c != o.target && !(i == 0 && c == indexColumn) {
				inputs = append(inputs, c)
			}
		}
	}
	if slices.Contains(inputs, o.target) {
		return nil, fmt.Errorf("column %q is both the target and an input", o.target)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: the target %q is the only column, none is left for the inputs", files[0], o.target)
	}
	s.columns = append(inputs, o.target)
	if o.labels != "" {
		names := strings.Split(o.labels, ",")
		if len(names) != 2 || names[0] == "" || names[1] == "" || names[0] == names[1] {
			return nil, fmt.Errorf("-labels %q: want two different names NEG,POS", o.labels)
		}
		s.labels = map[string]map[string]float64{o.target: {names[0]: 0, names[1]: 1}}
	}
	return s, nil
}

// fileColumns returns the column names of a CSV file's header or of a
// Parquet file's schema.
func fileColumns(name string) ([]string, error) {
	if isParquet(name) {
		p, err := openParquet(name)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		return p.Columns(), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rr, err := datasets.NewRowReader(f, name, datasets.RowOptions{})
	if err != nil {
		return nil, err
	}
	return rr.Columns(), nil
}

// firstPass reads every row once: the means and standard deviations
// (Welford's update) and a uniform sample of c rows (reservoir sampling,
// Vitter's algorithm R) with a seeded generator.
func (s *streamSource) firstPass(ctx context.Context, c int, seed uint64, prog *progress) (sample *mat.Dense, ts []float64, n int, err error) {
	d := len(s.columns) - 1
	mean, m2 := make([]float64, d+1), make([]float64, d+1)
	res := make([]float64, 0, c*d)
	rt := make([]float64, 0, c)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	err = s.each(ctx, 4096, func(x *mat.Dense, t []float64) error {
		r, _ := x.Dims()
		for i := range r {
			n++
			row := x.RawRowView(i)
			for j := range d + 1 {
				v := t[i]
				if j < d {
					v = row[j]
				}
				delta := v - mean[j]
				mean[j] += delta / float64(n)
				m2[j] += delta * (v - mean[j])
			}
			switch {
			case len(rt) < c:
				res = append(res, row...)
				rt = append(rt, t[i])
			default:
				if k := rng.IntN(n); k < c {
					copy(res[k*d:(k+1)*d], row)
					rt[k] = t[i]
				}
			}
		}
		prog.add(r)
		return nil
	})
	if err != nil {
		return nil, nil, n, err
	}
	s.mean, s.sd = mean[:d], make([]float64, d)
	for j := range d {
		s.sd[j] = math.Sqrt(m2[j] / float64(n))
		if !(s.sd[j] > 0) {
			s.sd[j] = 1 // a constant input, as datasets.NewScaling
		}
	}
	if !s.binary {
		s.tMean, s.tSD = mean[d], math.Sqrt(m2[d]/float64(n))
	}
	sample = mat.NewDense(len(rt), d, res)
	standardizeInPlace(sample, s.mean, s.sd)
	return sample, rt, n, nil
}

// progress prints the rate of a pass on standard error, at most once a
// second, and at its end.
type progress struct {
	w     io.Writer
	what  string
	start time.Time
	last  time.Time
	rows  int
}

func newProgress(w io.Writer, what string) *progress {
	now := time.Now()
	return &progress{w: w, what: what, start: now, last: now}
}

func (p *progress) add(n int) {
	p.rows += n
	if now := time.Now(); p.w != nil && now.Sub(p.last) >= time.Second {
		p.last = now
		fmt.Fprintf(p.w, "vrvm fit: %s: %d rows, %.0f rows/s\n", p.what, p.rows, float64(p.rows)/now.Sub(p.start).Seconds())
	}
}

func (p *progress) done() {
	if p.w != nil {
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.w, "vrvm fit: %s: %d rows in %.1f s, %.0f rows/s\n", p.what, p.rows, el, float64(p.rows)/el)
	}
}

// errWriter is w, or nil with -quiet.
func errWriter(o *streamOptions, w io.Writer) io.Writer {
	if o.quiet {
		return nil
	}
	return w
}

// streamFit runs the passes and returns the model file.
func streamFit(ctx context.Context, o *streamOptions, files []string, stderr io.Writer) ([]byte, error) {
	s, err := newStreamSource(o, files)
	if err != nil {
		return nil, err
	}
	ew := errWriter(o, stderr)
	say := func(format string, args ...any) {
		if ew != nil {
			fmt.Fprintf(ew, "vrvm fit: "+format+"\n", args...)
		}
	}
	prog := newProgress(ew, "pass 1 (scaling, sample of centres)")
	sample, ts, n, err := s.firstPass(ctx, o.centres, o.seed, prog)
	if err != nil {
		return nil, err
	}
	prog.done()
	cls := s.binary
	if !cls {
		if err := targetScaleError(o.target, s.tSD); err != nil {
			return nil, err
		}
		if !(s.tSD > 0) {
			return nil, vrvm.ErrConstantTargets
		}
		for i := range ts {
			ts[i] = (ts[i] - s.tMean) / s.tSD
		}
	}
	kernel, err := streamKernel(ctx, o, sample, ts, cls)
	if err != nil {
		return nil, err
	}
	b := vrvm.Basis{Kernel: kernel, Centres: sample, NoBias: o.noBias}
	c, _ := sample.Dims()
	say("%s, %d rows × %d inputs (%s) in %d files; basis of %d Gaussian functions, %v (standardised units)", o.task, n, len(s.columns)-1, shortList(s.columns[:len(s.columns)-1]), len(files), c, kernel)
	meta := cliMeta{Version: cliMetaVersion, Task: o.task, Target: o.target, Inputs: s.columns[:len(s.columns)-1], Missing: missingError,
		Standardized: true, InputMean: s.mean, InputSD: s.sd}
	if o.labels != "" {
		meta.Labels = strings.Split(o.labels, ",")
	}
	var m vrvm.Estimator
	if cls {
		m, err = streamClassify(ctx, o, s, b, ew)
	} else {
		meta.TargetMean, meta.TargetSD = s.tMean, s.tSD
		m, err = streamRegress(ctx, o, s, b, ew)
	}
	if err != nil {
		return nil, err
	}
	what := "iterations"
	if cls {
		what = "statistics passes (and the first pass)"
	}
	say("%v after %d %s; %d relevance vectors; lower bound %.6g", m.Status(), m.Iterations(), what, len(m.RelevanceVectors()), m.LowerBound())
	var buf bytes.Buffer
	if err := vrvm.SaveMeta(&buf, m, &meta); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// streamKernel returns the Gaussian kernel of -width, or the width vrvm
// fit chooses on the sample (regression: the dense model's evidence;
// classification: learned by the bound), the inputs' median distance if
// that fit fails (one class in the sample, constant targets).
func streamKernel(ctx context.Context, o *streamOptions, x *mat.Dense, t []float64, cls bool) (vrvm.Kernel, error) {
	if o.width != "" {
		var w float64
		if _, err := fmt.Sscan(o.width, &w); err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("-width %q: want a positive number", o.width)
		}
		return vrvm.Gaussian{Width: w}, nil
	}
	const maxRows = 1000 // the fit on the sample takes seconds
	n, d := x.Dims()
	if n > maxRows {
		x, t, n = x.Slice(0, maxRows, 0, d).(*mat.Dense), t[:maxRows], maxRows
	}
	var est interface {
		FitContext(context.Context, mat.Matrix, []float64) error
		FittedKernel() vrvm.Kernel
	}
	if cls {
		est = &vrvm.Classifier{Centres: n}
	} else {
		est = &vrvm.Regressor{Centres: n}
	}
	if err := est.FitContext(ctx, x, t); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		if w := vrvm.MedianDistance(x); w > 0 {
			return vrvm.Gaussian{Width: w}, nil
		}
		return vrvm.Gaussian{Width: 1}, nil
	}
	if g, ok := est.FittedKernel().(vrvm.Gaussian); ok && g.Width > 0 {
		return g, nil
	}
	return vrvm.Gaussian{Width: 1}, nil
}

// streamRegress accumulates the statistics in one pass and fits them.
func streamRegress(ctx context.Context, o *streamOptions, s *streamSource, b vrvm.Basis, ew io.Writer) (vrvm.Estimator, error) {
	st := vrvm.NewStats(b.Dim())
	if err := statsPass(ctx, o, s, b, newProgress(ew, "pass 2 (statistics)"), st.AddRows); err != nil {
		return nil, err
	}
	r := &vrvm.Regressor{Prior: o.prior, MaxIter: o.maxIter}
	last := time.Now()
	r.Monitor = func(p vrvm.Progress) bool {
		if now := time.Now(); ew != nil && now.Sub(last) >= time.Second {
			last = now
			fmt.Fprintf(ew, "vrvm fit: iteration %d: lower bound %.6g, %d active basis functions\n", p.Iteration, p.Bound, p.Active)
		}
		return false
	}
	if err := r.FitStatsContext(ctx, b, st); err != nil {
		return nil, err
	}
	return r, nil
}

// statsPass reads s once by blocks, adds each block's design rows and
// targets to a statistics accumulator through add, and reports progress.
func statsPass(ctx context.Context, o *streamOptions, s *streamSource, b vrvm.Basis, prog *progress, add func(mat.Matrix, []float64) error) error {
	err := s.each(ctx, o.block, func(x *mat.Dense, t []float64) error {
		phi, err := b.Design(x)
		if err != nil {
			return err
		}
		if err := add(phi, t); err != nil {
			return err
		}
		prog.add(len(t))
		return nil
	})
	if err == nil {
		prog.done()
	}
	return err
}

// streamClassify alternates passes and fits (vrvm.Classifier.FitPasses).
func streamClassify(ctx context.Context, o *streamOptions, s *streamSource, b vrvm.Basis, ew io.Writer) (vrvm.Estimator, error) {
	c := &vrvm.Classifier{Prior: o.prior, MaxIter: o.maxIter}
	opts := vrvm.PassOptions{MaxPasses: o.maxPasses, Progress: func(p vrvm.PassProgress) bool {
		if ew != nil && p.Pass > 1 {
			fmt.Fprintf(ew, "vrvm fit: fit %d: lower bound %.8g (change %.2g), %d active functions\n", p.Pass-1, p.Bound, p.Change, p.Active)
		}
		return false
	}}
	err := c.FitPasses(ctx, b, opts, func(ctx context.Context, st *vrvm.ClassStats) error {
		return statsPass(ctx, o, s, b, newProgress(ew, fmt.Sprintf("pass %d (statistics, ξ)", st.Pass()+1)), st.AddRows)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
