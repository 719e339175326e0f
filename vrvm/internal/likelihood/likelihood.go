// Package likelihood holds the likelihoods of the variational relevance
// vector machine (Bishop & Tipping 2000) behind one interface: the
// Gaussian noise of regression with its factor Q_τ (Gauss), the logistic
// likelihood of classification under the Jaakkola–Jordan bound with its
// parameters ξ (Logit), the same over distinct rows with counts (Count),
// and a fit at fixed ξ from a pass's statistics (Pass). The solvers of
// package vrvm see a likelihood through Likelihood only. The package
// imports nothing of the library it serves.
package likelihood

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The likelihood side of the model: regression's Gaussian noise with its
// factor Q_τ (Gauss), or classification's logistic likelihood under the
// Jaakkola–Jordan bound with its parameters ξ (Logit). The solvers
// talk to it through the Likelihood interface only, so that a new
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
type Likelihood interface {
	// Weights returns the precisions βₙ; when every βₙ is the same,
	// beta is nil and uniform is that value (which may underflow to 0).
	Weights() (beta []float64, uniform float64)
	// Data returns y = scale·d, with d fixed during a fit (t or t − ½)
	// and scale the current ⟨τ⟩ (or 1), so that solvers can keep Φᵀd.
	Data() (d []float64, scale float64)
	// RowVariances reports whether Observe needs Latent.Vars.
	RowVariances() bool
	// Observe records the moments of a new Q_w.
	Observe(l *Latent)
	// Update sets the likelihood's factor to its optimum given the
	// observed Q_w, (26)–(27) or (58), and returns the largest relative
	// change of its parameters.
	Update() float64
	// Terms returns the likelihood's terms of L for the observed Q_w, in
	// the places bound gives them: (40), (43) and (46) for regression; 0,
	// 0 and (60) for classification.
	Terms() [3]float64
	// Params appends the monitored parameters (⟨τ⟩, or ξ) to dst.
	Params(dst []float64) []float64
	// LogParams appends the logarithms of the parameters to dst;
	// SetLogParams sets them (clamped to the range where the updates are
	// defined). The Newton solver works in these coordinates.
	LogParams(dst []float64) []float64
	SetLogParams(u []float64)
	// Factor appends the parameters of the likelihood's factor to dst:
	// c̃ and d̃ of Q_τ (21), or ξ; SetFactor sets them from the factor of
	// a likelihood of the same kind and data.
	Factor(dst []float64) []float64
	SetFactor(f []float64)
	// Start returns a copy of the likelihood at its current factor that
	// shares no state with it (the data are read only), for a second
	// start of the sequential solver ((S6), (S8)), or nil if the
	// likelihood takes none.
	Start() Likelihood
	// GammaRows returns the number of rows against which (C1) limits the
	// effective number of parameters γ of a regression fit, or 0 where
	// (C1) does not apply.
	GammaRows() int
	// Labels returns the class labels tₙ ∈ {0, 1} of a binary classifier
	// with one term per row, for (C3) and the duplicated rows (CountRows);
	// nil for other likelihoods.
	Labels() []float64
	// CountRows returns the likelihood of the distinct rows first of a
	// likelihood with labels, each counted count[u] times, whose factor
	// starts where this one holds it, and a function that sets the factor
	// of every row n to that of its distinct row of[n] with the moments
	// observed last; nil, nil for a likelihood without labels.
	CountRows(of, first []int, count []float64) (Likelihood, func())
	// TakesBiasStart reports whether a converged first fit whose active
	// functions are nearly constant (constant), or not, gets the bias
	// start (S8), given the moments observed last: always for
	// regression; for classification only after a nearly constant fit or
	// one that explains little of the labels (S13).
	TakesBiasStart(constant bool) bool
	// NewtonCopy returns a copy of the likelihood for the joint steps of
	// (S7) (the Gaussian likelihood, whose collapsed bound has a
	// Hessian), or nil if they do not take it.
	NewtonCopy() Likelihood
	// Hessian fills the likelihood's part of the gradient g and of the
	// Hessian h of the collapsed bound F at the current state s (its
	// parameters come after the M = len(s.Alpha) weight precisions; sig
	// is Σ) for the Newton solver, and reports whether it did; with a
	// likelihood that gives no derivatives the solver continues with the
	// extrapolated schedule alone.
	Hessian(s *Collapsed, sig *mat.SymDense, g []float64, h *mat.SymDense) bool
}

// Latent summarises Q_w at the training inputs.
type Latent struct {
	// Mean holds mₙ = μᵀφₙ; a solver may leave it nil for a likelihood
	// with uniform precisions and give SqResid = ‖d − m‖² instead.
	Mean    []float64
	SqResid float64
	Vars    []float64 // vₙ = φₙᵀΣφₙ, set only if the likelihood asks for them
	SumVar  float64   // Σₙ vₙ = tr(ΦΣΦᵀ)
}

// Collapsed is the state of the collapsed bound F (Q_w integrated out)
// at which the Newton solver asks a likelihood for its derivatives
// (Hessian): the design of the active functions Φ = U Bᵀ and the
// Woodbury form of Q_w.
type Collapsed struct {
	Alpha []float64     // ⟨αₘ⟩ of the active functions (the precision's, jitter included)
	Mu    []float64     // μ
	U     *mat.Dense    // N × r
	B     *mat.Dense    // M × r
	V     []float64     // K⁻¹Ω⁻¹η of the Woodbury form, with K = UᵀU
	Y     *mat.SymDense // ΦΣΦᵀ = U Y Uᵀ
	UY    *mat.Dense    // U (BᵀΣB), for the per-row variances
}

// ClampLog keeps the logarithm of a precision inside the range in which
// the updates are defined: ⟨αₘ⟩ ≤ ã/b always holds after an update (25).
func ClampLog(v, hi float64) float64 {
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

// Ln2Pi is ln 2π.
const Ln2Pi = 1.8378770664093453

// GammaEntropy is the entropy of Γ(x | a, b) (shape a, rate b):
// ln Γ(a) − (a − 1) ψ(a) − ln b + a, the settled (45)/(46)/(64).
func GammaEntropy(a, b float64) float64 {
	lg, _ := math.Lgamma(a)
	return lg - (a-1)*mathext.Digamma(a) - math.Log(b) + a
}

// ExpectedLogGamma is ⟨ln Γ(x | a, b)⟩ under Q(x) = Γ(x | ã, b̃), given
// ⟨x⟩ and ⟨ln x⟩: a ln b + (a − 1)⟨ln x⟩ − b⟨x⟩ − ln Γ(a); (42), (43), (62).
func ExpectedLogGamma(a, b, mean, logMean float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(b) + (a-1)*logMean - b*mean - lg
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// UniformSumVar returns Σₙ vₙ for a likelihood whose precisions are all β:
// since Σ(diag α + βΦᵀΦ) = I, tr(ΦᵀΦΣ) = (M − Σₘ αₘΣₘₘ)/β, with no
// extra O(M³) work (α as used in the precision, jitter included).
func UniformSumVar(alpha, diag []float64, beta float64) float64 {
	var g float64
	for i, a := range alpha {
		g += a * diag[i]
	}
	return math.Max(0, (float64(len(alpha))-g)/beta)
}
