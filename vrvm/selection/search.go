package selection

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/parallel"
	"github.com/vrvm/vrvm/vrvm"
)

// DefaultFolds is the number of folds when Search.Folds is zero: the
// paper's 5-fold cross-validation.
const DefaultFolds = 5

var (
	// ErrNoKernels is returned by a search without candidates.
	ErrNoKernels = errors.New("selection: no candidate kernels")
	// ErrEstimator is returned by a search without an estimator template.
	ErrEstimator = errors.New("selection: Search.Estimator is not set")
)

// FitError is the error of a fit made by a search: the candidate, the
// fold (−1 for the fit to all rows) and the error of the estimator.
type FitError struct {
	Candidate int
	Kernel    vrvm.Kernel
	Fold      int
	Err       error
}

func (e *FitError) Error() string {
	where := "the fit to all rows"
	if e.Fold >= 0 {
		where = fmt.Sprintf("fold %d", e.Fold+1)
	}
	return fmt.Sprintf("selection: candidate %d (%s), %s: %v", e.Candidate, Describe(e.Kernel), where, e.Err)
}

func (e *FitError) Unwrap() error { return e.Err }

// Search is a kernel search by cross-validation and by the lower bound.
// Set the estimator template and at least one candidate kernel; the other
// fields are optional, and their zero values mean the defaults. Run never
// modifies a Search or its template.
type Search struct {
	// Estimator is the template whose kernel is selected, with its
	// options, for example &vrvm.Regressor{MaxIter: 2000}. Every fit uses
	// its WithKernel copy for the candidate (without Monitor).
	Estimator vrvm.Estimator

	// Kernels are the candidates, for example GaussianKernels(1, 2, 3).
	Kernels []vrvm.Kernel

	// Folds is the number k of cross-validation folds; 0 means
	// DefaultFolds. It must satisfy 2 ≤ k ≤ N.
	Folds int
	// Seed determines the fold assignment.
	Seed uint64
	// PlainFolds makes a classifier's folds plain KFold folds instead of
	// StratifiedKFold folds. Regression folds are always plain.
	PlainFolds bool

	// Workers is the number of fits run at once; 0 means
	// runtime.GOMAXPROCS(0). It must not be negative.
	Workers int
	// Progress, if not nil, is called after every fit, from one goroutine
	// at a time.
	Progress func(Step)
}

// Step describes one finished fit of a search, for Search.Progress.
type Step struct {
	Candidate   int         // index into Search.Kernels
	Kernel      vrvm.Kernel // the candidate
	Fold        int         // 0-based fold left out, or −1 for the fit to all rows
	Done, Total int         // fits finished so far, fits in the search
	Status      vrvm.Status // how the fit ended
	Err         error       // the fit's error, if any
	Elapsed     time.Duration
}

// Result is the outcome of Search.Run.
type Result struct {
	// Folds holds the rows of each fold (the held-out rows of fit i).
	Folds [][]int
	// Candidates holds one entry per kernel, in the order of Search.Kernels.
	Candidates []Candidate
	// ByCV is the index of the candidate with the least cross-validation
	// error (ties: least NLP, then the first); ByBound the index of the
	// one with the largest lower bound (or log evidence) of the fit to all
	// rows. Candidates with an error are not chosen.
	ByCV, ByBound int
}

// Agree reports whether cross-validation and the bound chose the same
// candidate.
func (r *Result) Agree() bool { return r.ByCV == r.ByBound }

