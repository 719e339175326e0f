package vrvm

import (
	"context"
	"math"
	"strconv"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// A binary classifier on a fixed basis of C functions reads its rows, for
// given variational parameters ξₙ, only through sums: under the
// Jaakkola–Jordan bound (50) the expected log-likelihood is the Gaussian
// function of w of (53), so that
//
//	Q_w (54)–(55):  Σ = (diag⟨α⟩ + A)⁻¹,  μ = Σb,
//	                A = Σₙ 2λ(ξₙ)φₙφₙᵀ,  b = Σₙ (tₙ − ½)φₙ,
//	Q_α (57):       from μ and Σ alone, as (25),
//	bound (60):     ⟨ln F⟩ = K + μᵀb − ½ tr(A(Σ + μμᵀ)),
//	                K = Σₙ {ln σ(ξₙ) − ξₙ/2 + λ(ξₙ)ξₙ²}.
//
// The update of ξ (58), ξₙ² = φₙᵀ⟨wwᵀ⟩φₙ = (μᵀφₙ)² + φₙᵀΣφₙ, needs each
// row again: one pass over the rows per update of ξ, which gives the next
// A, b and K (ClassStats) and, with ξ at its optimum for the Q_w of the
// previous fit, the bound (60) of that fit, Σₙ {ln σ(ξₙ) + (tₙ − ½)μᵀφₙ
// − ξₙ/2}. Classifier.FitPasses alternates such passes with fits of Q_w
// and Q_α at fixed ξ until the bound converges; one iteration per pass is
// the paper's schedule (PaperSchedule) exactly.

// ClassStats holds one pass's statistics of binary labels on a fixed
// basis of C functions: A = Σₙ 2λ(ξₙ)φₙφₙᵀ, b = Σₙ (tₙ − ½)φₙ, the
// constant K of (60), the bound of the previous fit, N and the number of
// labels 1, where each row's ξₙ (58) is computed as it is added from the
// posterior Q_w of the previous fit, which the statistics carry (the
// first pass has none: ξₙ = Xi0). Classifier.FitPasses makes them;
// blocks of rows are added with AddRows, statistics of separate blocks of
// the same pass (Empty, or MarshalBinary sent to workers) combine with
// Merge, so that the rows can be read once per pass by many workers.
type ClassStats struct {
	c      int
	a      *mat.SymDense // Σₙ 2λ(ξₙ)φₙφₙᵀ
	b      []float64     // Σₙ (tₙ − ½)φₙ
	k      float64       // Σₙ {ln σ(ξₙ) − ξₙ/2 + λ(ξₙ)ξₙ²}
	lik    float64       // Σₙ {ln σ(ξₙ) + (tₙ − ½)μᵀφₙ − ξₙ/2}
	n, n1  int
	pass   int
	xi0    float64
	cols   []int         // active functions of the previous Q_w; nil on the first pass
	mu     []float64     // its mean
	sigma  *mat.SymDense // its covariance
	postID uint32        // checksum of the pass and posterior, for Merge
}

func newClassStats(c, pass int, xi0 float64, cols []int, mu []float64, sigma *mat.SymDense) *ClassStats {
	s := &ClassStats{c: c, a: mat.NewSymDense(c, nil), b: make([]float64, c), pass: pass, xi0: xi0, cols: cols, mu: mu, sigma: sigma}
	s.postID = s.posteriorID()
	return s
}

// Dim returns C, the number of basis functions.
func (s *ClassStats) Dim() int { return s.c }

// Rows returns N, the number of rows added.
func (s *ClassStats) Rows() int { return s.n }

// Pass returns the number of the pass the statistics belong to, from 1.
func (s *ClassStats) Pass() int { return s.pass }

// Empty returns statistics of no rows for the same pass and posterior as
// s, to accumulate another block of rows that Merge will add to s.
func (s *ClassStats) Empty() *ClassStats {
	return &ClassStats{c: s.c, a: mat.NewSymDense(s.c, nil), b: make([]float64, s.c), pass: s.pass, xi0: s.xi0,
		cols: s.cols, mu: s.mu, sigma: s.sigma, postID: s.postID}
}

// AddRows adds the rows of phi (one row per sample, the C basis functions
// at its input, as Basis.Design returns them) with their labels t, 0 or
// 1. It returns a *DimensionError if phi does not have C columns or t one
// value per row, a *LabelError for a label other than 0 and 1, and a
// *NonFiniteError for a NaN or infinite value, leaving s unchanged.
func (s *ClassStats) AddRows(phi mat.Matrix, t []float64) error {
	n, err := checkStatsRows(phi, t, s.c, "labels")
	if err != nil || n == 0 {
		return err
	}
	for i, v := range t {
		if v != 0 && v != 1 {
			return &LabelError{Row: i, Label: formatLabel(v), Reason: "is not 0 or 1"}
		}
	}
	p := denseOf(phi)
	if err := checkFiniteDense("design", p); err != nil {
		return err
	}
	m, e := s.moments(p)
	w := mat.NewDense(n, s.c, nil) // rows √(2λ(ξₙ)) φₙ
	half := make([]float64, n)
	var k, lik float64
	n1 := 0
	for i := range n {
		xi := math.Sqrt(math.Max(e[i], 0)) // (58)
		lam := Lambda(xi)
		f := math.Sqrt(2 * lam)
		dst := w.RawRowView(i)
		for j, v := range p.RawRowView(i) {
			dst[j] = f * v
		}
		half[i] = t[i] - 0.5
		if t[i] == 1 {
			n1++
		}
		k += LogSigmoid(xi) - xi/2 + lam*xi*xi                    // K of (60)
		lik += LogSigmoid(xi) + half[i]*m[i] - xi/2               // (60) with ξₙ² = φₙᵀ⟨wwᵀ⟩φₙ
		if math.IsInf(k, 0) || math.IsNaN(k) || math.IsNaN(lik) { // a latent mean beyond float64
			return &NonFiniteError{What: "ξ of the design row", Row: i, Col: -1, Value: xi}
		}
	}
	if err := checkGramDiag(w, s.a); err != nil {
		return err
	}
	raw, g := w.RawMatrix(), s.a.RawSymmetric()
	dense.Gram(1, raw, 1, blas64.General{Rows: s.c, Cols: s.c, Stride: g.Stride, Data: g.Data})
	dense.Gemv(blas.Trans, 1, p.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: half}, 1, blas64.Vector{N: s.c, Inc: 1, Data: s.b})
	s.k += k
	s.lik += lik
	s.n += n
	s.n1 += n1
	return nil
}

