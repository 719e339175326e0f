//go:build !purego

package dense

// cpuLevel returns the kernels the processor and the operating system
// support: avx512 with AVX-512F and the zmm state saved (XCR0's opmask,
// ZMM_Hi256 and Hi16_ZMM bits), avx2 with AVX2 and FMA, else portable.
func cpuLevel() level {
	if !cpuHasAVX2FMA() {
		return portable
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx512f = 1 << 16
	const zmmState = 0xe6 // sse, avx, opmask, ZMM_Hi256, Hi16_ZMM
	if lo, _ := xgetbv(); ebx7&avx512f != 0 && lo&zmmState == zmmState {
		return avx512
	}
	return avx2
}

// cpuHasAVX2FMA reads CPUID (AVX, FMA, OSXSAVE, AVX2) and XCR0 (the
// operating system saves the ymm registers).
func cpuHasAVX2FMA() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if lo, _ := xgetbv(); lo&6 != 6 {
		return false
	}
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}

// cpuid executes CPUID with EAX = eaxArg and ECX = ecxArg.
//
//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv executes XGETBV with ECX = 0 (XCR0).
//
//go:noescape
func xgetbv() (eax, edx uint32)

// kernel adds alpha times the 6 × 8 product of the packed panels a (k
// groups of 6) and b (k groups of 8) into the tile of C at c with row
// stride ldc: c[i·ldc+j] += alpha Σₚ a[6p+i] b[8p+j]. k must be positive.
//
//go:noescape
func kernel(k int, a, b, c *float64, ldc int, alpha float64)

// kernel512 is kernel with AVX-512 for an 8 × 24 tile: a holds k groups
// of 8 and b k groups of 24 (kernel512_amd64.s).
//
//go:noescape
func kernel512(k int, a, b, c *float64, ldc int, alpha float64)

// gaussRow512 sets out[j] = exp(s·Σₗ (x[l] − ct[l·ldc + j])²) for
// l < d and j < n, n a positive multiple of 8 (gauss_amd64.s).
//
//go:noescape
func gaussRow512(n, d int, x, ct *float64, ldc int, s float64, out *float64)

// gemvT4 adds x[0]·a[j] + x[1]·a[lda+j] + x[2]·a[2lda+j] + x[3]·a[3lda+j]
// into y[j] for j < n: four rows of a row-major matrix at a, weighted by
// x, added into y. n must be a positive multiple of 4.
//
//go:noescape
func gemvT4(n int, a *float64, lda int, x *[4]float64, y *float64)

// dots4 sets s[k] = Σⱼ aₖ[j] b[j] for j < n and the four rows a0…a3. n
// must be a positive multiple of 8.
//
//go:noescape
func dots4(n int, a0, a1, a2, a3, b *float64, s *[4]float64)

// sumRows32 sets t[j] = Σₖ w[k]·c[offs[k]+j] for j < n, n a positive
// multiple of 32 and nk > 0, products and sums rounded one at a time in the
// order of k (VMULPD, VADDPD: no fused multiply–add).
//
//go:noescape
func sumRows32(n int, w *float64, offs *int, nk int, c, t *float64)

// scaleSub16 sets dst[j] = a·src[j], q[j] −= b·dst[j] for j < n, n a
// positive multiple of 16 (VMULPD, VSUBPD: no fused multiply–add).
//
//go:noescape
func scaleSub16(n int, a, b float64, src, dst, q *float64)

// quadRow32 adds ci[j]·(d·ci[j] + 2tⱼ) to o[j], tⱼ = Σₖ w[k]·c[offs[k]+j]
// in the order of k (zero if nk is 0), for j < n, n a positive multiple
// of 32, every product and sum rounded (no fused multiply–add).
//
//go:noescape
func quadRow32(n int, w *float64, offs *int, nk int, c, ci *float64, d float64, o *float64)

// axpy8 adds a·x[j] to y[j] for j < n, n a positive multiple of 8
// (VMULPD, VADDPD: no fused multiply–add).
//
//go:noescape
func axpy8(n int, a float64, x, y *float64)
