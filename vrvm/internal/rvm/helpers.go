package rvm

import "github.com/vrvm/vrvm/vrvm/internal/vec"

// Small helpers on slices and matrices (as the facade's helpers.go).

func constant(n int, v float64) []float64 { return vec.Constant(n, v) }

func resize(s []float64, n int) []float64 { return vec.Resize(s, n) }

// variance returns the variance of t about its mean.
func variance(t []float64) float64 {
	var sum float64
	for _, v := range t {
		sum += v
	}
	mean := sum / float64(len(t))
	var s float64
	for _, v := range t {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(t))
}

// scaleBy sets dst[n] = beta[n]·src[n].
func scaleBy(dst, beta, src []float64) {
	for n, v := range src {
		dst[n] = beta[n] * v
	}
}
