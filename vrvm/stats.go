package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// A regression on a fixed basis of C functions needs its rows only
// through sufficient statistics. Every update and every term of the
// bound reads the design and the targets in five quantities, ΦᵀΦ (C × C),
// Φᵀt, tᵀt, Σₙtₙ and N:
//
//	Q_w (23)–(24):  Σ = (diag⟨α⟩ + ⟨τ⟩ΦᵀΦ)⁻¹,  μ = ⟨τ⟩ΣΦᵀt
//	Q_α (25):       b̃ₘ = b + ⟨wₘ²⟩/2, from μ and Σ alone
//	Q_τ (26)–(27):  c̃ = c + N/2,  d̃ = d + ½Σₙ⟨(tₙ − wᵀφₙ)²⟩
//	bound (40):     N/2 ⟨ln τ⟩ − N/2 ln 2π − ⟨τ⟩/2 Σₙ⟨(tₙ − wᵀφₙ)²⟩
//
// and the expected squared error of (27) and (40), the only place where
// the rows enter once Q_w is known, is
//
//	Σₙ⟨(tₙ − wᵀφₙ)²⟩ = ‖t − Φμ‖² + tr(ΦΣΦᵀ)
//	                 = tᵀt − 2μᵀΦᵀt + tr(ΦᵀΦ(Σ + μμᵀ))
//	                 = tᵀt − 2μᵀΦᵀt + μᵀΦᵀΦμ + (C − Σₘ⟨αₘ⟩Σₘₘ)/⟨τ⟩,
//
// the last term since Σ(diag⟨α⟩ + ⟨τ⟩ΦᵀΦ) = I. The terms (41)–(46) read
// Q_w, Q_α and Q_τ only, and the full-model bound's excluded functions
// (FullModelBound) their precisions sₘ = ⟨τ⟩φₘᵀφₘ, the diagonal of
// ⟨τ⟩ΦᵀΦ. Σₙtₙ and tᵀt give the targets' variance, from which the
// defaults are set as for the rows (⟨τ⟩ starts at 1/var(t); (T1)).

// Stats holds the sufficient statistics of regression targets on a fixed
// basis of C functions: ΦᵀΦ, Φᵀt, tᵀt, Σₙtₙ and the number of rows N.
// Blocks of rows are added with AddRows, in any order and any number of
// blocks, and the statistics of separate blocks combine with Merge, so
// that data beyond memory can be read once and fitted with
// Regressor.FitStats; MarshalBinary and UnmarshalBinary carry them
// between processes and files (a versioned, checksummed format,
// statsio.go). The zero value is not usable: make one with NewStats (or
// UnmarshalBinary). docs/streaming.md describes the streamed fits.
type Stats struct {
	c    int
	gram *mat.SymDense // ΦᵀΦ
	phiT []float64     // Φᵀt
	tt   float64       // tᵀt
	sum  float64       // Σₙ tₙ
	n    int
}

// NewStats returns empty statistics for a basis of c functions (see
// Basis.Dim). It panics if c is not positive.
func NewStats(c int) *Stats {
	if c <= 0 {
		panic("vrvm: NewStats: the number of basis functions must be positive")
	}
	return &Stats{c: c, gram: mat.NewSymDense(c, nil), phiT: make([]float64, c)}
}

// Dim returns C, the number of basis functions.
func (s *Stats) Dim() int { return s.c }

// Rows returns N, the number of rows added.
func (s *Stats) Rows() int { return s.n }

