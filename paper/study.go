package paper

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/selection"
)

// SincWidths and RipleyWidths return the Gaussian widths of the
// model-selection study on the sinc sets and the Ripley subsets; each
// brackets the width of the corresponding table.
func SincWidths() []float64   { return []float64{0.5, 1, 2, 3, 4} }
func RipleyWidths() []float64 { return []float64{0.1, 0.25, 0.5, 0.75, 1} }

// StudyRow compares the kernel widths chosen by cross-validation and by the
// lower bound on a series of data sets.
type StudyRow struct {
	Problem string
	Model   string
	Grid    []float64 // the Gaussian widths tried
	Sets    int       // number of data sets
	// ByCV and ByBound hold the width chosen on each data set.
	ByCV, ByBound []float64
	// Agree counts the data sets on which the two choices agree.
	Agree int
	// ErrorName names the test error; ErrorCV and ErrorBound are its mean
	// over the data sets at the chosen widths, ErrorGrid its mean at each
	// width of Grid (NaN where a fit failed). The test data play no part
	// in the choices.
	ErrorName           string
	ErrorCV, ErrorBound float64
	ErrorGrid           []float64
	Time                time.Duration // summed fit time
	errFormat           string
	errSum, errBoundSum float64
	gridSum             []float64
	gridCount           []int
}

// add records the search on one data set; errs holds the test error of
// each candidate's fit to all training rows.
func (r *StudyRow) add(res *selection.Result, errs []float64) {
	if r.gridSum == nil {
		r.gridSum = make([]float64, len(r.Grid))
		r.gridCount = make([]int, len(r.Grid))
	}
	r.ByCV = append(r.ByCV, r.Grid[res.ByCV])
	r.ByBound = append(r.ByBound, r.Grid[res.ByBound])
	if res.Agree() {
		r.Agree++
	}
	r.errSum += errs[res.ByCV]
	r.errBoundSum += errs[res.ByBound]
	for i, e := range errs {
		if e == e {
			r.gridSum[i] += e
			r.gridCount[i]++
		}
	}
	for _, c := range res.Candidates {
		r.Time += c.Time
	}
	n := float64(len(r.ByCV))
	r.ErrorCV, r.ErrorBound = r.errSum/n, r.errBoundSum/n
	r.ErrorGrid = make([]float64, len(r.Grid))
	for i := range r.Grid {
		r.ErrorGrid[i] = nan
		if r.gridCount[i] > 0 {
			r.ErrorGrid[i] = r.gridSum[i] / float64(r.gridCount[i])
		}
	}
}

// Study is the model-selection study: on every data set, the width chosen
// by cross-validation and the one chosen by the lower bound.
type Study struct {
	Rows []StudyRow
	Wall time.Duration
}

// Agreement returns the number of data sets on which the choices agree and
// the number of data sets, over all rows.
func (s *Study) Agreement() (agree, sets int) {
	for _, r := range s.Rows {
		agree += r.Agree
		sets += r.Sets
	}
	return agree, sets
}

// Markdown renders the study.
func (s *Study) Markdown() string {
	var b strings.Builder
	b.WriteString("### Model selection: cross-validation and the lower bound\n\n")
	fmt.Fprintf(&b, "- Cross-validation: %d-fold (stratified for classification, seed = data set number), pooled test error of the held-out rows, ties broken by the held-out negative log predictive probability.\n", CVFolds)
	b.WriteString("- Lower bound: the bound L of the paper's full model (all N+1 basis functions) at the solution of the VRVM fitted to all training rows: the fit's own bound plus the terms of the pruned functions put back in the pruned regime (selection.Candidate.FullBound); for the RVM the log evidence.\n")
	b.WriteString("- The test errors below are reported to compare the two choices; they play no part in either.\n\n")
	writeStudy(&b, s.Rows)
	agree, sets := s.Agreement()
	fmt.Fprintf(&b, "\nThe two choices agree on %d of %d data sets. Wall time %s.\n", agree, sets, seconds(s.Wall))
	return b.String()
}

// writeStudy writes the rows as a Markdown table.
func writeStudy(w io.Writer, rows []StudyRow) {
	fmt.Fprintln(w, "| Problem | Model | widths tried | CV = bound | chosen by CV | chosen by bound | test error at CV choice | at bound choice | test error by width | fit time (sum) |")
	fmt.Fprintln(w, "|---|---|---|--:|---|---|--:|--:|---|--:|")
	for _, r := range rows {
		var byWidth []string
		for i, g := range r.Grid {
			byWidth = append(byWidth, fmt.Sprintf("%g: "+r.errFormat, g, r.ErrorGrid[i]))
		}
		fmt.Fprintf(w, "| %s | %s | %v | %d/%d | %s | %s | "+r.errFormat+" | "+r.errFormat+" | %s | %s |\n",
			r.Problem, r.Model, r.Grid, r.Agree, r.Sets, tally(r.ByCV, r.Grid), tally(r.ByBound, r.Grid),
			r.ErrorCV, r.ErrorBound, strings.Join(byWidth, ", "), seconds(r.Time))
	}
}

