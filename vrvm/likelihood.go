package vrvm

import "math"

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
	// weights returns the precisions βₙ; when every βₙ is the same,
	// beta is nil and uniform is that value (which may underflow to 0).
	weights() (beta []float64, uniform float64)
	// data returns y = scale·d, with d fixed during a fit (t or t − ½)
	// and scale the current ⟨τ⟩ (or 1), so that solvers can keep Φᵀd.
	data() (d []float64, scale float64)
	// rowVariances reports whether observe needs latent.vars.
	rowVariances() bool
	// observe records the moments of a new Q_w.
	observe(l *latent)
	// update sets the likelihood's factor to its optimum given the
	// observed Q_w, (26)–(27) or (58), and returns the largest relative
	// change of its parameters.
	update() float64
	// terms returns the likelihood's terms of L for the observed Q_w, in
	// the places bound gives them: (40), (43) and (46) for regression; 0,
	// 0 and (60) for classification.
	terms() [3]float64
	// params appends the monitored parameters (⟨τ⟩, or ξ) to dst.
	params(dst []float64) []float64
	// logParams appends the logarithms of the parameters to dst;
	// setLogParams sets them (clamped to the range where the updates are
	// defined). The Newton solver works in these coordinates.
	logParams(dst []float64) []float64
	setLogParams(u []float64)
}

// latent summarises Q_w at the training inputs.
type latent struct {
	// mean holds mₙ = μᵀφₙ; a solver may leave it nil for a likelihood
	// with uniform precisions and give sqResid = ‖d − m‖² instead.
	mean    []float64
	sqResid float64
	vars    []float64 // vₙ = φₙᵀΣφₙ, set only if the likelihood asks for them
	sumVar  float64   // Σₙ vₙ = tr(ΦΣΦᵀ)
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