// AddRows adds the rows of phi (one row per sample, the C basis
// functions at its input, as Basis.Design returns them) with their
// targets t. It returns a *DimensionError if phi does not have C columns
// or t one value per row, and a *NonFiniteError for a NaN or infinite
// value (or one whose square overflows), leaving s unchanged.
func (s *Stats) AddRows(phi mat.Matrix, t []float64) error {
	n, err := checkStatsRows(phi, t, s.c, "targets")
	if err != nil || n == 0 {
		return err
	}
	p := denseOf(phi)
	if err := checkFiniteDense("design", p); err != nil {
		return err
	}
	var tt, sum float64
	for i, v := range t {
		if v*v-v*v != 0 { // NaN, ±Inf, or a square beyond float64
			return &NonFiniteError{What: "t", Row: i, Col: -1, Value: v}
		}
		tt += v * v
		sum += v
	}
	if err := checkGramDiag(p, s.gram); err != nil {
		return err
	}
	s.addBlock(p, t)
	s.tt += tt
	s.sum += sum
	s.n += n
	return nil
}

// addBlock adds ΦᵀΦ to s.gram and Φᵀy to s.phiT through the project's
// dense products (internal/dense), in place.
func (s *Stats) addBlock(p *mat.Dense, y []float64) {
	raw := p.RawMatrix()
	g := s.gram.RawSymmetric()
	n := raw.Rows
	dense.Gram(1, raw, 1, blas64.General{Rows: s.c, Cols: s.c, Stride: g.Stride, Data: g.Data})
	dense.Gemv(blas.Trans, 1, raw, blas64.Vector{N: n, Inc: 1, Data: y}, 1, blas64.Vector{N: s.c, Inc: 1, Data: s.phiT})
}

// checkGramDiag returns a *NonFiniteError if adding the block p's ΦᵀΦ to
// gram would overflow its diagonal (the largest entries of a Gram
// matrix), before anything is added.
func checkGramDiag(p *mat.Dense, gram *mat.SymDense) error {
	n, c := p.Dims()
	d := make([]float64, c)
	for i := range c {
		d[i] = gram.At(i, i)
	}
	for r := range n {
		for j, v := range p.RawRowView(r) {
			d[j] += v * v
		}
	}
	for i, v := range d {
		if math.IsInf(v, 0) {
			return &NonFiniteError{What: "ΦᵀΦ of the design", Row: i, Col: i, Value: v}
		}
	}
	return nil
}

// Merge adds the statistics o (of other rows on the same basis) to s. It
// returns a *DimensionError if o is for a different number of functions.
func (s *Stats) Merge(o *Stats) error {
	if o == nil || o.n == 0 {
		return nil
	}
	if o.c != s.c {
		return &DimensionError{What: "basis functions of merged statistics", Got: o.c, Want: s.c}
	}
	s.add(o.gram, o.phiT, o.tt, o.sum, o.n)
	return nil
}

func (s *Stats) add(gram *mat.SymDense, phiT []float64, tt, sum float64, n int) {
	s.gram.AddSym(s.gram, gram)
	for i, v := range phiT {
		s.phiT[i] += v
	}
	s.tt += tt
	s.sum += sum
	s.n += n
}

// variance returns the targets' population variance, tᵀt/N − (Σₙtₙ/N)²,
// 0 where rounding makes it negative.
func (s *Stats) variance() float64 {
	m := s.sum / float64(s.n)
	return math.Max(0, s.tt/float64(s.n)-m*m)
}

// Basis is a fixed basis of kernel functions: the bias φ₀ = 1 (unless
// NoBias), then Kernel centred at each row of Centres, in order. It is
// the basis a Regressor fits with a kernel, its centres chosen by the
// caller.
type Basis struct {
	Kernel  Kernel
	Centres mat.Matrix
	NoBias  bool
}

// Dim returns the number of basis functions, C: the rows of Centres,
// plus one for the bias.
func (b Basis) Dim() int {
	c := 0
	if b.Centres != nil {
		c, _ = b.Centres.Dims()
	}
	if !b.NoBias {
		c++
	}
	return c
}

