package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

func init() {
	register(&command{
		name:  "predict",
		short: "predict a CSV file with a model written by vrvm fit",
		run:   predictCommand,
	})
}

const predictUsage = `Usage: vrvm predict -model model.json [-o out.csv] [-keep NAMES] data.csv

Predict applies a model written by "vrvm fit" to the CSV file data.csv
("-" for standard input) and writes one CSV line per data row, in order,
to the file named by -o or to standard output.

The input columns are matched by name with those used at fit time, which
the model file records (see "vrvm fit -h"); their order in data.csv does
not matter, and no other column is read: the target column may be
absent, empty or anything else, and so may any other column. -keep
copies columns (an identifier, the target, "rownames" for R's row names)
to the output, before the predictions.

Categorical inputs are one-hot encoded over the categories stored in the
model. A category not seen in training is an error naming its line,
column and the known categories; -unseen zero encodes it as all zeros
(no category: the kernel sees the row as equally far from every one).

Missing inputs (empty, NA, NaN) follow the model's rule (vrvm fit
-missing): error stops at the first; drop keeps the row in the output
with empty prediction cells, so rows stay aligned with data.csv; impute
fills the training mean or most frequent category. Counts go to standard
error.

Output columns (after the -keep columns):
  regression      mean, variance: the predictive mean and variance
                  1/⟨τ⟩ + φᵀΣφ (37)–(38), in the units of the target
  classification  p_plugin, p_moderated, label: P(t = 1 | x) with the
                  posterior mean weights (65) and MacKay's moderated
                  probability; the most probable label (its name if the
                  model was fitted with -labels)
  multi-class     p_LABEL for each class LABEL, then label: the
                  predictive probability of each class with the
                  weights' uncertainty (moderated softmax (M17),
                  vrvm.MultiClassifier.Prob; each row sums to 1) and the
                  most probable label


` + outputHelp + `
A prediction longer than a second says so on standard error, and how
far it got every 10 s. Ctrl-C (or SIGTERM) stops it, between blocks of
2,048 rows, and exits without writing; a second one exits at once.
Exit status: 0 on success, 1 for a bad model file, bad data or an
output that cannot be written, 2 for bad flags, 128 + the signal's
number when interrupted (130 for Ctrl-C, 143 for SIGTERM).

Flags:
`

