package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
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
the file named by -o ("-" for standard output). -model rvm fits instead
the type-II maximum likelihood RVM of Tipping (2001), the paper's
baseline (vrvm.RVMRegressor, vrvm.RVMClassifier), by the sequential
algorithm of Tipping & Faul (2003), which starts from one basis function
and never forms the N × N kernel matrix. Its summary reports the
log evidence in place of the lower bound; the -prior-*, -no-prune and
-paper-schedule flags are those of the VRVM and are refused with it.

Data: a CSV file with a header line naming the columns, as R's write.csv
and pandas' to_csv write them. The target is the column named by -target,
the inputs are the columns named by -inputs, or all other columns. Only
these columns are read as data: others may hold anything. A header whose
first name is empty (R's row names, pandas' index) makes the first column
an index column named "rownames", never an input unless named.

Inputs are numbers, except the text columns named by -categorical, which
are one-hot encoded over the categories seen in the training file (one
0/1 feature per category; the categories are stored in the model file).
For classification the target is 0 or 1 (the binary model), or one of
the two -labels. Any other target (more than two labels, integer class
numbers, text) fits the multi-class model, vrvm.MultiClassifier: one
weight vector per class over the shared basis, one precision per weight,
with class probabilities that sum to one ("vrvm predict" writes one column
p_LABEL per class). Numeric class labels must be integers, and every
class needs at least two rows; -paper-schedule, -no-prune, -width,
-kernel and -augment apply, -model rvm does not.

Missing values: an empty cell, NA or NaN (any case) in a column the fit
uses; a quoted "NA" in a text column is the text NA. -missing chooses:
  error    (default) stop at the first missing value, naming its place
  drop     leave out every row with a missing input or target
  impute   fill a missing input with the training mean (numeric) or the
           most frequent category (categorical, ties: first in order);
           rows with a missing target are left out
The counts go to standard error. The rule and its fill values are stored
in the model file: "vrvm predict" applies the same rule (see its -h).

Standardisation (on by default): each input feature, and a regression
target, is mapped to mean 0 and standard deviation 1 with the statistics
of the training rows, stored in the model file and applied by predict, so
that one kernel width suits every column and predictions come back in the
target's units. One-hot features are standardised like any column, so a
file with the categories written as 0/1 columns gives the same model.
An input with one value in every training row is only centred, with a
warning. -standardize=false uses the raw values, with a warning if the
numeric inputs differ in scale more than 100×.

Kernel: -width sets the Gaussian kernel's width; -width auto learns it.
For regression it maximises the evidence of the dense model (every
kernel function kept, one shared weight precision: a Gaussian process)
from the default width, and -kernel ard learns one length scale per
input by the same evidence, kept only if it beats the default width's
by more than one nat per further scale that does not switch its input
off; the sparse model is then fitted at the kernel, as the default is
(docs/kernel-learning.md). For classes, it maximises the variational
bound (the full-model bound), starting from the median distance between
the (standardised) inputs (for two classes, -kernel ard is kept only if
its bound beats the learned width's by the same margin, refits that
spend more than half the rows of a class on memorising its labels are
rejected, and if the bound prefers memorising every label to
every width kept, the start is kept). Without -width
(and without another -kernel) the width is the library's default: for
regression the width that maximises the evidence of
the dense model (every kernel function kept, one shared weight
precision), doubled while the fit's effective number of parameters
exceeds half the rows, for two classes and more learned by the bound as -width
auto does; -model rvm uses the same widths (for two classes, the one
-model vrvm learns, found before the RVM's fit). A long learned length
scale marks an input the model ignores. Learning by the bound refits up
to 8 times (12 with -kernel ard); the width chosen or learned, or the length scales,
are printed and stored in the model file.
Predictions are augmented: at each predicted row the model adds a
kernel function centred there, so that the predictive variance returns
to a prior level away from the relevance vectors instead of shrinking to
the noise (the model file then holds a low-rank factor of the kernel
matrix at the training inputs or, for a kernel matrix of high rank, the
inputs themselves; a regression on more than 2,048 rows keeps the
variance floor alone instead, unless -augment-exact). -augment=false
predicts with the paper's model alone (-model rvm is never augmented, nor
are -kernel polynomial and linear, whose variance grows away from the
data by itself).