// tally summarises choices as "2 (×10), 3 (×15)" in grid order.
func tally(choices, grid []float64) string {
	var parts []string
	for _, g := range grid {
		n := 0
		for _, c := range choices {
			if c == g {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%g (×%d)", g, n))
		}
	}
	return strings.Join(parts, ", ")
}

// SelectionStudy chooses the Gaussian width of the VRVM by 5-fold
// cross-validation and by the lower bound on each of the 25 sinc sets of
// Table 1 (widths SincWidths) and each of the 10 Ripley subsets of Table 3
// (RipleyWidths), and reports how often the choices agree and the test
// errors at both. Pima's choices are part of Table 4.
func SelectionStudy(ctx context.Context, opt Options) (*Study, error) {
	start := time.Now()
	rep := &reporter{f: opt.Progress}
	sets, err := datasets.SincSets(100)
	if err != nil {
		return nil, err
	}
	xg, yg := sincGrid()
	sinc := StudyRow{Problem: "sinc, N = 100 (table 1)", Model: VRVM, Grid: SincWidths(), Sets: len(sets), ErrorName: "RMS error", errFormat: "%.4f"}
	for s, d := range sets {
		res, err := search(ctx, opt, sinc.Grid, uint64(s), d.X, d.T, false)
		if err != nil {
			return nil, fmt.Errorf("selection study, sinc set %d: %w", s, err)
		}
		errs, err := candidateErrors(res, func(m vrvm.Estimator) (float64, error) {
			mean, _, err := m.Latent(xg)
			return rms(mean, yg), err
		})
		if err != nil {
			return nil, err
		}
		sinc.add(res, errs)
		rep.printf("[%d/%d] selection study: sinc set %d: width %g by cross-validation, %g by the bound", s+1, len(sets), s, sinc.Grid[res.ByCV], sinc.Grid[res.ByBound])
	}

	_, test, err := datasets.LoadRipley()
	if err != nil {
		return nil, err
	}
	ripley := StudyRow{Problem: "Ripley, N = 100 (table 3)", Model: VRVM, Grid: RipleyWidths(), Sets: datasets.NumRipleySubsets, ErrorName: "test error %", errFormat: "%.2f"}
	for s := range ripley.Sets {
		d, err := datasets.RipleySubset(s)
		if err != nil {
			return nil, err
		}
		res, err := search(ctx, opt, ripley.Grid, uint64(s), d.X, d.T, true)
		if err != nil {
			return nil, fmt.Errorf("selection study, Ripley subset %d: %w", s, err)
		}
		errs, err := candidateErrors(res, func(m vrvm.Estimator) (float64, error) {
			l, err := predictLabels(m, test.X)
			return 100 * float64(misclassified(l, test.T)) / float64(test.Len()), err
		})
		if err != nil {
			return nil, err
		}
		ripley.add(res, errs)
		rep.printf("[%d/%d] selection study: Ripley subset %d: width %g by cross-validation, %g by the bound", s+1, ripley.Sets, s, ripley.Grid[res.ByCV], ripley.Grid[res.ByBound])
	}
	return &Study{Rows: []StudyRow{sinc, ripley}, Wall: time.Since(start)}, nil
}

// candidateErrors returns the test error of every candidate's fit to all
// rows, NaN for a candidate whose fits failed.
func candidateErrors(res *selection.Result, testError func(vrvm.Estimator) (float64, error)) ([]float64, error) {
	errs := make([]float64, len(res.Candidates))
	for i, c := range res.Candidates {
		errs[i] = nan
		if c.Err == nil {
			e, err := testError(c.Model)
			if err != nil {
				return nil, err
			}
			errs[i] = e
		}
	}
	return errs, nil
}

// search runs the VRVM cross-validation and bound search on one data set.
func search(ctx context.Context, opt Options, grid []float64, seed uint64, x *mat.Dense, t []float64, classify bool) (*selection.Result, error) {
	s := selection.Search{Kernels: selection.GaussianKernels(grid...), Folds: CVFolds, Seed: seed, Workers: opt.workers()}
	s.Estimator = estimator(VRVMSequential, classify, nil, opt.MaxIter)
	res, err := s.Run(ctx, x, t)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, err
}
