package paper

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/parallel"
	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/selection"
)

// The models of the tables, in table order after the SVM.
const (
	RVM  = "RVM"
	VRVM = "VRVM"
	// VRVMSequential is the VRVM fitted by the library's default solver
	// (vrvm.Sequential) instead of the paper's schedule.
	VRVMSequential = "VRVM, sequential solver"
)

var models = []string{RVM, VRVM, VRVMSequential}

// estimator returns the named model with kernel k: the RVM row is fitted
// by the re-estimation of Tipping (2001) and the VRVM row by the paper's
// own schedule (these are the paper's experiments), the VRVMSequential
// row by the library's default solver.
func estimator(model string, classify bool, k vrvm.Kernel, maxIter int) vrvm.Estimator {
	switch {
	case model == RVM && classify:
		return &vrvm.RVMClassifier{Kernel: k, MaxIter: maxIter, Method: vrvm.PaperSchedule{}}
	case model == RVM:
		return &vrvm.RVMRegressor{Kernel: k, MaxIter: maxIter, Method: vrvm.PaperSchedule{}}
	case model != VRVM && model != VRVMSequential:
		panic("paper: unknown model " + model)
	}
	var solver vrvm.Method = vrvm.PaperSchedule{}
	if model == VRVMSequential {
		solver = vrvm.Sequential{}
	}
	if classify {
		return &vrvm.Classifier{Kernel: k, MaxIter: maxIter, Method: solver, NoAugment: true} // the paper's model
	}
	return &vrvm.Regressor{Kernel: k, MaxIter: maxIter, Method: solver, NoAugment: true}
}

// fit fits the named model with kernel k to x, t and returns the latent
// means at xt and the run (Error unset).
func fit(ctx context.Context, model string, classify bool, k vrvm.Kernel, maxIter int, x *mat.Dense, t []float64, xt *mat.Dense) ([]float64, Run, error) {
	start := time.Now()
	run := Run{Kernel: selection.Describe(k), Noise: nan}
	m := estimator(model, classify, k, maxIter)
	if err := m.FitContext(ctx, x, t); err != nil {
		return nil, run, err
	}
	mean, _, err := m.Latent(xt)
	if err != nil {
		return nil, run, err
	}
	if !classify {
		run.Noise = m.NoiseSD()
	}
	run.Kernels, run.Status, run.Iterations = len(m.RelevanceVectors()), m.Status(), m.Iterations()
	run.Time = time.Since(start)
	return mean, run, nil
}

// fitRegression fits the named model with kernel k to x, t and returns
// the predictive means at xt and the run (Error unset).
func fitRegression(ctx context.Context, model string, k vrvm.Kernel, maxIter int, x *mat.Dense, t []float64, xt *mat.Dense) ([]float64, Run, error) {
	return fit(ctx, model, false, k, maxIter, x, t, xt)
}

// fitClassification fits the named model with kernel k to x, t and
// returns the run with Error the number of misclassified rows of xt, tt
// (label 1 where the activation mean is positive).
func fitClassification(ctx context.Context, model string, k vrvm.Kernel, maxIter int, x *mat.Dense, t []float64, xt *mat.Dense, tt []float64) (Run, error) {
	act, run, err := fit(ctx, model, true, k, maxIter, x, t, xt)
	if err != nil {
		return run, err
	}
	run.Error = float64(misclassified(labelsOf(act), tt))
	return run, nil
}

// labelsOf returns label 1 where the activation is positive, else 0.
func labelsOf(act []float64) []float64 {
	labels := make([]float64, len(act))
	for i, a := range act {
		if a > 0 {
			labels[i] = 1
		}
	}
	return labels
}

// predictLabels returns the labels a fitted classifier predicts at x.
func predictLabels(m vrvm.Estimator, x mat.Matrix) ([]float64, error) {
	act, _, err := m.Latent(x)
	return labelsOf(act), err
}

func misclassified(labels, t []float64) int {
	n := 0
	for i, l := range labels {
		if l != t[i] {
			n++
		}
	}
	return n
}

