package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/vrvm/vrvm/paper"
	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register(&command{
		name:  "paper",
		short: "reproduce Tables 1–4 of Bishop & Tipping (2000) for the RVM and the VRVM",
		run:   paperCommand,
	})
}

const paperUsage = `Usage: vrvm paper [flags]

Paper runs the experiments of Bishop & Tipping (2000), section 6, for the
relevance vector machine fitted by type-II maximum likelihood (RVM) and the
variational RVM (VRVM), and prints Tables 1–4 in Markdown with the paper's
numbers beside the measured ones (the SVM rows are quoted from the paper):

  Table 1  sinc, 25 sets of N = 100, Gaussian width 3, RMS error against
           sin(x)/x on a dense grid, noise estimates
  Table 2  Boston housing, 10 splits 481/25, (x·x'/13 + 1)³ on inputs and
           target standardised with training statistics, test MSE
  Table 3  Ripley, 10 subsets of 100, Gaussian width 0.5, error on synth.te
  Table 4  Pima, 200/332, Gaussian width chosen by 5-fold cross-validation
           on the training rows, test errors

followed by a model-selection study: on every sinc set and Ripley subset,
the Gaussian width chosen by 5-fold cross-validation and the one chosen by
the VRVM's lower bound, how often they agree and the test errors of both.
The output states the preprocessing, kernels, fit statuses and run times;
a warning on standard error counts the fits of each table that stopped at
the iteration limit or kept no relevance vector.

The data files are read from $VRVM_DATA (default: "vrvm" in the user
cache directory; "vrvm data" shows which are present). Progress goes to
standard error. Ctrl-C stops the fits and exits with status 130 (SIGTERM: 143). The run
takes a few minutes on two cores; -tables and -no-study shorten it.

Flags:
`

// paperCommand is the "paper" command.
func paperCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("paper", flag.ContinueOnError)
	tables := fs.String("tables", "1,2,3,4", "comma-separated `list` of the tables to run")
	noStudy := fs.Bool("no-study", false, "skip the model-selection study")
	workers := fs.Int("workers", 0, "fits run at once (0: GOMAXPROCS)")
	maxIter := fs.Int("max-iter", 0, "iteration limit of every fit (0: the library's default)")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	if code, ok := parseFlags(fs, "paper", paperUsage, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fail(stderr, "paper", fmt.Errorf("unexpected argument %q (paper takes flags only)", fs.Arg(0)), 2)
	}
	if *workers < 0 || *maxIter < 0 {
		return fail(stderr, "paper", errors.New("-workers and -max-iter must not be negative"), 2)
	}
	var which []int
	for _, f := range strings.Split(*tables, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4 {
			return fail(stderr, "paper", fmt.Errorf("-tables: %q is not a table number 1–4", f), 2)
		}
		which = append(which, n)
	}

	ctx, stop := onInterrupt("paper", stderr)
	defer stop()
	opt := paper.Options{Workers: *workers, MaxIter: *maxIter}
	if !*quiet {
		opt.Progress = func(line string) { fmt.Fprintln(stderr, "vrvm paper:", line) }
	}
	start := time.Now()
	dir, _ := datasets.Dir()
	fmt.Fprintln(stdout, "## Bishop & Tipping (2000), section 6: RVM and VRVM reproduced")
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "Data from %s (files it lacks from the built-in copies); %s, GOMAXPROCS %d, %d fits at once.\n", dir, runtime.Version(), runtime.GOMAXPROCS(0), max(1, or(*workers, runtime.GOMAXPROCS(0))))
	fmt.Fprintln(stdout)
	run := []func(context.Context, paper.Options) (*paper.Table, error){
		paper.Table1, paper.Table2, paper.Table3, paper.Table4}
	var missed []string
	for _, n := range which {
		t, err := run[n-1](ctx, opt)
		if err != nil {
			return paperError(ctx, stderr, err)
		}
		fmt.Fprintln(stdout, t.Markdown())
		for _, w := range convergenceWarnings(t) {
			fmt.Fprintf(stderr, "vrvm paper: warning: table %d: %s\n", n, w)
		}
		for _, m := range t.Missed() {
			missed = append(missed, fmt.Sprintf("table %d: %v", n, m))
		}
	}
	if !*noStudy {
		s, err := paper.SelectionStudy(ctx, opt)
		if err != nil {
			return paperError(ctx, stderr, err)
		}
		fmt.Fprintln(stdout, s.Markdown())
	}
	if len(missed) == 0 {
		fmt.Fprintln(stdout, "All targets met.")
	} else {
		fmt.Fprintln(stdout, "Targets missed (see the notes of each table):")
		for _, m := range missed {
			fmt.Fprintln(stdout, "-", m)
		}
	}
	fmt.Fprintf(stdout, "\nTotal wall time %.1f s.\n", time.Since(start).Seconds())
	return 0
}

// convergenceWarnings returns a warning for each model of t some of whose
// fits stopped at the iteration limit (raise -max-iter) or converged to
// the bias alone, keeping no relevance vector although the targets vary
// (status InterceptOnly), as scikit-learn warns with ConvergenceWarning.
func convergenceWarnings(t *paper.Table) []string {
	var w []string
	for _, r := range t.Rows {
		limit, bias := 0, 0
		for _, run := range r.Runs {
			switch run.Status {
			case vrvm.IterationLimit:
				limit++
			case vrvm.InterceptOnly:
				bias++
			}
		}
		if limit > 0 {
			w = append(w, fmt.Sprintf("%d of the %d %s fits stopped at the iteration limit before converging; raise -max-iter", limit, len(r.Runs), r.Model))
		}
		if bias > 0 {
			w = append(w, fmt.Sprintf("%d of the %d %s fits kept no relevance vector: the model predicts a constant", bias, len(r.Runs), r.Model))
		}
	}
	return w
}

func or(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// paperError reports the error of an experiment: an interruption is a
// clean stop with status 128 + the signal's number (130 for SIGINT).
func paperError(ctx context.Context, stderr io.Writer, err error) int {
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "vrvm paper: interrupted; the fits were stopped")
		return interruptStatus(ctx)
	}
	return fail(stderr, "paper", err, 1)
}