// Candidate is the evaluation of one candidate kernel.
type Candidate struct {
	Kernel vrvm.Kernel

	// CVError is the pooled cross-validation error: the mean squared
	// error (regression) or the misclassification rate (classification)
	// of the held-out predictions over all N rows. FoldErrors holds the
	// same error on each fold.
	CVError    float64
	FoldErrors []float64
	// NLP is the mean negative log predictive probability (density, for
	// regression) of the held-out targets; see the package documentation.
	NLP float64
	// FoldStatus tells how each fold's fit ended.
	FoldStatus []vrvm.Status

	// Bound is the final lower bound L of the fit to all rows as the
	// estimator reports it (LowerBound: the log evidence for the type-II
	// RVM); RelevanceVectors, Status and Iterations describe the same fit.
	Bound float64
	// FullBound is the estimator's FullModelBound: the lower bound of the
	// paper's full model, with all N+1 basis functions, at the solution of
	// the fit (see the package documentation). It is the criterion of
	// ByBound. It equals Bound for the type-II RVM, whose pruned functions
	// (αₘ = ∞) contribute nothing to the evidence, and for fits without
	// pruning.
	FullBound        float64
	RelevanceVectors int
	Status           vrvm.Status
	Iterations       int

	// Model is the fit to all rows.
	Model vrvm.Estimator

	// Time is the total duration of the candidate's k + 1 fits.
	Time time.Duration
	// Err is the first error of the candidate's fits (a *FitError), or
	// nil. A candidate with an error has NaN scores and is never chosen.
	Err error
}

// GaussianKernels returns Gaussian kernels of the given widths, in order.
func GaussianKernels(widths ...float64) []vrvm.Kernel {
	ks := make([]vrvm.Kernel, len(widths))
	for i, w := range widths {
		ks[i] = vrvm.Gaussian{Width: w}
	}
	return ks
}

// Describe returns a short description of a kernel such as
// "Gaussian(width=0.5)" for messages and tables: its String method, or
// its type.
func Describe(k vrvm.Kernel) string {
	if k == nil {
		return "nil kernel"
	}
	if s, ok := k.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", k)
}

// Run evaluates every candidate on x (one row per example) and targets t
// and returns the scores and both choices. It returns ctx.Err() if ctx is
// cancelled, and an error before any fit for an invalid search or data.
// If every candidate failed, Run returns the result, whose candidates hold
// their errors, together with the first candidate's error.
func (s *Search) Run(ctx context.Context, x mat.Matrix, t []float64) (*Result, error) {
	folds, err := s.split(x, t)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	res := &Result{Folds: folds, Candidates: make([]Candidate, len(s.Kernels))}
	var jobs []searchJob
	for c := range s.Kernels {
		for f := range folds {
			jobs = append(jobs, searchJob{c, f})
		}
		jobs = append(jobs, searchJob{c, -1})
	}
	out, err := s.runJobs(ctx, jobs, folds, x, t)
	if err != nil {
		return nil, err
	}
	j := 0
	for c := range res.Candidates {
		j = s.tally(&res.Candidates[c], c, out, j, folds, n)
	}
	res.choose()
	if res.ByCV < 0 {
		return res, res.Candidates[0].Err
	}
	return res, nil
}

// split checks the search and the data and returns the folds of the
// cross-validation.
func (s *Search) split(x mat.Matrix, t []float64) ([][]int, error) {
	if s.Estimator == nil {
		return nil, ErrEstimator
	}
	classify := s.Estimator.Task() == vrvm.Classification
	if len(s.Kernels) == 0 {
		return nil, ErrNoKernels
	}
	for i, k := range s.Kernels {
		if k == nil {
			return nil, fmt.Errorf("selection: candidate %d is a nil kernel", i)
		}
	}
	if s.Workers < 0 {
		return nil, fmt.Errorf("selection: Workers = %d is negative (0 means GOMAXPROCS)", s.Workers)
	}
	if err := checkData(x, t, classify); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	k := s.Folds
	if k == 0 {
		k = DefaultFolds
	}
	if classify && !s.PlainFolds {
		return StratifiedKFold(t, k, s.Seed)
	}
	return KFold(n, k, s.Seed)
}

// searchJob is one fit of a search: candidate cand on the training rows
// of fold fold, or on every row if fold is −1.
type searchJob struct{ cand, fold int }

// searchOutcome is what a searchJob leaves.
type searchOutcome struct {
	loss, nlp float64 // sums over the held-out rows
	fitted    vrvm.Estimator
	status    vrvm.Status
	elapsed   time.Duration
	err       error
}