// Design returns the N × C design of the basis at the rows of x, one row
// per input, the bias column first: the rows that Stats.AddRows takes.
// For a Gaussian kernel on a processor with AVX-512 its values are
// formed eight at a time and may differ from the kernel's Eval in the
// last bit.
// It returns an error for a nil or invalid kernel, centres or inputs
// that are empty or not finite, and inputs whose number of columns
// differs from the centres'.
func (b Basis) Design(x mat.Matrix) (*mat.Dense, error) {
	bs, err := b.basis()
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, ErrNoData
	}
	if _, d := x.Dims(); d != bs.dim {
		return nil, &DimensionError{What: "input columns", Got: d, Want: bs.dim}
	}
	if err := checkFinite("x", x); err != nil {
		return nil, err
	}
	if phi := gaussDesign(bs, denseOf(x)); phi != nil {
		return phi, nil // statsdesign.go
	}
	return bs.full(x)
}

// basis checks b and returns it as the library's basis.
func (b Basis) basis() (basis, error) {
	if b.Kernel == nil {
		return basis{}, &OptionError{Field: "Basis.Kernel", Reason: "a fixed basis needs a kernel"}
	}
	if err := validateKernel(b.Kernel); err != nil {
		return basis{}, err
	}
	if b.Centres == nil {
		return basis{}, ErrNoData
	}
	n, d := b.Centres.Dims()
	if n == 0 {
		return basis{}, ErrNoData
	}
	if d == 0 {
		return basis{}, ErrNoColumns
	}
	if err := checkFinite("centres", b.Centres); err != nil {
		return basis{}, err
	}
	if err := checkKernelDim(b.Kernel, d); err != nil {
		return basis{}, err
	}
	bs := basis{kernel: b.Kernel, bias: !b.NoBias, dim: d, centers: mat.DenseCopyOf(b.Centres)}
	return bs, bs.checkScale()
}

// FitStats fits the model on the fixed basis b from the sufficient
// statistics s of its rows (AddRows), without the rows, by Method from
// the options Prior, Alpha0, Tau0, NoPrune, PruneAlpha, MaxIter, Tol,
// ParamTol and Monitor. The paper's schedule (PaperSchedule) runs on the
// statistics themselves; the other methods (Sequential, the default, and
// Newton) on at most C pseudo-rows with the same ΦᵀΦ and Φᵀt, whose
// residual differs from the rows' by a constant (statsrows.go), so that
// the fit costs that of an ordinary fit on C rows whatever N. Either way
// its fit is that of Fit with the same solver on the rows whose
// statistics s holds, with b's centres as the candidate functions (the
// same updates; the same bound to rounding, or to the solvers' tolerance
// where they work on a factor of the design). The basis replaces Kernel,
// NoBias and Centres; LearnKernel (an *OptionError), KeepDuplicates and
// the augmentation of predictions (never: it needs the rows) do not
// apply. RelevanceVectors and ActiveSet report rows of b.Centres. The
// model predicts, saves and loads as one fitted by Fit.
func (r *Regressor) FitStats(b Basis, s *Stats) error {
	return r.FitStatsContext(context.Background(), b, s)
}

// FitStatsContext is FitStats with a context, as FitContext.
func (r *Regressor) FitStatsContext(ctx context.Context, b Basis, s *Stats) error {
	prev, dup := r.regressionFit, r.duplicates
	err := r.fitStats(ctx, b, s)
	if r.settle(ctx, err) { // the fit contract
		r.regressionFit, r.duplicates = prev, dup
	}
	return err
}

