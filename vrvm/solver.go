package vrvm

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// Method is the algorithm that maximises the lower bound L: one of the
// values Sequential, PaperSchedule and Newton, each with its own
// documented fields (a nil Method is Sequential{}). Every method
// converges to a fixed point of the same variational updates (23)–(27)
// or (54)–(58) and reports the same quantities; they differ in the work
// they take and, since L has several local maxima (different sets of
// relevant functions), possibly in the maximum they reach. Each honours
// the pruning options (NoPrune, PruneAlpha) and the convergence options
// (MaxIter, Tol, ParamTol) in the same way; FullModelBound is the bound
// of the full model at the end of every fit.
//
// The type-II maximum likelihood estimators (RVMRegressor,
// RVMClassifier) maximise the evidence instead, with the same two
// strategies: Sequential (the default) is the sequential algorithm of
// Tipping & Faul (2003), PaperSchedule the re-estimation of every αₘ at
// once of Tipping (2001), as the paper's tables use. Newton is an
// *OptionError for them and for MultiClassifier.
//
// The package's three types are the only implementations.
type Method interface {
	// String is the method's name, as String and HTML of a model show it.
	String() string
	// algorithm is the solver that fits a problem by the method.
	algorithm() algorithm
	// resolved is the method with its zero fields set to their
	// defaults, or an *OptionError for an invalid field.
	resolved() (Method, error)
}

// Sequential, the default, maximises the bound one basis function at
// a time (sequential.go), in the manner of Tipping & Faul (2003) and
// Shutin et al. (2011) but on the variational bound: each ⟨αₘ⟩ is set
// to its exact optimum given the others (a root of a cubic, (S1) in
// bound.go) with rank-one updates of Σ and μ, so that no such step
// decreases L. With pruning it starts from one function and adds the
// function with the largest gain whose optimal ⟨αₘ⟩ is below
// PruneAlpha, and removes functions whose optimum rises above it;
// without pruning it starts from every function. It works on the
// factorisation Φ = U Bᵀ of the design (factor.go), so the N × N
// kernel matrix is never formed; with uniform precisions
// (regression) it keeps Φ_AᵀΦ_A and the active functions' inner
// products with every candidate up to date, so that an iteration costs
// O(M³ + M r) and an addition round O(P M²). An iteration (Iterations,
// BoundTrace, Monitor) is one sweep over the active functions, one
// update of Q_τ or ξ and, now and then, additions; the bound it reports
// is the full model's (see "Lower bound" in the package documentation).
type Sequential struct{}

// PaperSchedule is the schedule of Bishop & Tipping (2000)
// (schedule.go): every iteration updates Q_w, then all Q_αₘ, then Q_τ
// (or ξ), and, with pruning, removes the functions whose ⟨αₘ⟩ exceeds
// PruneAlpha. Irrelevant ⟨αₘ⟩ converge linearly with rate about
// 1 − 4b⟨αₘ⟩, so it needs 10⁴–10⁵ iterations to converge tightly.
type PaperSchedule struct{}

// Newton iterates the paper's schedule extrapolated by SQUAREM, which
// follows the schedule's path, until the bound gains less than a
// relative SwitchTol per cycle, then takes Levenberg–Marquardt steps on
// the bound with Q_w eliminated (newton.go, collapsed.go), which
// converge quadratically; it reaches the paper's fixed point in a few
// hundred iterations where the schedule takes tens of thousands
// (without pruning it matches the reference fixtures). The bound never
// decreases (beyond rounding) from one accepted point to the next. An
// iteration is one extrapolated cycle or one Newton step.
//
// The zero value of each field means its default.
type Newton struct {
	// MaxParams is the largest number of parameters (active functions
	// plus 1, or plus N for classification) for which Newton steps,
	// which need a dense Hessian of that size, are taken; larger
	// problems continue with the extrapolated schedule alone. 0 means
	// 1500.
	MaxParams int
	// SwitchTol is the relative gain of the bound over one extrapolated
	// cycle below which the method switches to Newton steps. L has
	// several local maxima, and Newton steps taken too early can end in
	// a different one than the schedule reaches. 0 means 1e-6, late
	// enough that seeded problems end at the schedule's optimum.
	SwitchTol float64
}

func (Sequential) String() string    { return "sequential" }
func (PaperSchedule) String() string { return "paper schedule" }
func (Newton) String() string        { return "newton" }

func (Sequential) algorithm() algorithm    { return seqSolver{} }
func (PaperSchedule) algorithm() algorithm { return schedule{} }
func (Newton) algorithm() algorithm        { return newton{} }