// runJobs fits every job on Workers goroutines, reporting each to
// Progress. Every job records its error in its outcome; only a cancelled
// ctx stops the search.
func (s *Search) runJobs(ctx context.Context, jobs []searchJob, folds [][]int, x mat.Matrix, t []float64) ([]searchOutcome, error) {
	n, _ := x.Dims()
	out := make([]searchOutcome, len(jobs))
	train := make([]*mat.Dense, len(folds))
	trainT := make([][]float64, len(folds))
	test := make([]*mat.Dense, len(folds))
	testT := make([][]float64, len(folds))
	all := mat.DenseCopyOf(x)
	for f, rows := range folds {
		test[f], testT[f] = subset(all, t, rows)
		train[f], trainT[f] = subset(all, t, complement(n, rows))
	}
	workers := s.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	done := 0
	err := parallel.Run(ctx, workers, len(jobs), func(ctx context.Context, j int) error {
		jb := jobs[j]
		m := s.Estimator.WithKernel(s.Kernels[jb.cand])
		o := &out[j]
		start := time.Now()
		if jb.fold < 0 {
			o.err = m.FitContext(ctx, all, t)
		} else {
			o.err = m.FitContext(ctx, train[jb.fold], trainT[jb.fold])
			if o.err == nil {
				o.loss, o.nlp, o.err = score(m, test[jb.fold], testT[jb.fold])
			}
		}
		o.elapsed = time.Since(start)
		o.status = m.Status()
		o.fitted = m
		if o.err != nil && ctx.Err() == nil {
			o.err = &FitError{Candidate: jb.cand, Kernel: s.Kernels[jb.cand], Fold: jb.fold, Err: o.err}
		}
		if s.Progress != nil {
			mu.Lock()
			done++
			s.Progress(Step{Candidate: jb.cand, Kernel: s.Kernels[jb.cand], Fold: jb.fold,
				Done: done, Total: len(jobs), Status: o.status, Err: o.err, Elapsed: o.elapsed})
			mu.Unlock()
		}
		return nil
	})
	return out, err
}

// tally fills candidate c's scores from the outcomes of its jobs, which
// start at out[j] (one per fold, then the fit on every row), and returns
// the index of the next candidate's first job.
func (s *Search) tally(cd *Candidate, c int, out []searchOutcome, j int, folds [][]int, n int) int {
	cd.Kernel = s.Kernels[c]
	cd.FoldErrors = make([]float64, len(folds))
	cd.FoldStatus = make([]vrvm.Status, len(folds))
	var loss, nlp float64
	for f := range folds {
		o := out[j]
		j++
		cd.Time += o.elapsed
		cd.FoldStatus[f] = o.status
		if o.err != nil && cd.Err == nil {
			cd.Err = o.err
		}
		loss += o.loss
		nlp += o.nlp
		cd.FoldErrors[f] = o.loss / float64(len(folds[f]))
	}
	o := out[j]
	j++
	cd.Time += o.elapsed
	if o.err != nil && cd.Err == nil {
		cd.Err = o.err
	}
	if cd.Err != nil {
		cd.CVError, cd.NLP, cd.Bound, cd.FullBound = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return j
	}
	cd.CVError = loss / float64(n)
	cd.NLP = nlp / float64(n)
	m := o.fitted
	cd.Model = m
	cd.Bound, cd.FullBound = m.LowerBound(), m.FullModelBound()
	cd.RelevanceVectors, cd.Status, cd.Iterations = len(m.RelevanceVectors()), m.Status(), m.Iterations()
	return j
}

// choose sets ByCV (the lowest CV error, ties to the lowest NLP) and
// ByBound (the highest full-model bound) among the candidates without an
// error, −1 if there are none.
func (res *Result) choose() {
	res.ByCV, res.ByBound = -1, -1
	for c, cd := range res.Candidates {
		if cd.Err != nil {
			continue
		}
		if b := res.ByCV; b < 0 || cd.CVError < res.Candidates[b].CVError ||
			(cd.CVError == res.Candidates[b].CVError && cd.NLP < res.Candidates[b].NLP) {
			res.ByCV = c
		}
		if b := res.ByBound; b < 0 || cd.FullBound > res.Candidates[b].FullBound {
			res.ByBound = c
		}
	}
}