// moments returns, for each row φₙ of p, the latent mean mₙ = μᵀφₙ and
// the second moment φₙᵀ⟨wwᵀ⟩φₙ = mₙ² + φₙᵀΣφₙ under the previous Q_w
// (on its active functions), or 0 and ξ0² on the first pass.
func (s *ClassStats) moments(p *mat.Dense) (m, e []float64) {
	n, _ := p.Dims()
	m, e = make([]float64, n), make([]float64, n)
	if s.cols == nil {
		for i := range e {
			e[i] = s.xi0 * s.xi0
		}
		return m, e
	}
	pa := selectCols(p, s.cols)
	na := len(s.cols)
	mat.NewVecDense(n, m).MulVec(pa, mat.NewVecDense(na, s.mu))
	z := mat.NewDense(n, na, nil)
	full := mat.DenseCopyOf(s.sigma) // both triangles
	dense.Gemm(blas.NoTrans, blas.NoTrans, 1, pa.RawMatrix(), full.RawMatrix(), 0, z.RawMatrix())
	for i := range n {
		e[i] = m[i]*m[i] + blas64.Dot(blas64.Vector{N: na, Inc: 1, Data: z.RawRowView(i)}, blas64.Vector{N: na, Inc: 1, Data: pa.RawRowView(i)})
	}
	return m, e
}

// Merge adds the statistics o, of other rows in the same pass, to s. It
// returns a *DimensionError if o is for a different number of functions
// and an *OptionError if it belongs to another pass or posterior.
func (s *ClassStats) Merge(o *ClassStats) error {
	if o == nil || o.n == 0 {
		return nil
	}
	if o.c != s.c {
		return &DimensionError{What: "basis functions of merged statistics", Got: o.c, Want: s.c}
	}
	if o.pass != s.pass || o.postID != s.postID {
		return &OptionError{Field: "ClassStats.Pass", Value: float64(o.pass), Reason: "merged statistics belong to another pass or posterior"}
	}
	s.a.AddSym(s.a, o.a)
	for i, v := range o.b {
		s.b[i] += v
	}
	s.k += o.k
	s.lik += o.lik
	s.n += o.n
	s.n1 += o.n1
	return nil
}