// rms returns the root mean square of a − b.
func rms(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(a)))
}

// mse returns the mean of (a − b)².
func mse(a, b []float64) float64 {
	r := rms(a, b)
	return r * r
}

// runTable fits every model on sets data sets in parallel; fit returns
// the run of one model on one set.
func runTable(ctx context.Context, opt Options, table, name string, sets int, describe func(Run) string,
	fit func(ctx context.Context, model string, set int) (Run, error)) ([][]Run, error) {
	rep := &reporter{f: opt.Progress}
	runs := make([][]Run, len(models))
	for m := range runs {
		runs[m] = make([]Run, sets)
	}
	total := len(models) * sets
	err := parallel.Run(ctx, opt.workers(), total, func(ctx context.Context, j int) error {
		m, s := j%len(models), j/len(models)
		r, err := fit(ctx, models[m], s)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s, %s, %s %d: %w", table, models[m], name, s, err)
		}
		r.Set = s
		runs[m][s] = r
		rep.step(total, "%s: %s %s %d: %s, %d kernels, %v after %d iterations (%s)",
			table, models[m], name, s, describe(r), r.Kernels, r.Status, r.Iterations, seconds(r.Time))
		return nil
	})
	return runs, err
}

// rows builds the SVM, RVM and VRVM rows from the paper's lines and runs;
// both VRVM rows carry the paper's VRVM line.
func rows(paper [3]Score, runs [][]Run) []Row {
	out := []Row{{Model: "SVM", Paper: paper[0]}}
	for m, run := range runs {
		name := models[m]
		r := Row{Model: name, Paper: paper[min(m+1, 2)], Measured: true, Runs: run, Ours: mean(run)}
		for _, x := range run {
			r.FitTime += x.Time
		}
		out = append(out, r)
	}
	return out
}

// finish completes a table of Tables 1–3 from its runs, or returns err,
// the error of runTable: the rows with the paper's scores, the targets
// for the measured VRVM row, and the rest as complete.
func (t *Table) finish(start time.Time, opt Options, runs [][]Run, err error, paper [3]Score, targets func(vrvm Score) []Target) (*Table, error) {
	if err != nil {
		return nil, err
	}
	t.Rows = rows(paper, runs)
	t.Targets = targets(t.Row(VRVM).Ours)
	return t.complete(start, opt), nil
}

// complete completes the setup with the fit settings of opt, adds the note
// on fits that did not converge and records the wall time since start.
func (t *Table) complete(start time.Time, opt Options) *Table {
	t.Setup = append(t.Setup, "Fits: "+maxIterText(opt)+".")
	if n := statusNote(t); n != "" {
		t.Notes = append(t.Notes, n)
	}
	t.Wall = time.Since(start)
	return t
}

// statusNote returns a note on fits that did not converge, or "".
func statusNote(t *Table) string {
	var parts []string
	for _, r := range t.Rows {
		if !r.Measured {
			continue
		}
		n := 0
		for _, run := range r.Runs {
			if run.Status != vrvm.Converged {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d of the %d %s fits", n, len(r.Runs), r.Model))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Fits that stopped before meeting the convergence criteria (see the fits column) are scored as they stopped: " + join(parts) + "."
}

func join(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	s := parts[0]
	for _, p := range parts[1 : len(parts)-1] {
		s += ", " + p
	}
	return s + " and " + parts[len(parts)-1]
}

func maxIterText(opt Options) string {
	const solvers = "; the VRVM row by the paper's schedule (vrvm.PaperSchedule), the \"VRVM, sequential solver\" row by the library's default solver (vrvm.Sequential)"
	if opt.MaxIter > 0 {
		return fmt.Sprintf("at most %d iterations per fit", opt.MaxIter) + solvers
	}
	return fmt.Sprintf("the library's defaults (at most %d iterations per fit, default priors and pruning)", vrvm.DefaultMaxIter) + solvers
}
