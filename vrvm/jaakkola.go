package vrvm

import (
	"math"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// Lambda is the Jaakkola–Jordan coefficient λ(ξ) = tanh(ξ/2) / (4ξ) of the
// bound (50), an even function with λ(0) = 1/8.
//
// Special cases are:
//
//	Lambda(0) = 1/8
//	Lambda(±Inf) = 0
//	Lambda(NaN) = NaN
func Lambda(xi float64) float64 { return lh.Lambda(xi) }

// LogSigmoid returns ln σ(z) = −ln(1 + e^(−z)) without overflow.
func LogSigmoid(z float64) float64 { return lh.LogSigmoid(z) }

// Sigmoid returns the logistic function σ(z) = 1/(1 + e^(−z)).
func Sigmoid(z float64) float64 { return lh.Sigmoid(z) }

// JJBound returns the logarithm of the Jaakkola–Jordan lower bound (50)
// on σ(z) with variational parameter ξ:
//
//	ln σ(z) ≥ ln σ(ξ) + (z − ξ)/2 − λ(ξ)(z² − ξ²),
//
// with equality at z = ±ξ.
func JJBound(z, xi float64) float64 {
	return LogSigmoid(xi) + (z-xi)/2 - Lambda(xi)*(z*z-xi*xi)
}

// Moderated returns MacKay's moderated probability σ(κ(s²) m) with
// κ(s²) = (1 + πs²/8)^(−1/2), the approximate predictive probability of a
// latent function with mean m and variance s².
func Moderated(m, s2 float64) float64 {
	return Sigmoid(m / math.Sqrt(1+math.Pi*s2/8))
}

// logitLik is the logistic likelihood of classification (8) under the
// Jaakkola–Jordan bound (50), with one ξₙ per training point.
type logitLik = lh.Logit

func newLogitLik(t []float64, xi0 float64) *logitLik { return lh.NewLogit(t, xi0) }