func (m Sequential) resolved() (Method, error)    { return m, nil }
func (m PaperSchedule) resolved() (Method, error) { return m, nil }

func (m Newton) resolved() (Method, error) {
	if err := count("Method.MaxParams", &m.MaxParams, newtonMax); err != nil {
		return nil, err
	}
	if err := positive("Method.SwitchTol", &m.SwitchTol, newtonSwitchTol, "must be positive and finite (0 means the default)"); err != nil {
		return nil, err
	}
	return m, nil
}

// resolveMethod returns m resolved (nil is Sequential{}), or an
// *OptionError if m is invalid or is Newton for an estimator without it
// (noNewton names that estimator).
func resolveMethod(m Method, noNewton string) (Method, error) {
	if m == nil {
		return Sequential{}, nil
	}
	if _, ok := m.(Newton); ok && noNewton != "" {
		return nil, &OptionError{Field: "Method", Text: m.String(), Reason: "not available for " + noNewton + " (use Sequential or PaperSchedule)"}
	}
	return m.resolved()
}

// newtonParams is the Newton method whose fields the collapsed
// maximisation (collapsed.go) uses: s's method if it is Newton (resolved),
// else the defaults, as for the sequential solver without pruning.
func (s settings) newtonParams() Newton {
	if n, ok := s.method.(Newton); ok {
		return n
	}
	return Newton{MaxParams: newtonMax, SwitchTol: newtonSwitchTol}
}

// problem is what a solver fits: the candidate basis at the training
// inputs x (or a user design, when the basis has no kernel), the
// likelihood, and the resolved settings.
type problem struct {
	basis basis
	x     mat.Matrix
	lik   likelihood
	set   settings
	// warm, if not nil, is the active set the Sequential solver starts
	// from (kernel learning's refits); the likelihood's factor starts
	// where lik holds it.
	warm *sequential.Warm
}

// solution is a solver's result: the active functions (indices into the
// full basis, in basis order) with Q_w and ⟨α⟩ over them, the bound after
// each iteration, and the full-model bound. The likelihood's factor is
// left in problem.lik.
type solution struct {
	cols    []int
	mu      []float64
	sigma   *mat.SymDense
	sigmaOf func() *mat.SymDense // computes Σ on first use when sigma is nil
	alpha   []float64
	trace   []float64
	iters   int
	status  Status
	full    float64
}

// algorithm is one solver: the fit of a problem by a Method.
type algorithm interface {
	fit(ctx context.Context, p *problem) (*solution, error)
}

// stopped returns a non-nil error, wrapping the context's cause (so that
// errors.Is(err, context.Canceled) holds), once ctx is done.
func stopped(ctx context.Context, iters int) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("vrvm: fit stopped after %d iterations: %w", iters, context.Cause(ctx))
}

// maxRelChange returns maxᵢ |aᵢ − bᵢ| / |aᵢ|, or +Inf when the lengths
// differ (the active set changed).
func maxRelChange(a, b []float64) float64 { return vec.MaxRelChange(a, b) }

// relChange is the change from prev to l relative to max(1, |l|).
func relChange(prev, l float64) float64 { return engine.RelChange(prev, l) }

// pruneSet returns the positions to keep among alphas: those with ⟨αₘ⟩ at
// most threshold, never none (engine.Prune).
func pruneSet(alphas []float64, threshold float64) (keep []int, pruned bool) {
	return engine.Prune(alphas, threshold)
}

// likelihoodPrecisions returns sⱼ = φⱼᵀBφⱼ for every column of phi, the
// precisions of the excluded functions' factors.
func likelihoodPrecisions(phi *mat.Dense, lik likelihood) []float64 {
	n, m := phi.Dims()
	beta, uni := lik.Weights()
	s := make([]float64, m)
	for i := range n {
		row := phi.RawRowView(i)
		b := uni
		if beta != nil {
			b = beta[i]
		}
		for j, v := range row {
			s[j] += b * v * v
		}
	}
	return s
}

// engineMonitor is the Monitor m as engine.Run calls it (nil for nil).
func engineMonitor(m func(Progress) bool) func(engine.Progress) bool {
	if m == nil {
		return nil
	}
	return func(p engine.Progress) bool { return m(Progress(p)) }
}

// engineStatus is the Status of engine.Run's outcome s.
func engineStatus(s engine.Status) Status {
	switch s {
	case engine.Done:
		return Converged
	case engine.Stopped:
		return Stopped
	case engine.Canceled:
		return Canceled
	}
	return IterationLimit
}

// methodName is the name of the Method m (nil is Sequential{}).
func methodName(m Method) string {
	if m == nil {
		return Sequential{}.String()
	}
	return m.String()
}
