package dense

// SumRows sets t[j] = Σₖ w[k]·c[offs[k]+j] for every j < len(t): each
// product rounded, then added to the sum so far, in the order of k, from
// t[j] = 0, without fused multiply–add. These are the values of clearing
// t and calling blas64.Axpy(w[k], c[offs[k]:offs[k]+len(t)], t) for each
// k in turn (gonum's SSE2 AxpyUnitary rounds the product and the sum
// separately as well), bit for bit, but with AVX2 the sums of 32 columns
// stay in registers over every k instead of t being read and written once
// per k. It panics if w and offs differ in length or a row overhangs c.
func SumRows(t, w []float64, offs []int, c []float64) {
	host.sumRows(t, w, offs, c)
}

// sumRowsTile is the number of columns the assembly kernel takes at a
// time (eight ymm accumulators).
const sumRowsTile = 32

// sumRows is SumRows with the kernels of e.
func (e products) sumRows(t, w []float64, offs []int, c []float64) {
	n := len(t)
	if len(w) != len(offs) {
		panic("dense: SumRows: w and offs differ in length")
	}
	for _, o := range offs {
		if o < 0 || o+n > len(c) {
			panic("dense: SumRows: a row overhangs c")
		}
	}
	body := 0
	if e.level != portable && n >= sumRowsTile && len(w) > 0 {
		body = n &^ (sumRowsTile - 1)
		sumRows32(body, &w[0], &offs[0], len(w), &c[0], &t[0])
	}
	if body == n {
		return
	}
	rest := t[body:]
	clear(rest)
	for k, wk := range w {
		row := c[offs[k]+body : offs[k]+n]
		for j, v := range row {
			rest[j] += wk * v
		}
	}
}

// ScaleSub sets dst[j] = a·src[j] and then q[j] −= b·dst[j] for every
// j < len(dst), each product and difference rounded (no fused
// multiply–add), as the loop of that statement computes them, bit for
// bit; with AVX2 four values per instruction. It panics if src or q is
// shorter than dst.
func ScaleSub(dst, q, src []float64, a, b float64) {
	host.scaleSub(dst, q, src, a, b)
}

// scaleSub is ScaleSub with the kernels of e.
func (e products) scaleSub(dst, q, src []float64, a, b float64) {
	n := len(dst)
	if len(src) < n || len(q) < n {
		panic("dense: ScaleSub: src or q is shorter than dst")
	}
	body := 0
	if e.level != portable && n >= 16 {
		body = n &^ 15
		scaleSub16(body, a, b, &src[0], &dst[0], &q[0])
	}
	src, q = src[:n], q[:n]
	for j := body; j < n; j++ {
		dst[j] = a * src[j]
		q[j] -= dst[j] * b
	}
}

// QuadRow adds ci[j]·(d·ci[j] + 2tⱼ) to o[j] for every j < len(o), where
// tⱼ = Σₖ w[k]·c[offs[k]+j] as SumRows computes it: the values of
// SumRows(t, w, offs, c) followed by the loop o[j] += ci[j]*(d*ci[j] +
// 2*t[j]), bit for bit (each product and sum rounded, no fused
// multiply–add), with AVX2 without storing t. t is work space of at
// least len(o). It panics as SumRows does, or if ci is shorter than o.
func QuadRow(o, ci, t, w []float64, offs []int, c []float64, d float64) {
	host.quadRow(o, ci, t, w, offs, c, d)
}

// quadRow is QuadRow with the kernels of e.
func (e products) quadRow(o, ci, t, w []float64, offs []int, c []float64, d float64) {
	n := len(o)
	if len(ci) < n || len(t) < n || len(w) != len(offs) {
		panic("dense: QuadRow: ci or t is shorter than o, or w and offs differ in length")
	}
	for _, of := range offs {
		if of < 0 || of+n > len(c) {
			panic("dense: QuadRow: a row overhangs c")
		}
	}
	body := 0
	if e.level != portable && n >= sumRowsTile {
		body = n &^ (sumRowsTile - 1)
		var w0 *float64
		var o0 *int
		if len(w) > 0 {
			w0, o0 = &w[0], &offs[0]
		}
		quadRow32(body, w0, o0, len(w), &c[0], &ci[0], d, &o[0])
	}
	if body == n {
		return
	}
	rest := t[body:n]
	clear(rest)
	for k, wk := range w {
		row := c[offs[k]+body : offs[k]+n]
		for j, v := range row {
			rest[j] += wk * v
		}
	}
	for j, v := range ci[body:n] {
		o[body+j] += v * (d*v + 2*rest[j])
	}
}

// Axpy adds a·x[j] to y[j] for every j < len(y), the product rounded and
// then the sum (no fused multiply–add): the values of blas64.Axpy with
// unit increments (gonum's SSE2 AxpyUnitary, which rounds both as well,
// and returns at once for a = 0), bit for bit, without its checks and
// calls, which cost more than the work on the short rows of a rank-one
// update; with AVX2 four values per instruction. It panics if x is
// shorter than y.
func Axpy(a float64, x, y []float64) {
	host.axpy(a, x, y)
}

// axpy is Axpy with the kernels of e.
func (e products) axpy(a float64, x, y []float64) {
	n := len(y)
	if len(x) < n {
		panic("dense: Axpy: x is shorter than y")
	}
	if a == 0 {
		return
	}
	body := 0
	if e.level != portable && n >= 8 {
		body = n &^ 7
		axpy8(body, a, &x[0], &y[0])
	}
	x = x[:n]
	for j := body; j < n; j++ {
		y[j] += a * x[j]
	}
}
