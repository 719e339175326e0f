//go:build !amd64 || purego

package dense

// cpuLevel is portable: without the assembly kernels every product goes
// to gonum.
func cpuLevel() level { return portable }

// kernel is never called without the assembly micro-kernel.
func kernel(k int, a, b, c *float64, ldc int, alpha float64) {
	panic("dense: no micro-kernel on this platform")
}

// kernel512 is never called without the assembly micro-kernel.
func kernel512(k int, a, b, c *float64, ldc int, alpha float64) {
	panic("dense: no micro-kernel on this platform")
}

// gaussRow512 is never called without the assembly kernels.
func gaussRow512(n, d int, x, ct *float64, ldc int, s float64, out *float64) {
	panic("dense: no Gaussian kernel on this platform")
}

// gemvT4 is never called without the assembly kernels.
func gemvT4(n int, a *float64, lda int, x *[4]float64, y *float64) {
	panic("dense: no Gemv kernel on this platform")
}

// dots4 is never called without the assembly kernels.
func dots4(n int, a0, a1, a2, a3, b *float64, s *[4]float64) {
	panic("dense: no dot kernel on this platform")
}

// sumRows32 is never called without the assembly kernels.
func sumRows32(n int, w *float64, offs *int, nk int, c, t *float64) {
	panic("dense: no SumRows kernel on this platform")
}

// scaleSub16 is never called without the assembly kernels.
func scaleSub16(n int, a, b float64, src, dst, q *float64) {
	panic("dense: no ScaleSub kernel on this platform")
}

// quadRow32 is never called without the assembly kernels.
func quadRow32(n int, w *float64, offs *int, nk int, c, ci *float64, d float64, o *float64) {
	panic("dense: no QuadRow kernel on this platform")
}

// axpy8 is never called without the assembly kernels.
func axpy8(n int, a float64, x, y *float64) {
	panic("dense: no Axpy kernel on this platform")
}
