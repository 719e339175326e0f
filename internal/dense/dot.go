package dense

// Dots4 returns the dot products of b with a0, a1, a2 and a3, each of
// which must be at least len(b) long: four rows against one, so that b is
// read once for four sums. With AVX2 and FMA the sums run in two ymm
// accumulators per row, eight values of b per step.
func Dots4(a0, a1, a2, a3, b []float64) (s0, s1, s2, s3 float64) {
	return host.dots4(a0, a1, a2, a3, b)
}

// dots4 is Dots4 with the kernels of e.
func (e products) dots4(a0, a1, a2, a3, b []float64) (s0, s1, s2, s3 float64) {
	n := len(b)
	// a0[:n] would only check n against the capacity of a0.
	if len(a0) < n || len(a1) < n || len(a2) < n || len(a3) < n {
		panic("dense: Dots4: a row is shorter than b")
	}
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	body := 0
	if e.level != portable && n >= 8 {
		body = n &^ 7
		var s [4]float64
		dots4(body, &a0[0], &a1[0], &a2[0], &a3[0], &b[0], &s)
		s0, s1, s2, s3 = s[0], s[1], s[2], s[3]
	}
	for l := body; l < n; l++ {
		v := b[l]
		s0 += a0[l] * v
		s1 += a1[l] * v
		s2 += a2[l] * v
		s3 += a3[l] * v
	}
	return s0, s1, s2, s3
}
