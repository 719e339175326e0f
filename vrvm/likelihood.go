package vrvm

import (
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

// clampLog keeps the logarithm of a precision inside the range in which
// the updates are defined (likelihood.ClampLog).
func clampLog(v, hi float64) float64 { return lh.ClampLog(v, hi) }
