package statsbeam

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

// Config is a fit on Beam: the data, the model and the working files.
type Config struct {
	Input  string   // glob of the CSV files (of Parquet files if it ends in .parquet)
	Target string   // target column
	Inputs []string // input columns; nil means every other column
	// Classify fits binary classification (labels 0 and 1).
	Classify bool
	// Centres is the number of kernel functions; 0 means 1000.
	Centres int
	Seed    uint64
	// Width of the Gaussian kernel in standardised units; 0 means the
	// width vrvm fit chooses on the sample of centres (DefaultWidth).
	Width float64
	// MaxPasses bounds classification's statistics passes (0: 50).
	MaxPasses int
	// Work is the directory (any Beam filesystem) of the pipelines'
	// outputs: first.bin, stats.bin, pass-K.post and pass-K.bin.
	Work string
	// Block is the number of rows per block of the dense products on
	// each worker; 0 means 2048.
	Block int
	// Log, if not nil, receives a line per pipeline run.
	Log io.Writer
}

// Meta is the metadata of the vrvm command's model files (cmd/vrvm's
// cliMeta, version 3), so that vrvm predict reads the model.
type Meta struct {
	Version      int       `json:"version,omitempty"`
	Task         string    `json:"task"`
	Target       string    `json:"target"`
	Inputs       []string  `json:"inputs"`
	Missing      string    `json:"missing,omitempty"`
	Standardized bool      `json:"standardized"`
	InputMean    []float64 `json:"input_mean,omitempty"`
	InputSD      []float64 `json:"input_sd,omitempty"`
	TargetMean   float64   `json:"target_mean,omitempty"`
	TargetSD     float64   `json:"target_sd,omitempty"`
}

// Runner runs a pipeline to completion (beamx.Run, or prism.Execute).
type Runner func(context.Context, *beam.Pipeline) error

// Fit runs the pipelines with run and fits the model from their
// statistics: the first pass, then one statistics pass for regression,
// one per pass of vrvm.Classifier.FitPasses for classification.
func Fit(ctx context.Context, c Config, run Runner) (vrvm.Estimator, *Meta, error) {
	header, err := Header(ctx, c.Input)
	if err != nil {
		return nil, nil, err
	}
	cols := c.Inputs
	if cols == nil {
		for _, h := range strings.Split(header, ",") {
			if h = strings.TrimSpace(h); h != c.Target {
				cols = append(cols, h)
			}
		}
	}
	if slices.Contains(cols, c.Target) || len(cols) == 0 {
		return nil, nil, fmt.Errorf("statsbeam: inputs %v and target %q", cols, c.Target)
	}
	columns := append(slices.Clone(cols), c.Target)
	k := c.Centres
	if k == 0 {
		k = 1000
	}
	first := path.Join(c.Work, "first.bin")
	p, err := FirstPipeline(c.Input, header, columns, k, c.Seed, first)
	if err != nil {
		return nil, nil, err
	}
	if err := runLogged(ctx, c, run, p, "first pass"); err != nil {
		return nil, nil, err
	}
	data, err := readAll(ctx, first)
	if err != nil {
		return nil, nil, err
	}
	fa, err := DecodeFirst(data)
	if err != nil {
		return nil, nil, err
	}
	b, sample, ts := NewBasis(fa, len(cols), c.Classify)
	b.Block = c.Block
	if b.Width = c.Width; b.Width == 0 {
		b.Width = DefaultWidth(ctx, sample, ts, c.Classify)
	}
	meta := &Meta{Version: 3, Task: "regression", Target: c.Target, Inputs: cols, Missing: "error", Standardized: true,
		InputMean: b.Mean, InputSD: b.SD, TargetMean: b.TMean, TargetSD: b.TSD}
	if c.Classify {
		meta.Task, meta.TargetMean, meta.TargetSD = "classification", 0, 0
		m, err := fitClassifier(ctx, c, run, header, columns, b)
		return m, meta, err
	}
	stats := path.Join(c.Work, "stats.bin")
	p, err = StatsPipeline(c.Input, header, columns, b, false, stats)
	if err != nil {
		return nil, nil, err
	}
	if err := runLogged(ctx, c, run, p, "statistics pass"); err != nil {
		return nil, nil, err
	}
	st := new(vrvm.Stats)
	if data, err = readAll(ctx, stats); err != nil {
		return nil, nil, err
	}
	if err := st.UnmarshalBinary(data); err != nil {
		return nil, nil, err
	}
	r := &vrvm.Regressor{}
	if err := r.FitStatsContext(ctx, b.Library(), st); err != nil {
		return nil, nil, err
	}
	return r, meta, nil
}