// checkData validates the data once, so that errors name the rows of x
// rather than those of a fold.
func checkData(x mat.Matrix, t []float64, classify bool) error {
	if x == nil {
		return vrvm.ErrNoData
	}
	n, d := x.Dims()
	if n == 0 {
		return vrvm.ErrNoData
	}
	if d == 0 {
		return vrvm.ErrNoColumns
	}
	if len(t) != n {
		return &vrvm.DimensionError{What: "number of targets vs rows of x", Got: len(t), Want: n}
	}
	for i := range n {
		for j := range d {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return &vrvm.NonFiniteError{What: "x", Row: i, Col: j, Value: v}
			}
		}
	}
	var ones int
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &vrvm.NonFiniteError{What: "t", Row: i, Col: -1, Value: v}
		}
		if classify {
			switch v {
			case 0:
			case 1:
				ones++
			default:
				return &vrvm.LabelError{Row: i, Label: strconv.FormatFloat(v, 'g', -1, 64), Reason: "is not 0 or 1"}
			}
		}
	}
	if classify && (ones == 0 || ones == n) {
		return vrvm.ErrSingleClass
	}
	return nil
}

// subset returns the listed rows of x and t.
func subset(x *mat.Dense, t []float64, rows []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	xs := mat.NewDense(len(rows), d, nil)
	ts := make([]float64, len(rows))
	for i, r := range rows {
		xs.SetRow(i, x.RawRowView(r))
		ts[i] = t[r]
	}
	return xs, ts
}

// complement returns the rows of 0, …, n−1 not in sorted rows.
func complement(n int, rows []int) []int {
	out := make([]int, 0, n-len(rows))
	j := 0
	for i := range n {
		if j < len(rows) && rows[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

// score returns the summed loss and negative log predictive probability
// of the fitted model m on x, t.
func score(m vrvm.Estimator, x mat.Matrix, t []float64) (loss, nlp float64, err error) {
	mean, variance, err := m.Latent(x)
	if err != nil {
		return 0, 0, err
	}
	if m.Task() == vrvm.Classification {
		return clsScore(mean, variance, t)
	}
	noise := m.NoiseSD() * m.NoiseSD()
	for i := range variance {
		variance[i] += noise
	}
	return regScore(mean, variance, t)
}

// PrunedContribution returns the limit of the terms of the lower bound L
// that belong to one basis function m as its weight is pruned, ⟨wₘ²⟩ → 0:
//
//	⟨ln p(wₘ|αₘ)⟩ + H[wₘ] + ⟨ln p(αₘ)⟩ + H[Q_αₘ] → lnΓ(a+½) − lnΓ(a) − ½ln(a+½),
//
// with Σₘₘ = 1/⟨αₘ⟩ and Q_αₘ = Γ(a+½, b), for the Gamma(a, b) hyperprior
// (41)–(45) of the weight precisions. It does not depend on b. A zero a
// means vrvm.DefaultPrior; for a = 10⁻⁶ the value is −12.897.
func PrunedContribution(a float64) float64 {
	if a == 0 {
		a = vrvm.DefaultPrior
	}
	g1, _ := math.Lgamma(a + 0.5)
	g0, _ := math.Lgamma(a)
	return g1 - g0 - 0.5*math.Log(a+0.5)
}

// regScore sums the squared errors and −ln N(t | mean, variance).
func regScore(mean, variance, t []float64) (loss, nlp float64, _ error) {
	for i, m := range mean {
		r := t[i] - m
		loss += r * r
		nlp += 0.5*math.Log(2*math.Pi*variance[i]) + r*r/(2*variance[i])
	}
	return loss, nlp, nil
}

// clsScore counts the misclassifications (label 1 where the activation
// mean is positive) and sums −ln of the moderated probability
// σ(κ(s²)μ), κ(s²) = (1 + πs²/8)^(−1/2), of the true labels.
func clsScore(mean, variance, t []float64) (loss, nlp float64, _ error) {
	for i, m := range mean {
		z := m / math.Sqrt(1+math.Pi*variance[i]/8)
		if t[i] != 1 {
			z = -z // ln(1 − σ(z)) = ln σ(−z)
		}
		nlp -= vrvm.LogSigmoid(z)
		if (m > 0) != (t[i] == 1) {
			loss++
		}
	}
	return loss, nlp, nil
}
