package rvm

// Small helpers on slices and matrices (as the facade's helpers.go).

func constant(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

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
