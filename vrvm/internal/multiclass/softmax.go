// Package multiclass is the solver of the multi-class variational
// relevance vector machine (docs/design.md, "Multi-class classification",
// (M1)–(M24), and "Multi-class probit", (P1)–(P13)): one weight vector
// per class over a shared basis, the softmax likelihood under Böhning's
// bound (M3) or the adaptive bound (M19), or the multinomial probit (P1),
// fitted by the sequential solver or the paper's schedule through
// engine.Run, with the second start (M23) and the restart from the held
// bias (M24); and its numerics (a stable log-sum-exp and softmax, the
// bounds (M3) and (M19), the probit's quadrature (P4)–(P9)).
//
// The facade (package vrvm, whose MultiClassifier calls it) builds the
// design of every candidate function and Settings, calls Fit (and
// SecondStart) and reads back a Result. The package imports nothing of
// the library it serves.
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
