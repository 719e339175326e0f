// Package multiclass holds the numerical layer of the multi-class VRVM's
// softmax likelihood: a stable log-sum-exp and softmax, and Böhning's
// quadratic lower bound (M3) of docs/design.md ("Multi-class
// classification") on the log softmax probability.
package multiclass

import "math"

// LogSumExp returns ln Σₖ exp(yₖ) without overflow.
func LogSumExp(y []float64) float64 {
	hi := math.Inf(-1)
	for _, v := range y {
		hi = math.Max(hi, v)
	}
	if math.IsInf(hi, 0) {
		return hi
	}
	var s float64
	for _, v := range y {
		s += math.Exp(v - hi)
	}
	return hi + math.Log(s)
}

// SoftmaxTo sets dst to the softmax of y, exp(yₖ)/Σⱼ exp(yⱼ), and returns
// ln Σⱼ exp(yⱼ), with one exponential per element.
func SoftmaxTo(dst, y []float64) float64 {
	hi := math.Inf(-1)
	for _, v := range y {
		hi = math.Max(hi, v)
	}
	if math.IsInf(hi, 0) {
		for k, v := range y {
			dst[k] = math.Exp(v - hi)
		}
		return hi
	}
	var s float64
	for k, v := range y {
		e := math.Exp(v - hi)
		dst[k] = e
		s += e
	}
	inv := 1 / s
	for k := range y {
		dst[k] *= inv
	}
	return hi + math.Log(s)
}

// Bohning returns the logarithm of Böhning's lower bound (M3) on the
// softmax probability of class k at activations y, expanded at ψ, using g,
// of the length of psi, as scratch space (it is left holding softmax(ψ)).
func Bohning(g, y, psi []float64, k int) float64 {
	l := SoftmaxTo(g, psi)
	var lin, d2, ds float64
	for j := range y {
		d := y[j] - psi[j]
		lin += g[j] * d
		d2 += d * d
		ds += d
	}
	kk := float64(len(y))
	return y[k] - l - lin - 0.25*(d2-ds*ds/kk) // (M3)
}