Noise: -noise student fits regression with Student-t noise,
vrvm.RobustRegressor (Tipping & Lawrence 2005): each row's noise
precision is τ times a weight uₙ with a Gamma(ν/2, ν/2) prior, so that a
row with a large residual counts little; the degrees of freedom ν are
learned by the bound (a ν above 100 says the noise is nearly Gaussian)
and printed. Its noise sd is the scale 1/√⟨τ⟩ of a row of weight 1, and
predict reports the mean and φᵀΣφ + 1/⟨τ⟩, the variance of the Gaussian
approximation. It applies to regression only, with -model vrvm and
without -width auto, -kernel ard or -paper-schedule (it has one solver,
the paper's schedule over its factors).

Model file: the library's model file (vrvm.SaveMeta) with the column
names, categories, missing-value rule and standardisation as its
metadata, covered by its SHA-256 checksum. Files of the former format
"vrvm-cli-model" (versions 1 and 2, earlier vrvm fit) are still read.

At the end fit prints a summary:
status, relevance vectors, noise and training error (of the fitted model,
without the augmentation, which centres a function at each row), the
lower bound (log evidence for -model rvm), and
a warning if the fit stopped at the iteration limit, kept no relevance
vector, or (regression) spends more than half the rows' degrees of
freedom on the mean (effective number of parameters γ > N/2), where the
noise estimate is too small and the kernel probably too narrow. Progress goes to standard error (every second for long fits).

` + outputHelp + `
Ctrl-C (or SIGTERM) stops the fit ("stopping…") and exits without
writing a model; a second one exits at once.
Exit status: 0 on success, 1 for bad data, a failed fit or an output
that cannot be written (checked before the fit), 2 for bad flags, 128 +
the signal's number when interrupted (130 for Ctrl-C, 143 for SIGTERM).

Flags:
`

// fitCommand is the "fit" command.
func fitCommand(args []string, stdout, stderr io.Writer) int {
	if streamArg(args) {
		return streamFitCommand(args, stdout, stderr)
	}
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	target := fs.String("target", "", "`name` of the target column (required)")
	inputs := fs.String("inputs", "", "comma-separated input column `names` (default: all columns but the target and an index column)")
	categorical := fs.String("categorical", "", "comma-separated input column `names` holding text categories, one-hot encoded")
	missing := fs.String("missing", missingError, "missing-value `rule`: error, drop or impute")
	task := fs.String("task", "regression", "`task`: regression or classification")
	model := fs.String("model", "vrvm", "`model`: vrvm (variational RVM) or rvm (type-II maximum likelihood RVM, Tipping 2001)")
	labels := fs.String("labels", "", "classification: the class `names` NEG,POS of a text target column (NEG is 0, POS is 1)")
	kernel := fs.String("kernel", "gaussian", "`kernel`: gaussian exp(-‖x-x'‖²/width²), ard exp(-Σₖ(xₖ-x'ₖ)²/ℓₖ²) with one length scale per input learned by the bound, polynomial (scale·x·x' + 1)^degree or linear x·x'")
	width := fs.String("width", "", "`width` of the gaussian kernel, or auto: learned by maximising the bound, starting from the inputs' median pairwise distance (regression: from the dense model's evidence) (default: the library's, chosen from the data: for regression the dense model's evidence, for classification auto)")
	degree := fs.Int("degree", 3, "degree of the polynomial kernel")
	scale := fs.Float64("scale", 0, "scale of the polynomial kernel (0: 1; 1/d suits d standardised inputs)")
	standardize := fs.Bool("standardize", true, "standardise the inputs (and a regression target) with the training mean and standard deviation; predict undoes it. -standardize=false: raw values")
	var o estimatorOptions
	fs.Float64Var(&o.Prior.A, "prior-a", 0, "shape a of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&o.Prior.B, "prior-b", 0, "rate b of the Gamma prior of the weight precisions (0: 1e-6)")
	fs.Float64Var(&o.Prior.C, "prior-c", 0, "regression: shape c of the Gamma prior of the noise precision (0: 1e-6)")
	fs.Float64Var(&o.Prior.D, "prior-d", 0, "regression: rate d of the Gamma prior of the noise precision (0: 1e-6)")
	fs.BoolVar(&o.NoBias, "no-bias", false, "no bias basis function")
	fs.BoolVar(&o.NoPrune, "no-prune", false, "keep every basis function to the end (slower; the paper's algorithm)")
	fs.IntVar(&o.MaxIter, "max-iter", 0, "iteration limit (0: the library's default, 10000)")
	fs.BoolVar(&o.Augment, "augment", true, "augment each prediction with a kernel function at the test point, so that the predictive variance does not collapse to the noise away from the relevance vectors (keeps a low-rank factor of the kernel matrix at the training inputs in the model; for a kernel matrix of high rank the inputs, or for regression on more than 2,048 rows the variance floor alone); -augment=false for the paper's model")
	fs.BoolVar(&o.AugmentExact, "augment-exact", false, "regression: keep the exact augmentation, with every training input in the model, where the kernel matrix has high rank, at any number of rows (by default above 2,048 rows the variance floor alone is kept)")
	fs.BoolVar(&o.PaperSchedule, "paper-schedule", false, "iterate the paper's update schedule instead of the default (sequential) solver: starts from all functions, slower, sometimes a different optimum")
	out := fs.String("o", "", "`file` to write the model to, \"-\" for standard output (required)")
	noise := fs.String("noise", "gaussian", "regression `noise`: gaussian, or student (Student-t, robust to outlying targets; vrvm.RobustRegressor)")
	quiet := fs.Bool("quiet", false, "no progress or summary on standard error (warnings still)")
	usageErr, code, ok := parseFileCommand(fs, "fit", fitUsage, args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case *target == "":
		return usageErr("-target is required")
	case *out == "":
		return usageErr("-o is required")
	case *task != "regression" && *task != "classification":
		return usageErr("-task %q: want regression or classification", *task)
	case *labels != "" && *task != "classification":
		return usageErr("-labels applies to classification only")
	case o.MaxIter < 0:
		return usageErr("-max-iter %d is negative", o.MaxIter)
	case *missing != missingError && *missing != missingDrop && *missing != missingImpute:
		return usageErr("-missing %q: want error, drop or impute", *missing)
	case *model != "vrvm" && *model != "rvm":
		return usageErr("-model %q: want vrvm or rvm", *model)
	case *noise != "gaussian" && *noise != "student":
		return usageErr("-noise %q: want gaussian or student", *noise)
	case *noise == "student" && *task != "regression":
		return usageErr("-noise student applies to regression only")
	case *noise == "student" && (*model == "rvm" || o.PaperSchedule):
		return usageErr("-noise student applies to -model vrvm without -paper-schedule only")
	}
	o.Noise = *noise
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *model == "rvm" {
		for _, f := range []string{"prior-a", "prior-b", "prior-c", "prior-d", "no-prune", "paper-schedule", "augment", "augment-exact"} {
			if set[f] {
				return usageErr("-%s applies to -model vrvm only", f)
			}
		}
	}
	if o.AugmentExact && !o.Augment {
		return usageErr("-augment-exact needs the augmentation: drop -augment=false")
	}
	o.Model = *model
	switch *kernel {
	case "gaussian":
		if *width == "" {
			o.Kernel = nil // the library's default, chosen from the data
			break
		}
		if *width == "auto" {
			o.Kernel, o.LearnKernel = vrvm.Gaussian{}, true
			break
		}
		w, err := strconv.ParseFloat(*width, 64)
		if err != nil {
			return usageErr("-width %q: want a number or auto", *width)
		}
		o.Kernel = vrvm.Gaussian{Width: w}
	case "ard":
		o.Kernel, o.LearnKernel = vrvm.ARDGaussian{}, true
	case "polynomial":
		o.Kernel = vrvm.Polynomial{Degree: *degree, Scale: *scale}
	case "linear":
		o.Kernel = vrvm.Linear{}
	default:
		return usageErr("-kernel %q: want gaussian, ard, polynomial or linear", *kernel)
	}
	if o.LearnKernel && *noise == "student" {
		return usageErr("-noise student does not learn the kernel: give -width or leave it out for the default")
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
	inputNames, err := nameList("-inputs", *inputs)
	if err != nil {
		return usageErr("%v", err)
	}
	catNames, err := nameList("-categorical", *categorical)
	if err != nil {
		return usageErr("%v", err)
	}
	path := fs.Arg(0)
	if err := checkNotInput(*out, path); err != nil {
		return fail(stderr, "fit", err, 2)
	}
	if err := checkOutput(*out); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	say := func(format string, args ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "vrvm fit: "+format+"\n", args...)
		}
	}
	warn := func(format string, args ...any) { fmt.Fprintf(stderr, "vrvm fit: warning: "+format+"\n", args...) }

	// Data: only the target and the inputs are parsed.
	meta := cliMeta{Version: cliMetaVersion, Task: *task, Target: *target, Labels: classNames, Missing: *missing}
	isCat := map[string]bool{}
	for _, c := range catNames {
		isCat[c] = true
	}
	tab, err := readTable(path, func(t *table) (readSpec, error) {
		if !t.has(*target) {
			return nil, t.noColumn(*target, " (-target)")
		}
		meta.Inputs = inputNames
		if meta.Inputs == nil {
			for _, c := range t.header {
				if c != *target && !(c == indexColumn && t.index[c] == 0) {
					meta.Inputs = append(meta.Inputs, c)
				}
			}
			if len(meta.Inputs) == 0 {
				return nil, fmt.Errorf("%s: the target %q is the only column, none is left for the inputs", t.name, *target)
			}
		}
		spec := readSpec{*target: numeric}
		if *task == "classification" {
			spec[*target] = text // 0/1, the -labels names, or the labels of a multi-class model
		}
		for _, c := range meta.Inputs {
			if !t.has(c) {
				return nil, t.noColumn(c, " (-inputs)")
			}
			if c == *target {
				return nil, fmt.Errorf("column %q is both the target and an input", c)
			}
			spec[c] = numeric
			if isCat[c] {
				spec[c] = text
			}
		}
		for _, c := range catNames {
			if _, ok := spec[c]; !ok || c == *target {
				return nil, fmt.Errorf("-categorical %q is not an input column; inputs are %s", c, shortList(meta.Inputs))
			}
		}
		return spec, nil
	})
	if err != nil {
		var pe *datasets.ParseError
		if errors.As(err, &pe) && errors.Is(err, datasets.ErrNotNumber) && pe.Column != "" {
			if pe.Column == *target {
				err = fmt.Errorf("%w (a text target needs -task classification)", err)
			} else {
				err = fmt.Errorf("%w; name the column in -categorical to one-hot encode it, or leave it out of -inputs", err)
			}
		}
		return fail(stderr, "fit", err, 1)
	}
	n := tab.Len()

	// The target, with NaN for a missing one.
	t := tab.num[*target]
	var multiLabels []string // the label of each row, for a multi-class model
	if *task == "classification" && classNames == nil {
		if t, multiLabels, err = classTarget(tab, *target); err != nil {
			return fail(stderr, "fit", err, 1)
		}
		if multiLabels != nil {
			meta.Task = "multiclass"
		}
	}
	if classNames != nil {
		t = make([]float64, n)
		for i, s := range tab.text[*target] {
			switch s {
			case "":
				t[i] = nan
			case classNames[0]:
				t[i] = 0
			case classNames[1]:
				t[i] = 1
			default:
				return fail(stderr, "fit", &datasets.ParseError{File: tab.name, Line: tab.lines[i], Field: tab.field(*target), Column: *target,
					Err: fmt.Errorf("%w %s, want %q or %q (-labels)", datasets.ErrLabel, quotePrefix([]byte(s)), classNames[0], classNames[1])}, 1)
			}
		}
	}
	hint := "; choose -missing drop or -missing impute"
	if *missing == missingError {
		// The first missing cell in the file's order, target included.
		used := append([]string{*target}, meta.Inputs...)
		sort.Slice(used, func(a, b int) bool { return tab.index[used[a]] < tab.index[used[b]] })
		for i := range n {
			for _, c := range used {
				if v, ok := tab.num[c]; ok && math.IsNaN(v[i]) || !ok && tab.text[c][i] == "" {
					return fail(stderr, "fit", missingCellError(tab, i, c, hint), 1)
				}
			}
		}
	}
	var rows []int
	droppedTarget := 0
	for i, v := range t {
		if math.IsNaN(v) {
			if *missing == missingError {
				return fail(stderr, "fit", missingCellError(tab, i, *target, hint), 1)
			}
			droppedTarget++
			continue
		}
		if *task == "classification" && v != 0 && v != 1 {
			return fail(stderr, "fit", fmt.Errorf("%s:%d: target %q is %v, not 0 or 1 (use -labels NEG,POS for text labels)", tab.name, tab.lines[i], *target, v), 1)
		}
		rows = append(rows, i)
	}
	var droppedInput missingCounts
	if *missing == missingDrop {
		kept := rows[:0]
		for _, i := range rows {
			ok := true
			for _, c := range meta.Inputs {
				if isCat[c] && tab.text[c][i] == "" || !isCat[c] && math.IsNaN(tab.num[c][i]) {
					droppedInput.add(c)
					ok = false
				}
			}
			if ok {
				kept = append(kept, i)
			} else {
				droppedInput.rows++
			}
		}
		rows = kept
	}
	if len(rows) == 0 {
		return fail(stderr, "fit", fmt.Errorf("%s: no row is left after leaving out the rows with a missing value (-missing %s)", tab.name, *missing), 1)
	}

	// Categories and fill values from the training rows.
	if len(catNames) > 0 {
		meta.Categories = map[string][]string{}
	}
	if *missing == missingImpute {
		meta.ImputeMean, meta.ImputeMode = map[string]float64{}, map[string]string{}
	}
	for _, c := range meta.Inputs {
		if isCat[c] {
			count := map[string]int{}
			for _, i := range rows {
				if s := tab.text[c][i]; s != "" {
					count[s]++
				}
			}
			if len(count) == 0 {
				return fail(stderr, "fit", fmt.Errorf("%s: column %q has no value in the training rows", tab.name, c), 1)
			}
			levels := make([]string, 0, len(count))
			for l := range count {
				levels = append(levels, l)
			}
			sort.Strings(levels)
			meta.Categories[c] = levels
			if len(levels) > len(rows)/2 && len(levels) > 2 {
				warn("categorical input %q has %d categories in %d rows: an identifier rather than a category?", c, len(levels), len(rows))
			}
			if meta.ImputeMode != nil {
				mode := levels[0]
				for _, l := range levels {
					if count[l] > count[mode] {
						mode = l
					}
				}
				meta.ImputeMode[c] = mode
			}
			continue
		}
		if meta.ImputeMean != nil {
			var sum float64
			k := 0
			for _, i := range rows {
				if v := tab.num[c][i]; !math.IsNaN(v) {
					sum += v
					k++
				}
			}
			if k == 0 {
				return fail(stderr, "fit", fmt.Errorf("%s: column %q has no value in the training rows to impute from", tab.name, c), 1)
			}
			meta.ImputeMean[c] = sum / float64(k)
		}
	}
	x, _, filled, _, err := encodeRows(&meta, tab, rows, false, hint)
	if err != nil {
		return fail(stderr, "fit", err, 1)
	}
	tt := make([]float64, len(rows))
	for k, i := range rows {
		tt[k] = t[i]
	}
	if multiLabels != nil {
		o.Labels = make([]string, len(rows))
		for k, i := range rows {
			o.Labels[k] = multiLabels[i]
		}
	}
	if droppedInput.rows > 0 || droppedTarget > 0 {
		var why []string
		if droppedTarget > 0 {
			why = append(why, fmt.Sprintf("%s without a target", plural(droppedTarget, "row", "rows")))
		}
		if droppedInput.rows > 0 {
			why = append(why, fmt.Sprintf("%s with a missing input: %s", plural(droppedInput.rows, "row", "rows"), droppedInput.String()))
		}
		say("-missing %s: left out %s of %d (%s)", *missing, plural(droppedInput.rows+droppedTarget, "row", "rows"), n, strings.Join(why, "; "))
	}
	if len(filled.cells) > 0 {
		say("-missing impute: filled %s (%s) with the training mean or most frequent category", plural(totalCells(filled), "cell", "cells"), filled.String())
	}

	// Standardisation.
	hot := oneHot(&meta)
	scaling, err := datasets.NewScaling(x)
	if err != nil {
		return fail(stderr, "fit", fmt.Errorf("%s: %w", tab.name, err), 1)
	}
	if names := constantFeatures(scaling, featureNames(&meta)); len(names) > 0 {
		warn("%s the same in every training row: the fit learns nothing from it, and a row predicted with another value there lies that difference, in the column's own units, from every training row; leave it out with -inputs if it should not count", quoteList(names, 5))
	}
	if *standardize {
		meta.Standardized = true
		meta.InputMean, meta.InputSD = scaling.Mean, scaling.SD
		standardizeInPlace(x, meta.InputMean, meta.InputSD)
		if *task == "regression" {
			ts, err := datasets.NewScaling(mat.NewDense(len(tt), 1, append([]float64(nil), tt...)))
			if err != nil {
				return fail(stderr, "fit", fmt.Errorf("%s: %w", tab.name, err), 1)
			}
			m, s := ts.Mean[0], ts.SD[0]
			if err := targetScaleError(*target, s); err != nil {
				return fail(stderr, "fit", fmt.Errorf("%s: %w", tab.name, err), 1)
			}
			meta.TargetMean, meta.TargetSD = m, s
			for i, v := range tt {
				tt[i] = (v - m) / s
			}
		}
	} else if msg := scaleWarning(scaling, hot, featureNames(&meta)); msg != "" {
		warn("%s", msg)
	}

	// Fit.
	ctx, stop := onInterrupt("fit", stderr)
	defer stop()
	nRows, d := x.Dims()
	what := fmt.Sprintf("%s, %s kernel, %d rows × %d inputs (%s)", *task, *kernel, nRows, len(meta.Inputs), shortList(meta.Inputs))
	if *model == "rvm" {
		what = "RVM " + what
	}
	if *noise == "student" {
		what = "Student-t " + what
	}
	if multiLabels != nil {
		what = fmt.Sprintf("multi-class %s (%d classes)", what, len(distinct(o.Labels)))
	}
	if d != len(meta.Inputs) {
		what += fmt.Sprintf(", %d features", d)
	}
	start := time.Now()
	last := start
	iter := 0
	objective := "lower bound"
	if *model == "rvm" {
		objective = "log evidence"
	}
	o.Monitor = func(p vrvm.Progress) bool {
		iter = p.Iteration
		if now := time.Now(); now.Sub(last) >= time.Second {
			last = now
			say("iteration %d: %s %.6g, %d active basis functions", p.Iteration, objective, p.Bound, p.Active)
		}
		return false
	}
	restoreGC := gcForDesign(nRows)
	est, err := fitEstimator(ctx, meta.Task, o, x, tt)
	restoreGC()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "vrvm fit: interrupted after %d iterations (%.1f s); no model written\n", iter, time.Since(start).Seconds())
			return interruptStatus(ctx)
		}
		if le := labelError(err); le != nil {
			// The file's line in place of the library's 0-based row.
			err = fmt.Errorf("%s:%d: label %q %s", tab.name, tab.lines[rows[le.Row]], le.Label, le.Reason)
		}
		return fail(stderr, "fit", err, 1)
	}
	s := est.summary(x, tt)
	if est.mc != nil {
		meta.Labels = est.mc.Classes()
	}
	say("%s: %v after %d iterations (%.1f s)", what, s.Status, s.Iterations, time.Since(start).Seconds())
	rv := plural(s.Relevance, "relevance vector", "relevance vectors")
	if s.Bias {
		rv += " and the bias"
	}
	noiseSD := s.NoiseSD // in target units
	if *task == "regression" {
		sd := 1.0
		if meta.Standardized {
			sd = meta.TargetSD
		}
		noiseSD *= sd
		say("%s of %d rows; noise sd %.4g, training RMS error %.4g (target units); %s %.6g", rv, nRows, noiseSD, s.TrainingError*sd, objective, s.Bound)
		if r, ok := est.m.(*vrvm.RobustRegressor); ok {
			say("Student-t noise: ν = %.4g degrees of freedom, learned by the bound", r.DegreesOfFreedom())
		}
	} else {
		say("%s of %d rows; training error %.2f%%; %s %.6g", rv, nRows, 100*s.TrainingError, objective, s.Bound)
	}
	if s.Kernel != "" {
		units := ""
		if meta.Standardized {
			units = " (in standardised input units)"
		}
		if s.Evidence && s.Doublings > 0 {
			say("kernel width chosen by the dense model's evidence, doubled %d times (at the narrower widths the fit's effective number of parameters γ exceeded half the rows): %s%s", s.Doublings, s.Kernel, units)
		} else if s.Evidence {
			say("kernel width chosen by the dense model's evidence: %s%s", s.Kernel, units)
		} else if e := s.ByEvidence; e != nil {
			say("kernel learned by the dense model's evidence (docs/kernel-learning.md (E2)–(E6)): %.6g, at the default width %.6g (-kernel ard's length scales are kept only if more than one nat above per further scale that does not switch its input off, and if their sparse fit predicts the learning rows, each held out in turn, better than the default width's by more than two standard errors (E8)); fitted: %s%s", e[1], e[0], s.Kernel, units)
		} else if s.ARDGuarded {
			say("-kernel ard's length scales not kept: their bound was not more than one nat per further scale that does not switch its input off above the width learned by the bound (E7), or their fit did not predict the learning rows, each held out in turn, better than the width's by more than two standard errors (E8) (%d fits); the width is kept (docs/kernel-learning.md): %s%s", s.Fits, s.Kernel, units)
		} else if s.RVMLearned {
			say("kernel width learned by the variational classifier's bound (%d fits), as -model vrvm's default: %s%s", s.Fits, s.Kernel, units)
		} else {
			say("kernel learned by the bound (%d fits): %s%s", s.Fits, s.Kernel, units)
		}
	}
	if s.Duplicates > 0 {
		warn("%d of the %d rows repeat an earlier row, inputs and target, and were fitted once each (D1 in the package documentation: two equal targets would tell the model the noise is zero)", s.Duplicates, nRows)
	}
	if s.IterLimit {
		limit := o.MaxIter
		if limit == 0 {
			limit = vrvm.DefaultMaxIter
		}
		warn("stopped at the iteration limit (%d) before converging; raise -max-iter", limit)
	}
	if *task == "regression" && s.Gamma > interpolating*float64(nRows) {
		warn("the model spends γ = %.1f of the %d rows' degrees of freedom on the mean: its noise estimate (sd %.4g) rests on the other %.1f and is probably too small, and the model overfits; the kernel is probably too narrow (try a wider -width, or leave -width out for the default)", s.Gamma, nRows, noiseSD, float64(nRows)-s.Gamma)
	}
	if s.Relevance == 0 {
		warn("no relevance vector: the model predicts a constant; try another -width or -kernel, or check the inputs")
	}
	var buf bytes.Buffer
	if err := est.save(&buf, &meta); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	if err := writeOutput(*out, stdout, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fail(stderr, "fit", err, 1)
	}
	if *out != "-" {
		say("model written to %s", *out)
	}
	return 0
}

// interpolating is the fraction of the training rows above which the
// effective number of parameters γ (vrvm's EffectiveParameters) draws a
// warning: the noise estimate then rests on fewer than half the rows'
// degrees of freedom. Measured on 95 rows of Boston (4 standardised
// inputs): Gaussian widths 0.01, 0.05 and 0.2 give γ = 81.6, 81.6 and
// 69.9 with noise sd 0.57–1.08, width 1 gives γ = 20.0 and 2.27, the
// default width fewer still.
const interpolating = 0.5

func totalCells(m missingCounts) int {
	n := 0
	for _, k := range m.cells {
		n += k
	}
	return n
}

// nameList splits a comma-separated flag value into distinct names.
func nameList(flagName, s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	names := strings.Split(s, ",")
	seen := map[string]bool{}
	for i, c := range names {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] {
			return nil, fmt.Errorf("%s %q: empty or repeated name %q", flagName, s, c)
		}
		seen[c] = true
		names[i] = c
	}
	return names, nil
}

// shortList joins names, shortened for many.
func shortList(names []string) string {
	const show = 8
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … %d in all", strings.Join(names[:show], ", "), len(names))
}

// scaleWarning returns a warning if the numeric features whose scaling
// s is not constant differ in standard deviation by more than a factor
// 100, "" otherwise.
func scaleWarning(s *datasets.Scaling, hot []bool, names []string) string {
	constant := map[int]bool{}
	for _, j := range s.Constant() {
		constant[j] = true
	}
	sds := s.SD
	lo, hi := -1, -1
	for j := range sds {
		if hot[j] || constant[j] {
			continue
		}
		if lo < 0 || sds[j] < sds[lo] {
			lo = j
		}
		if hi < 0 || sds[j] > sds[hi] {
			hi = j
		}
	}
	if lo < 0 || sds[hi] <= 100*sds[lo] {
		return ""
	}
	return fmt.Sprintf("-standardize=false and the inputs differ in scale by a factor %.3g (standard deviation of %q %.3g, of %q %.3g): one kernel width cannot suit both; drop -standardize=false unless the scales are meant",
		sds[hi]/sds[lo], names[hi], sds[hi], names[lo], sds[lo])
}

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
	return usageError(stderr, name)("%v", err), false
}

// parseFileCommand is parseFlags for a command that takes one CSV file
// after its flags; it also returns the command's usageError.
func parseFileCommand(fs *flag.FlagSet, name, usage string, args []string, stdout, stderr io.Writer) (usageErr func(format string, args ...any) int, code int, ok bool) {
	if code, ok := parseFlags(fs, name, usage, args, stdout, stderr); !ok {
		return nil, code, false
	}
	usageErr = usageError(stderr, name)
	if fs.NArg() != 1 {
		return nil, usageErr("want one CSV file, got %d arguments", fs.NArg()), false
	}
	return usageErr, 0, true
}

// usageError returns the function that reports a usage error of the
// command name: one line "vrvm NAME: message; run "vrvm NAME -h" for
// usage" on stderr, and the exit status 2.
func usageError(stderr io.Writer, name string) func(format string, args ...any) int {
	return func(format string, args ...any) int {
		return fail(stderr, name, fmt.Errorf(format+`; run "vrvm `+name+` -h" for usage`, args...), 2)
	}
}

// fail prints one line "vrvm NAME: err" and returns code.
func fail(stderr io.Writer, name string, err error, code int) int {
	msg := strings.TrimPrefix(err.Error(), "vrvm: ")
	fmt.Fprintf(stderr, "vrvm %s: %s\n", name, strings.ReplaceAll(msg, "\n", " "))
	return code
}
