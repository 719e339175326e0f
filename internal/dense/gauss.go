package dense

// HasGaussRows reports whether GaussRows has its AVX-512 kernel.
func HasGaussRows() bool { return host.level >= avx512 }

// GaussRows sets out[i·ldo + j] = exp(s·‖xᵢ − cⱼ‖²) for the n rows xᵢ of
// x (d values each, stride ldx) and the m centres cⱼ given transposed in
// ct (d rows of stride ldc, cⱼ[l] at ct[l·ldc + j]), with AVX-512: the
// squared distance by fused multiply–adds over l in order, the
// exponential by a degree-13 polynomial of r = v − k ln2 scaled by 2ᵏ
// (relative error about 2·10⁻¹⁶, exactly 0 below the subnormal range).
// ct must have at least roundUp(m, 8) columns and tmp as many values
// (the padding is computed there and discarded). It returns false,
// setting nothing, without the AVX-512 kernels (HasGaussRows); the
// caller then computes the values its own way. The value at (x, c)
// equals that at (c, x) to the bit.
func GaussRows(out []float64, ldo int, x []float64, ldx, n, d int, ct []float64, ldc, m int, s float64, tmp []float64) bool {
	if host.level < avx512 || n == 0 || m == 0 {
		return host.level >= avx512
	}
	mp := roundUp(m, 8)
	if d < 1 || ldc < mp || len(ct) < (d-1)*ldc+mp || len(tmp) < mp || len(x) < (n-1)*ldx+d || len(out) < (n-1)*ldo+m {
		panic("dense: GaussRows: short operand")
	}
	for i := range n {
		gaussRow512(mp, d, &x[i*ldx], &ct[0], ldc, s, &tmp[0])
		copy(out[i*ldo:i*ldo+m], tmp[:m])
	}
	return true
}
