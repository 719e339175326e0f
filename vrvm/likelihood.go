package vrvm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The likelihood side of the model: regression's Gaussian noise with its
// factor Q_τ (noise.go), or classification's logistic likelihood under the
// Jaakkola–Jordan bound with its parameters ξ (jaakkola.go). The solvers
// talk to it through the likelihood interface only, so that a new
// likelihood needs no edit of any solver.
//
// In both cases the (bounded) expected log-likelihood is a Gaussian
// function of w,
//
//	⟨ln p(t | w)⟩ ≥ const + wᵀΦᵀy − ½ wᵀΦᵀBΦw,   B = diag(βₙ),
//
// so that Q_w = N(μ, Σ) with
//
//	Σ = (diag⟨αₘ⟩ + ΦᵀBΦ)⁻¹,   μ = Σ Φᵀy:
//
// βₙ = ⟨τ⟩ and y = ⟨τ⟩t give (23)–(24), βₙ = 2λ(ξₙ) and y = t − ½ give
// (54)–(55). The likelihood's own factor is updated, and its terms of L
// are evaluated, from the moments of the latent function fₙ = wᵀφₙ under
// Q_w at the training inputs.
type likelihood interface {
	// Weights returns the precisions βₙ; when every βₙ is the same,
	// beta is nil and uniform is that value (which may underflow to 0).
	Weights() (beta []float64, uniform float64)
	// Data returns y = scale·d, with d fixed during a fit (t or t − ½)
	// and scale the current ⟨τ⟩ (or 1), so that solvers can keep Φᵀd.
	Data() (d []float64, scale float64)
	// RowVariances reports whether observe needs latent.vars.
	RowVariances() bool
	// Observe records the moments of a new Q_w.
	Observe(l *latent)
	// Update sets the likelihood's factor to its optimum given the
	// observed Q_w, (26)–(27) or (58), and returns the largest relative
	// change of its parameters.
	Update() float64
	// Terms returns the likelihood's Terms of L for the observed Q_w, in
	// the places bound gives them: (40), (43) and (46) for regression; 0,
	// 0 and (60) for classification.
	Terms() [3]float64
	// Params appends the monitored parameters (⟨τ⟩, or ξ) to dst.
	Params(dst []float64) []float64
	// LogParams appends the logarithms of the parameters to dst;
	// setLogParams sets them (clamped to the range where the updates are
	// defined). The Newton solver works in these coordinates.
	LogParams(dst []float64) []float64
	SetLogParams(u []float64)
	// Factor appends the parameters of the likelihood's Factor to dst:
	// c̃ and d̃ of Q_τ (21), or ξ; setFactor sets them from the Factor of
	// a likelihood of the same kind and data.
	Factor(dst []float64) []float64
	SetFactor(f []float64)
	// Start returns a copy of the likelihood at its current factor that
	// shares no state with it (the data are read only), for a second
	// Start of the sequential solver ((S6), (S8)), or nil if the
	// likelihood takes none.
	Start() likelihood
	// GammaRows returns the number of rows against which (C1) limits the
	// effective number of parameters γ of a regression fit, or 0 where
	// (C1) does not apply.
	GammaRows() int
	// Labels returns the class Labels tₙ ∈ {0, 1} of a binary classifier
	// with one term per row, for (C3) and the duplicated rows (countRows);
	// nil for other likelihoods.
	Labels() []float64
	// CountRows returns the likelihood of the distinct rows first of a
	// likelihood with labels, each counted count[u] times, whose factor
	// starts where this one holds it, and a function that sets the factor
	// of every row n to that of its distinct row of[n] with the moments
	// observed last; nil, nil for a likelihood without labels.
	CountRows(of, first []int, count []float64) (likelihood, func())
	// TakesBiasStart reports whether a converged first fit whose active
	// functions are nearly constant (constant), or not, gets the bias
	// start (S8), given the moments observed last: always for
	// regression; for classification only after a nearly constant fit or
	// one that explains little of the labels (S13).
	TakesBiasStart(constant bool) bool
	// NewtonCopy returns a copy of the likelihood for the joint steps of
	// (S7) (the Gaussian likelihood, whose collapsed bound has a
	// Hessian), or nil if they do not take it.
	NewtonCopy() likelihood
	// Hessian fills the likelihood's part of the gradient g and of the
	// Hessian h of the collapsed bound F at the current state s (its
	// parameters come after the M = len(s.alpha) weight precisions; sig
	// is Σ) for the Newton solver, and reports whether it did; with a
	// likelihood that gives no derivatives the solver continues with the
	// extrapolated schedule alone.
	Hessian(s *collapsed, sig *mat.SymDense, g []float64, h *mat.SymDense) bool
}

// latent summarises Q_w at the training inputs.
type latent struct {
	// Mean holds mₙ = μᵀφₙ; a solver may leave it nil for a likelihood
	// with uniform precisions and give sqResid = ‖d − m‖² instead.
	Mean    []float64
	SqResid float64
	Vars    []float64 // vₙ = φₙᵀΣφₙ, set only if the likelihood asks for them
	SumVar  float64   // Σₙ vₙ = tr(ΦΣΦᵀ)
}

// uniformSumVar returns Σₙ vₙ for a likelihood whose precisions are all β:
// since Σ(diag α + βΦᵀΦ) = I, tr(ΦᵀΦΣ) = (M − Σₘ αₘΣₘₘ)/β, with no
// extra O(M³) work (α as used in the precision, jitter included).
func uniformSumVar(alpha, diag []float64, beta float64) float64 {
	var g float64
	for i, a := range alpha {
		g += a * diag[i]
	}
	return math.Max(0, (float64(len(alpha))-g)/beta)
}

// clampLog keeps the logarithm of a precision inside the range in which
// the updates are defined: ⟨αₘ⟩ ≤ ã/b always holds after an update (25).
func clampLog(v, hi float64) float64 {
	const lo = -40
	switch {
	case math.IsNaN(v):
		return 0
	case v < lo:
		return lo
	case v > hi:
		return hi
	}
	return v
}