// fitClassifier runs one statistics pipeline per pass.
func fitClassifier(ctx context.Context, c Config, run Runner, header string, columns []string, b Basis) (vrvm.Estimator, error) {
	cl := &vrvm.Classifier{}
	err := cl.FitPasses(ctx, b.Library(), vrvm.PassOptions{MaxPasses: c.MaxPasses}, func(ctx context.Context, st *vrvm.ClassStats) error {
		post, err := st.MarshalBinary()
		if err != nil {
			return err
		}
		bb := b
		bb.PosteriorURL = path.Join(c.Work, fmt.Sprintf("pass-%d.post", st.Pass()))
		if err := writeAll(ctx, bb.PosteriorURL, post); err != nil {
			return err
		}
		out := path.Join(c.Work, fmt.Sprintf("pass-%d.bin", st.Pass()))
		p, err := StatsPipeline(c.Input, header, columns, bb, true, out)
		if err != nil {
			return err
		}
		if err := runLogged(ctx, c, run, p, fmt.Sprintf("classification pass %d", st.Pass())); err != nil {
			return err
		}
		data, err := readAll(ctx, out)
		if err != nil {
			return err
		}
		var got vrvm.ClassStats
		if err := got.UnmarshalBinary(data); err != nil {
			return err
		}
		return st.Merge(&got)
	})
	if err != nil {
		return nil, err
	}
	return cl, nil
}

func runLogged(ctx context.Context, c Config, run Runner, p *beam.Pipeline, what string) error {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "vrvm-beam: running the %s\n", what)
	}
	if err := run(ctx, p); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Header returns the header line of the first file of glob (for Parquet
// files, its columns joined by commas).
func Header(ctx context.Context, glob string) (string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return "", err
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("statsbeam: no file matches %s", glob)
	}
	slices.Sort(files)
	if IsParquet(glob) {
		return parquetHeader(ctx, files[0])
	}
	r, err := fs.OpenRead(ctx, files[0])
	if err != nil {
		return "", err
	}
	defer r.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("statsbeam: %s: no header line: %v", files[0], err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// NewBasis returns the basis of the first pass's result for d inputs
// (population standard deviations, 1 for a constant column), with its
// sample standardised and the sample's targets (standardised for
// regression).
func NewBasis(fa *FirstAcc, d int, classify bool) (Basis, *mat.Dense, []float64) {
	b := Basis{D: d, Mean: fa.Mean[:d], SD: make([]float64, d), TSD: 1}
	for j := range d {
		if b.SD[j] = math.Sqrt(fa.M2[j] / float64(fa.N)); !(b.SD[j] > 0) {
			b.SD[j] = 1
		}
	}
	if !classify {
		b.TMean = fa.Mean[d]
		if b.TSD = math.Sqrt(fa.M2[d] / float64(fa.N)); !(b.TSD > 0) {
			b.TSD = 1
		}
	}
	k := len(fa.Rows) / (d + 1)
	x := mat.NewDense(k, d, nil)
	t := make([]float64, k)
	for i := range k {
		r := fa.Rows[i*(d+1) : (i+1)*(d+1)]
		for j := range d {
			x.Set(i, j, (r[j]-b.Mean[j])/b.SD[j])
		}
		t[i] = (r[d] - b.TMean) / b.TSD
	}
	b.Centres = x.RawMatrix().Data
	return b, x, t
}

// DefaultWidth is the Gaussian width vrvm fit chooses on at most 1,000
// rows of the sample (regression: the dense model's evidence;
// classification: learned by the bound), or their median distance if
// that fit fails.
func DefaultWidth(ctx context.Context, x *mat.Dense, t []float64, classify bool) float64 {
	n, d := x.Dims()
	if n > 1000 {
		x, t, n = x.Slice(0, 1000, 0, d).(*mat.Dense), t[:1000], 1000
	}
	var est interface {
		FitContext(context.Context, mat.Matrix, []float64) error
		FittedKernel() vrvm.Kernel
	}
	if classify {
		est = &vrvm.Classifier{Centres: n}
	} else {
		est = &vrvm.Regressor{Centres: n}
	}
	if err := est.FitContext(ctx, x, t); err == nil {
		if g, ok := est.FittedKernel().(vrvm.Gaussian); ok && g.Width > 0 {
			return g.Width
		}
	}
	if w := vrvm.MedianDistance(x); w > 0 {
		return w
	}
	return 1
}
