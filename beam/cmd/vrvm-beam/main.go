// Command vrvm-beam fits the variational RVM to CSV or Parquet files on a
// cluster's storage with Apache Beam: a first pipeline for the scaling and the
// sample of centres, then one for the sufficient statistics (regression)
// or one per pass (binary classification), fitted on the driver; it
// writes the vrvm command's model file, which vrvm predict reads.
//
//	vrvm-beam -input 'gs://bucket/data/*.csv' -target y -centres 1000 \
//	    -work gs://bucket/tmp -o model.json --runner=dataflow ...
//
// The runner and its options are Beam's flags (--runner prism, flink,
// spark, dataflow; --endpoint for a job server): see docs/streaming.md.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/vrvm/vrvm/beam/statsbeam"
	"github.com/vrvm/vrvm/vrvm"
)

func main() {
	var c statsbeam.Config
	flag.StringVar(&c.Input, "input", "", "glob of the CSV files, or of Parquet files if it ends in .parquet (required)")
	flag.StringVar(&c.Target, "target", "", "target column (required)")
	inputs := flag.String("inputs", "", "comma-separated input columns (default: all others)")
	task := flag.String("task", "regression", "regression or classification (binary, labels 0/1)")
	flag.IntVar(&c.Centres, "centres", 1000, "number of kernel functions")
	flag.Uint64Var(&c.Seed, "seed", 1, "seed of the sample of centres")
	flag.Float64Var(&c.Width, "width", 0, "Gaussian width in standardised units (0: chosen on the sample)")
	flag.IntVar(&c.MaxPasses, "max-passes", 0, "classification: limit on the statistics passes (0: 50)")
	flag.StringVar(&c.Work, "work", "", "directory for the pipelines' outputs (required; any Beam filesystem)")
	out := flag.String("o", "", "model file to write (required)")
	flag.Parse()
	beam.Init()
	if c.Input == "" || c.Target == "" || c.Work == "" || *out == "" || (*task != "regression" && *task != "classification") {
		fmt.Fprintln(os.Stderr, "vrvm-beam: -input, -target, -work and -o are required; -task is regression or classification")
		os.Exit(2)
	}
	if *inputs != "" {
		c.Inputs = strings.Split(*inputs, ",")
	}
	c.Classify = *task == "classification"
	c.Log = os.Stderr
	ctx := context.Background()
	m, meta, err := statsbeam.Fit(ctx, c, beamx.Run)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vrvm-beam:", err)
		os.Exit(1)
	}
	var buf bytes.Buffer
	if err := vrvm.SaveMeta(&buf, m, meta); err != nil {
		fmt.Fprintln(os.Stderr, "vrvm-beam:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "vrvm-beam:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "vrvm-beam: %v after %d iterations or passes, %d relevance vectors; model written to %s\n",
		m.Status(), m.Iterations(), len(m.RelevanceVectors()), *out)
}
