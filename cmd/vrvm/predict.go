package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register(&command{
		name:  "predict",
		short: "predict a CSV file with a model written by vrvm fit",
		run:   predictCommand,
	})
}

const predictUsage = `Usage: vrvm predict -model model.json [-o out.csv] data.csv

Predict applies a model written by "vrvm fit" to the CSV file data.csv
("-" for standard input) and writes one CSV line per data row, in order,
to the file named by -o or to standard output.

The input columns are matched by name with those used at fit time, which
the model file records (see "vrvm fit -h"); their order in data.csv does
not matter and other columns are ignored. Every cell must be a decimal
number, except that the target column may hold the model's class labels.

Output columns:
  regression      mean, variance: the predictive mean and variance
                  1/⟨τ⟩ + φᵀΣφ (37)–(38), in the units of the target
  classification  p_plugin, p_moderated, label: P(t = 1 | x) with the
                  posterior mean weights (65) and MacKay's moderated
                  probability; the most probable label (its name if the
                  model was fitted with -labels)

Exit status: 0 on success, 1 for a bad model file or bad data, 2 for bad
flags.

Flags:
`

// predictCommand is the "predict" command.
func predictCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model `file` written by vrvm fit (required)")
	out := fs.String("o", "", "output CSV `file` (default: standard output)")
	if code, ok := parseFlags(fs, "predict", predictUsage, args, stdout, stderr); !ok {
		return code
	}
	switch {
	case fs.NArg() != 1:
		return fail(stderr, "predict", fmt.Errorf(`want one CSV file, got %d arguments; run "vrvm predict -h" for usage`, fs.NArg()), 2)
	case *modelPath == "":
		return fail(stderr, "predict", errors.New(`-model is required; run "vrvm predict -h" for usage`), 2)
	}
	m, err := readCLIModel(*modelPath)
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	b := &m.body

	path := fs.Arg(0)
	var opt datasets.CSVOptions
	if b.Labels != nil && path != "-" {
		// The target column, if present, may hold the class names.
		if h, err := csvHeader(path); err == nil && slices.Contains(h, b.Target) {
			opt.Labels = map[string]map[string]float64{b.Target: {b.Labels[0]: 0, b.Labels[1]: 1}}
		}
	}
	tab, err := readTable(path, opt)
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	cols := tab.Columns()
	var x *mat.Dense
	for j, name := range b.Inputs {
		if !slices.Contains(cols, name) {
			return fail(stderr, "predict", fmt.Errorf("%s: no column %q, an input of the model; columns are %s", tab.Name(), name, strings.Join(cols, ", ")), 1)
		}
		v, err := tab.Column(name)
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		if x == nil {
			x = mat.NewDense(len(v), len(b.Inputs), nil)
		}
		x.SetCol(j, v)
	}
	if b.Standardized {
		x = standardizeRows(x, b.InputMean, b.InputSD)
	}

	var header []string
	var columns [][]string
	format := func(v []float64) []string {
		s := make([]string, len(v))
		for i, f := range v {
			s[i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
		return s
	}
	if m.reg != nil {
		mean, variance, err := m.reg.Predict(x)
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		if b.Standardized {
			for i := range mean {
				mean[i] = mean[i]*b.TargetSD + b.TargetMean
				variance[i] *= b.TargetSD * b.TargetSD
			}
		}
		header = []string{"mean", "variance"}
		columns = [][]string{format(mean), format(variance)}
	} else {
		plug, err := m.cls.ProbPlugin(x)
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		mod, err := m.cls.ProbModerated(x)
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		labels, err := m.cls.Predict(x)
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		names := format(labels)
		if b.Labels != nil {
			for i, l := range labels {
				names[i] = b.Labels[int(l)]
			}
		}
		header = []string{"p_plugin", "p_moderated", "label"}
		columns = [][]string{format(plug), format(mod), names}
	}

	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return fail(stderr, "predict", err, 1)
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(header, ","))
	row := make([]string, len(columns))
	for i := range columns[0] {
		for j, c := range columns {
			row[j] = csvField(c[i])
		}
		fmt.Fprintln(bw, strings.Join(row, ","))
	}
	err = bw.Flush()
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	return 0
}

// csvField quotes a field that needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") || strings.TrimSpace(s) != s {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
