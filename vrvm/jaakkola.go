package vrvm

import "math"

// Lambda is the Jaakkola–Jordan coefficient λ(ξ) = tanh(ξ/2) / (4ξ) of the
// bound (50), an even function with λ(0) = 1/8.
//
// Special cases are:
//
//	Lambda(0) = 1/8
//	Lambda(±Inf) = 0
//	Lambda(NaN) = NaN
func Lambda(xi float64) float64 {
	a := math.Abs(xi)
	if a < 1e-4 {
		// tanh(u) = u − u³/3 + 2u⁵/15 − …, u = ξ/2.
		x2 := a * a
		return 1.0/8 - x2/96 + x2*x2/960
	}
	if math.IsInf(a, 1) {
		return 0
	}
	return math.Tanh(a/2) / (4 * a)
}

// LogSigmoid returns ln σ(z) = −ln(1 + e^(−z)) without overflow.
func LogSigmoid(z float64) float64 {
	if z >= 0 {
		return -math.Log1p(math.Exp(-z))
	}
	return z - math.Log1p(math.Exp(z))
}

// Sigmoid returns the logistic function σ(z) = 1/(1 + e^(−z)).
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

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