func (r *Regressor) fitStats(ctx context.Context, b Basis, st *Stats) error {
	r.regressionFit = regressionFit{fitted{task: "regression", estimator: "vrvm"}}
	r.duplicates = 0
	if r.LearnKernel {
		return &OptionError{Field: "LearnKernel", Reason: "kernel learning needs the rows, not their statistics"}
	}
	bs, err := b.basis()
	if err != nil {
		return err
	}
	if st == nil || st.n == 0 {
		return ErrNoData
	}
	if st.c != bs.size() {
		return &DimensionError{What: "basis functions of the statistics", Got: st.c, Want: bs.size()}
	}
	v, scale := st.variance(), 1.0
	if v > 0 {
		if scale, err = varScale(v); err != nil {
			return err
		}
	}
	opts := r.options()
	opts.kernel, opts.noBias = b.Kernel, b.NoBias
	r.weightScale = targetScale(&opts, r, scale)
	set, err := opts.resolve()
	if err != nil {
		return err
	}
	tau0 := r.Tau0
	switch {
	case tau0 == 0 && !(v > 0):
		return ErrConstantTargets
	case tau0 == 0:
		tau0 = 1 / v
		if math.IsInf(tau0, 0) {
			return ErrTargetScale
		}
	case !(tau0 > 0) || math.IsInf(tau0, 0):
		return &OptionError{Field: "Tau0", Value: tau0, Reason: "must be positive and finite (0 means 1/var(t))"}
	}
	lik := newGaussLikRows(nil, st.n, set.prior, tau0)
	p := &problem{basis: bs, lik: lik, set: set}
	var sol *solution
	if set.method == (PaperSchedule{}) {
		sol, err = fitScheduleStats(ctx, st, p)
	} else {
		sol, err = fitPseudoRows(ctx, st, p, lik) // (P1), statsrows.go
	}
	if _, err = r.finish(p, sol, nil, variational{}, err); sol != nil {
		f := lik.Factor(nil) // c̃, d̃
		r.ct, r.dt = f[0], f[1]
		r.noise = r.dt / r.ct
	}
	return err
}

// fitScheduleStats runs the paper's schedule (schedule.go) on the
// statistics st of problem p's basis, whose likelihood is Gaussian.
func fitScheduleStats(ctx context.Context, st *Stats, p *problem) (*solution, error) {
	c := st.c
	s := &scheduleState{lik: p.lik, prior: p.set.prior, cols: seq(c), dd: st.tt}
	s.q.Ctx = ctx
	s.gram = mat.NewSymDense(c, nil)
	s.gram.CopySym(st.gram)
	s.phiD = append([]float64(nil), st.phiT...)
	s.fullDiag = make([]float64, c)
	for i := range c {
		s.fullDiag[i] = st.gram.At(i, i)
	}
	s.alpha = gammaOf(p.set.prior, constant(c, p.set.alpha0)) // ⟨αₘ⟩ = alpha0, ãₘ = a + ½
	trace, iters, status, err := s.run(ctx, p.set)
	if status == NotFitted {
		return nil, err
	}
	return s.solution(trace, iters, status), err
}

// statsResid returns ‖t − Φμ‖² = tᵀt − 2μᵀΦᵀt + μᵀΦᵀΦμ for the active
// functions from the statistics (the first part of (27)'s expected
// squared error; tr(ΦΣΦᵀ) is likelihood.UniformSumVar's), at least 0.
func (s *scheduleState) statsResid() float64 {
	m := len(s.q.Mu)
	mu := blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}
	g := make([]float64, m)
	blas64.Symv(1, s.gram.RawSymmetric(), mu, 0, blas64.Vector{N: m, Inc: 1, Data: g})
	r := s.dd - 2*blas64.Dot(mu, blas64.Vector{N: m, Inc: 1, Data: s.phiD}) + blas64.Dot(mu, blas64.Vector{N: m, Inc: 1, Data: g})
	if s.signedResid {
		return r
	}
	return math.Max(0, r)
}

// checkStatsRows checks a block of rows for a statistics accumulator of c
// basis functions: phi has c columns and t (targets or labels, named by
// what) one value per row. It returns the number of rows.
func checkStatsRows(phi mat.Matrix, t []float64, c int, what string) (int, error) {
	if phi == nil {
		return 0, ErrNoData
	}
	n, pc := phi.Dims()
	if pc != c {
		return 0, &DimensionError{What: "design columns", Got: pc, Want: c}
	}
	if len(t) != n {
		return 0, &DimensionError{What: "number of " + what + " vs rows of the design", Got: len(t), Want: n}
	}
	return n, nil
}