// PassOptions controls Classifier.FitPasses.
type PassOptions struct {
	// MaxPasses bounds the number of passes over the rows; 0 means 50.
	MaxPasses int
	// Tol stops the passes when the bound (60) changes between two
	// passes by at most Tol relative to max(1, |L|); 0 means 1e-6.
	Tol float64
	// Inner is the number of iterations of Q_w (54)–(55) and Q_α (57)
	// at fixed ξ after each pass; 0 means until the bound at fixed ξ
	// changes by at most the Classifier's Tol and its ⟨αₘ⟩ by at most
	// its ParamTol, at most its MaxIter. Inner = 1 is the paper's
	// schedule (one pass per update of ξ), as PaperSchedule on the rows.
	Inner int
	// Progress, if not nil, is called after each pass with the pass's
	// number, its rows and the bound of the fit before it (from the
	// second pass); returning true stops the fit with status Stopped
	// (from the second pass: the first has no fit to stop at).
	Progress func(PassProgress) bool
}

// PassProgress reports a pass of Classifier.FitPasses.
type PassProgress struct {
	Pass   int     // from 1
	Rows   int     // rows the pass read
	Bound  float64 // the bound of the previous fit at its optimal ξ; 0 on the first pass
	Change float64 // the bound's relative change since the previous pass
	Active int     // basis functions of the previous fit's active set
}

func (o PassOptions) resolve() (PassOptions, error) {
	if o.MaxPasses == 0 {
		o.MaxPasses = 50
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	switch {
	case o.MaxPasses < 0:
		return o, &OptionError{Field: "PassOptions.MaxPasses", Value: float64(o.MaxPasses), Reason: "must be positive (0 means 50)"}
	case !(o.Tol > 0):
		return o, &OptionError{Field: "PassOptions.Tol", Value: o.Tol, Reason: "must be positive (0 means 1e-6)"}
	case o.Inner < 0:
		return o, &OptionError{Field: "PassOptions.Inner", Value: float64(o.Inner), Reason: "must be positive (0 means to convergence)"}
	}
	return o, nil
}

// passLik is the likelihood of a fit at fixed ξ from a pass's statistics
// (likelihood.Pass).
type passLik = lh.Pass

// FitPasses fits c on the fixed basis b from passes over its rows,
// without holding them: pass must add every training row once (by
// blocks, ClassStats.AddRows, or merged from workers) to the statistics
// it is given. The first pass is at ξₙ = Xi0; after each pass, Q_w
// (54)–(55) and Q_α (57) are fitted at fixed ξ (o.Inner), and the next
// pass computes each ξₙ (58) from that fit, with the fit's bound (60),
// until the bound converges (o.Tol) or o.MaxPasses. The options Prior,
// Alpha0, Xi0, NoPrune, PruneAlpha, MaxIter, Tol and ParamTol apply;
// the basis replaces Kernel, NoBias and Centres and is fitted as given
// (as NoRescale); LearnKernel is an *OptionError; Monitor, Method and
// the augmentation of predictions do not apply. Iterations reports the
// passes and Trace the bound after each. The model predicts, saves and
// loads as one fitted by Fit; Xi is empty.
func (c *Classifier) FitPasses(ctx context.Context, b Basis, o PassOptions, pass func(context.Context, *ClassStats) error) error {
	prev := c.classificationFit
	err := c.fitPasses(ctx, b, o, pass)
	if c.settle(ctx, err) {
		c.classificationFit = prev
	}
	return err
}

func (c *Classifier) fitPasses(ctx context.Context, b Basis, o PassOptions, pass func(context.Context, *ClassStats) error) error {
	c.classificationFit = classificationFit{fitted{task: "classification", estimator: "vrvm"}}
	if c.LearnKernel {
		return &OptionError{Field: "LearnKernel", Reason: "kernel learning needs the rows, not their statistics"}
	}
	o, err := o.resolve()
	if err != nil {
		return err
	}
	bs, err := b.basis()
	if err != nil {
		return err
	}
	opts := c.options()
	opts.kernel, opts.noBias, opts.method, opts.monitor = b.Kernel, b.NoBias, PaperSchedule{}, nil
	set, err := opts.resolve()
	if err != nil {
		return err
	}
	xi0 := c.Xi0
	switch {
	case xi0 == 0:
		xi0 = 1
	case !(xi0 > 0) || math.IsInf(xi0, 0):
		return &OptionError{Field: "Xi0", Value: xi0, Reason: "must be positive and finite (0 means 1)"}
	}
	dim := bs.size()
	lik := &passLik{}
	s := &scheduleState{lik: lik, prior: set.prior, cols: seq(dim), signedResid: true}
	s.q.Ctx = ctx
	s.alpha = gammaOf(set.prior, constant(dim, set.alpha0))
	d := passDriver{s: s, set: set, o: o, lik: lik}
	st := newClassStats(dim, 1, xi0, nil, nil, nil)
	for {
		if err := pass(ctx, st); err != nil {
			return d.stop(ctx, err)
		}
		if err := checkPass(st); err != nil {
			return err
		}
		if done, err := d.next(ctx, st); done || err != nil {
			if d.trace == nil {
				return err
			}
			_, err = c.finish(&problem{basis: bs, lik: lik, set: set}, s.solution(d.trace, d.passes, d.status), nil, variational{}, err)
			return err
		}
		st = newClassStats(dim, st.pass+1, xi0, append([]int(nil), s.cols...), append([]float64(nil), s.q.Mu...), s.q.sigma())
	}
}

// checkPass returns an error for a pass without rows or with one class.
func checkPass(st *ClassStats) error {
	switch {
	case st.n == 0:
		return ErrNoData
	case st.n1 == 0 || st.n1 == st.n:
		return ErrSingleClass
	}
	return nil
}

// passDriver alternates passes and fits at fixed ξ.
type passDriver struct {
	s      *scheduleState
	set    settings
	o      PassOptions
	lik    *passLik
	trace  []float64
	passes int
	status Status
	last   float64 // bound of the last fit at the ξ of its pass
}

// stop turns a pass's error into the fit's: a cancelled context stops
// the fit (with the state of the last fit, if any).
func (d *passDriver) stop(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return stopped(ctx, d.passes)
	}
	return err
}