// predictCommand is the "predict" command.
func predictCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model `file` written by vrvm fit (required)")
	out := fs.String("o", "-", "output CSV `file`; \"-\" for standard output")
	keep := fs.String("keep", "", "comma-separated `names` of columns to copy to the output, first")
	unseenFlag := fs.String("unseen", "error", "`rule` for a category not seen in training: error, or zero (an all-zero encoding)")
	usageErr, code, ok := parseFileCommand(fs, "predict", predictUsage, args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case *modelPath == "":
		return usageErr("-model is required")
	case *out == "":
		return usageErr("-o is empty; give a file, or - for standard output")
	case *unseenFlag != "error" && *unseenFlag != "zero":
		return usageErr("-unseen %q: want error or zero", *unseenFlag)
	}
	keepNames, err := nameList("-keep", *keep)
	if err != nil {
		return usageErr("%v", err)
	}
	path := fs.Arg(0)
	if err := checkNotInput(*out, path, *modelPath); err != nil {
		return fail(stderr, "predict", err, 2)
	}
	if err := checkOutput(*out); err != nil {
		return fail(stderr, "predict", err, 1)
	}
	m, err := readCLIModel(*modelPath)
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	b := &m.meta
	ctx, stop := onInterrupt("predict", stderr)
	defer stop()

	tab, err := readTable(path, func(t *table) (readSpec, error) {
		spec := readSpec{}
		for _, c := range b.Inputs {
			if !t.has(c) {
				return nil, t.noColumn(c, ", an input of the model")
			}
			spec[c] = numeric
			if _, ok := b.Categories[c]; ok {
				spec[c] = text
			}
		}
		for _, c := range keepNames {
			if !t.has(c) {
				return nil, t.noColumn(c, " (-keep)")
			}
			if spec[c] == numeric {
				// An input kept: read it as text too, through its own copy.
				continue
			}
			spec[c] = text
		}
		return spec, nil
	})
	hint := " (the model's missing-value rule is error: vrvm fit -missing drop or impute)"
	if err != nil {
		if tab != nil && tab.Len() > 0 {
			// A bad row: a row before it with a missing input or an
			// unseen category is the first error.
			if _, _, _, _, e := encodeRows(b, tab, seq(tab.Len()), *unseenFlag == "zero", hint); e != nil {
				err = e
			}
		}
		return fail(stderr, "predict", err, 1)
	}
	// Kept columns that are numeric inputs are re-read as text.
	keepText := map[string][]string{}
	for _, c := range keepNames {
		if v, ok := tab.text[c]; ok {
			keepText[c] = v
		}
	}
	if len(keepText) < len(keepNames) {
		kt, err := readTable(path, func(t *table) (readSpec, error) {
			spec := readSpec{}
			for _, c := range keepNames {
				if _, ok := keepText[c]; !ok {
					spec[c] = text
				}
			}
			return spec, nil
		})
		if err != nil {
			return fail(stderr, "predict", err, 1)
		}
		for c, v := range kt.text {
			keepText[c] = v
		}
	}

	n := tab.Len()
	x, drop, miss, unseen, err := encodeRows(b, tab, seq(n), *unseenFlag == "zero", hint)
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	switch {
	case b.Missing == missingDrop && miss.rows > 0:
		fmt.Fprintf(stderr, "vrvm predict: %s of %d with a missing input (%s): predictions left empty (the model's rule: -missing drop)\n", plural(miss.rows, "row", "rows"), n, miss.String())
	case b.Missing == missingImpute && len(miss.cells) > 0:
		fmt.Fprintf(stderr, "vrvm predict: filled %s (%s) with the training mean or most frequent category (the model's rule: -missing impute)\n", plural(totalCells(miss), "missing cell", "missing cells"), miss.String())
	}
	if unseen > 0 {
		fmt.Fprintf(stderr, "vrvm predict: %s with a category not seen in training, encoded as all zeros (-unseen zero)\n", plural(unseen, "cell", "cells"))
	}
	if b.Standardized {
		standardizeInPlace(x, b.InputMean, b.InputSD)
	}
	p, err := predictRows(ctx, m, x, drop, tab, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "vrvm predict: interrupted; no output written")
		return interruptStatus(ctx)
	}
	if err != nil {
		return fail(stderr, "predict", err, 1)
	}
	format := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	header := append([]string(nil), keepNames...)
	var cells func(i int) []string
	if p.regression {
		header = append(header, "mean", "variance")
		cells = func(i int) []string { return []string{format(p.mean[i]), format(p.variance[i])} }
	} else if p.probs != nil {
		for _, c := range p.classes {
			header = append(header, "p_"+c)
		}
		header = append(header, "label")
		cells = func(i int) []string {
			row := make([]string, 0, len(p.classes)+1)
			for _, v := range p.probs.RawRowView(i) {
				row = append(row, format(v))
			}
			return append(row, p.decision[i])
		}
	} else {
		header = append(header, "p_plugin", "p_moderated", "label")
		cells = func(i int) []string {
			label := format(p.label[i])
			if b.Labels != nil {
				label = b.Labels[int(p.label[i])]
			}
			return []string{format(p.plugin[i]), format(p.moderated[i]), label}
		}
	}
	empty := make([]string, len(header)-len(keepNames))
	err = writeOutput(*out, stdout, func(w io.Writer) error {
		line := make([]string, len(header))
		for j, h := range header {
			line[j] = csvField(h)
		}
		if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
			return err
		}
		for i := range n {
			if i%4096 == 0 && ctx.Err() != nil {
				return context.Canceled
			}
			line = line[:0]
			for _, c := range keepNames {
				line = append(line, csvField(keepText[c][i]))
			}
			if drop[i] {
				line = append(line, empty...)
			} else {
				for _, s := range cells(i) {
					line = append(line, csvField(s))
				}
			}
			if _, err := fmt.Fprintln(w, strings.Join(line, ",")); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "vrvm predict: interrupted; no output written")
		return interruptStatus(ctx)
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

// predictBlock is the number of rows predictRows predicts between two
// looks at its context: about 0.2 s of the augmented predictions of a
// model of 2,000 training rows on two cores.
const predictBlock = 2048

// predictRows applies the model m to the encoded rows x of tab, predictBlock
// rows at a time, and stops with ctx's error when it is cancelled. The
// regression's mean and variance are returned in the target's units.
// Every prediction of a row not dropped must be finite: the first that
// is not is an error naming its line. A prediction longer than a second
// says so on progress, and then how far it got every 10 s.
func predictRows(ctx context.Context, m *loadedModel, x *mat.Dense, drop []bool, tab *table, progress io.Writer) (*prediction, error) {
	overflow := func(i int, what string, v float64) error {
		return fmt.Errorf("%s:%d: %s is %v: the model's numbers overflow at this row", tab.name, tab.lines[i], what, v)
	}
	n, d := x.Dims()
	var all prediction
	var probs []float64
	start := time.Now()
	var last time.Time
	for lo := 0; lo < n; lo += predictBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch now := time.Now(); {
		case last.IsZero() && now.Sub(start) >= time.Second:
			last = now
			fmt.Fprintf(progress, "vrvm predict: predicting %d rows (Ctrl-C stops)\n", n)
		case !last.IsZero() && now.Sub(last) >= 10*time.Second:
			last = now
			fmt.Fprintf(progress, "vrvm predict: predicted %d of %d rows (%.0f s)\n", lo, n, now.Sub(start).Seconds())
		}
		hi := min(lo+predictBlock, n)
		p, err := m.est.predict(x.Slice(lo, hi, 0, d).(*mat.Dense))
		if err != nil {
			var nf *vrvm.NonFiniteError
			if errors.As(err, &nf) && nf.Row >= 0 && lo+nf.Row < n {
				return nil, overflow(lo+nf.Row, nf.What, nf.Value)
			}
			return nil, err
		}
		all.regression, all.classes = p.regression, p.classes
		all.mean = append(all.mean, p.mean...)
		all.variance = append(all.variance, p.variance...)
		all.plugin = append(all.plugin, p.plugin...)
		all.moderated = append(all.moderated, p.moderated...)
		all.label = append(all.label, p.label...)
		all.decision = append(all.decision, p.decision...)
		if p.probs != nil {
			r, _ := p.probs.Dims()
			for i := range r {
				probs = append(probs, p.probs.RawRowView(i)...)
			}
		}
	}
	if probs != nil {
		all.probs = mat.NewDense(n, len(all.classes), probs)
	}
	b := &m.meta
	if all.regression && b.Standardized {
		for i := range all.mean {
			all.mean[i] = all.mean[i]*b.TargetSD + b.TargetMean
			all.variance[i] *= b.TargetSD * b.TargetSD
		}
	}
	for i := range n {
		if drop[i] {
			continue
		}
		for _, c := range []struct {
			what string
			v    []float64
		}{{"predicted mean", all.mean}, {"predicted variance", all.variance}, {"plug-in probability", all.plugin}, {"moderated probability", all.moderated}} {
			if i < len(c.v) && !finite(c.v[i]) {
				return nil, overflow(i, c.what, c.v[i])
			}
		}
		if all.probs != nil {
			for _, v := range all.probs.RawRowView(i) {
				if !finite(v) {
					return nil, overflow(i, "class probability", v)
				}
			}
		}
	}
	return &all, nil
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
