package vrvm

import (
	"math"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// The likelihood side of the model, in package likelihood: regression's
// Gaussian noise with its factor Q_τ, classification's logistic
// likelihood under the Jaakkola–Jordan bound with its parameters ξ. The
// solvers talk to it through the likelihood interface only, so that a
// new likelihood needs no edit of any solver.
type (
	likelihood = lh.Likelihood
	latent     = lh.Latent
)

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
// the updates are defined (likelihood.ClampLog).
func clampLog(v, hi float64) float64 { return lh.ClampLog(v, hi) }