// next takes the statistics of a pass: from the second pass, it records
// the bound of the previous fit at its optimal ξ and stops when it has
// converged; otherwise it fits Q_w and Q_α at the pass's ξ. done reports
// the end of the passes.
func (d *passDriver) next(ctx context.Context, st *ClassStats) (done bool, err error) {
	s := d.s
	d.passes = st.pass
	if st.pass > 1 {
		l := s.alpha.bound(s.prior, &s.q, [3]float64{0, 0, st.lik}) // (60) at ξ optimal (58)
		change := math.Inf(1)
		if len(d.trace) > 0 {
			change = relChange(d.trace[len(d.trace)-1], l)
		}
		d.trace = append(d.trace, l)
		d.loadDiag(st)
		if d.o.Progress != nil && d.o.Progress(PassProgress{Pass: st.pass, Rows: st.n, Bound: l, Change: change, Active: len(s.cols)}) {
			d.status = Stopped
			return true, nil
		}
		if change <= d.o.Tol {
			d.status = Converged
			return true, nil
		}
	} else if d.o.Progress != nil {
		d.o.Progress(PassProgress{Pass: 1, Rows: st.n})
	}
	s.gram, s.phiD = selectSym(st.a, s.cols), selectVec(st.b, s.cols)
	d.lik.SetK(st.k)
	d.loadDiag(st)
	if err := d.inner(ctx); err != nil {
		if d.trace != nil {
			d.status = Canceled
		}
		return true, err
	}
	if st.pass >= d.o.MaxPasses {
		// No pass follows: the bound at the last pass's ξ.
		d.trace = append(d.trace, d.last)
		d.status = IterationLimit
		return true, nil
	}
	return false, nil
}

// loadDiag keeps diag A of every candidate function, the precisions of
// the functions excluded from the full-model bound.
func (d *passDriver) loadDiag(st *ClassStats) {
	d.s.fullDiag = make([]float64, st.c)
	for i := range st.c {
		d.s.fullDiag[i] = st.a.At(i, i)
	}
}

// inner iterates the paper's order at fixed ξ: prune (but before the
// first update of Q_w), Q_w (54)–(55), Q_α (57), the bound (60).
func (d *passDriver) inner(ctx context.Context) error {
	s, set := d.s, d.set
	limit := d.o.Inner
	if limit == 0 {
		limit = set.maxIter
	}
	prev := s.params(nil)
	var cur []float64
	first := len(s.q.Mu) == 0
	for k := 1; k <= limit; k++ {
		if err := stopped(ctx, d.passes); err != nil {
			return err
		}
		pruned := false
		if !first && set.prune {
			pruned = s.prune(set.pruneAt)
		}
		first = false
		if err := s.updateW(k); err != nil {
			if ctx.Err() != nil {
				return stopped(ctx, d.passes)
			}
			return err
		}
		s.updateAlpha()
		l := s.bound()
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return &NotPositiveDefiniteError{Iteration: k}
		}
		change := relChange(d.last, l)
		d.last = l
		cur = s.params(cur)
		pc := maxRelChange(prev, cur)
		prev, cur = cur, prev
		if k > 1 && !pruned && change <= set.tol && pc <= set.paramTol {
			break
		}
	}
	return nil
}

func formatLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
