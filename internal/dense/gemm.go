package dense

import (
	"math"
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// micro is a micro-kernel with its tile, mr × nr, and the block sizes
// of the packed product around it (see the package documentation): mc
// and nc are multiples of mr and nr, kc is the inner dimension of a
// packed panel.
type micro struct {
	mr, nr     int
	kc, mc, nc int
	run        func(k int, a, b, c *float64, ldc int, alpha float64)
}

// maxTile is the largest mr·nr of the micro-kernels (the scratch tile).
const maxTile = 8 * 24

// microFor returns the micro-kernel of level l (avx2 or avx512). The
// AVX-512 kernel's 24-column B panel of kc = 192 steps (36 KB) stays in
// the 48 KB L1 cache while the A panels stream past it.
func microFor(l level) micro {
	if l == avx512 {
		return micro{mr: 8, nr: 24, kc: 192, mc: 96, nc: 2016, run: kernel512}
	}
	return micro{mr: 6, nr: 8, kc: 256, mc: 96, nc: 2048, run: kernel}
}

// level is how much of the processor's vector units the package uses:
// gonum's code (portable), the AVX2 kernels, or the AVX-512 matrix
// micro-kernel (with the AVX2 kernels for the rest).
type level int

const (
	portable level = iota
	avx2
	avx512
)

// Work thresholds, in multiply–adds m·n·k: below smallWork a product goes
// to gonum, above parallelWork it is split among goroutines.
const smallWork = 8 * 8 * 8

// products is a choice of kernels for the products: the level of the
// micro-kernels, and the work (multiply–adds) above which a product is
// split among goroutines. Tests check the fallbacks and the splits of
// small products with other values than the processor's.
type products struct {
	level        level
	parallelWork int
}

// host is the processor's choice, set once at start-up from its features
// (cpuLevel) and never changed.
var host = products{level: cpuLevel(), parallelWork: 1 << 20}

// Gemm computes c = alpha·op(a)·op(b) + beta·c, where op(x) is x or xᵀ as
// tA and tB say (blas.ConjTrans is blas.Trans), with the semantics of
// blas64.Gemm: c is m × n, op(a) m × k and op(b) k × n, any strides, and
// beta = 0 sets c to zero whatever it held (NaN included), and alpha = 0
// sets c = beta·c without reading a and b. Unlike BLAS, c may share
// storage with a or b: such an operand is copied first. It panics if the
// sizes do not agree or an operand's storage is too short for its shape.
func Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	host.gemm(tA, tB, alpha, a, b, beta, c)
}

// gemm is Gemm with the kernels of e.
func (e products) gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	ta, tb := tA != blas.NoTrans, tB != blas.NoTrans
	var k int
	if ta {
		if a.Cols != m {
			panic("dense: Gemm: rows of op(a) differ from rows of c")
		}
		k = a.Rows
	} else {
		if a.Rows != m {
			panic("dense: Gemm: rows of op(a) differ from rows of c")
		}
		k = a.Cols
	}
	if tb {
		if b.Cols != k || b.Rows != n {
			panic("dense: Gemm: op(b) is not k × n")
		}
	} else {
		if b.Rows != k || b.Cols != n {
			panic("dense: Gemm: op(b) is not k × n")
		}
	}
	// The micro-kernel writes c through a pointer, and the packing reads
	// a and b through slices that are checked against their capacity, not
	// their length: check all three as gonum does.
	checkStorage(a, "a")
	checkStorage(b, "b")
	checkStorage(c, "c")
	// BLAS forbids c to share storage with a or b; here an operand that
	// does is copied first (as mat.Dense.Mul does), since scaling c by
	// beta and adding into it would otherwise change the operand under
	// the product.
	if overlaps(c, a) {
		a = copyGeneral(a)
	}
	if overlaps(c, b) {
		b = copyGeneral(b)
	}
	if m == 0 || n == 0 {
		return
	}
	// alpha = 0 (or k = 0) is c = beta·c without reading a and b, as in
	// the reference BLAS; gonum's Dgemm multiplies by alpha and so makes
	// c NaN where a or b holds NaN or Inf, so it is not left to gonum.
	if alpha == 0 || k == 0 {
		scale(beta, c, false)
		return
	}
	if e.level == portable || m*n*k < smallWork {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	scale(beta, c, false)
	p := product{u: microFor(e.level), work: e.parallelWork, alpha: alpha, a: a.Data, lda: a.Stride, ta: ta, b: b.Data, ldb: b.Stride, tb: tb, c: c.Data, ldc: c.Stride, k: k}
	p.split(m, n, false)
}

// Gram computes the symmetric c = alpha·aᵀa + beta·c for an n × r matrix
// a and an r × r matrix c, like blas64.Syrk(blas.Trans, …) on the upper
// triangle, and then copies the upper triangle into the lower one, so c
// is filled on both sides. With beta ≠ 0 only the upper triangle of c is
// read. c may share storage with a (a is then copied first). It panics if
// c is not r × r or a's or c's storage is too short for its shape.
func Gram(alpha float64, a blas64.General, beta float64, c blas64.General) {
	host.gram(alpha, a, beta, c)
}

// gram is Gram with the kernels of e.
func (e products) gram(alpha float64, a blas64.General, beta float64, c blas64.General) {
	r := a.Cols
	if c.Rows != r || c.Cols != r {
		panic("dense: Gram: c is not a.Cols × a.Cols")
	}
	n := a.Rows
	checkStorage(a, "a")
	checkStorage(c, "c")
	if overlaps(c, a) {
		a = copyGeneral(a)
	}
	if e.level == portable || r*r*n < smallWork {
		blas64.Syrk(blas.Trans, alpha, a, beta, blas64.Symmetric{Uplo: blas.Upper, N: r, Stride: c.Stride, Data: c.Data})
		mirror(c)
		return
	}
	scale(beta, c, true)
	if alpha != 0 && n != 0 {
		p := product{u: microFor(e.level), work: e.parallelWork, alpha: alpha, a: a.Data, lda: a.Stride, ta: true, b: a.Data, ldb: a.Stride, k: n, c: c.Data, ldc: c.Stride}
		p.split(r, r, true)
	}
	mirror(c)
}

// checkStorage panics if g's dimensions are negative, or g is not empty
// and its stride is shorter than its rows or its data shorter than its
// last row's end.
func checkStorage(g blas64.General, name string) {
	if g.Rows < 0 || g.Cols < 0 {
		panic("dense: negative dimension of " + name)
	}
	if g.Rows == 0 || g.Cols == 0 {
		return
	}
	if g.Stride < g.Cols || len(g.Data) < (g.Rows-1)*g.Stride+g.Cols {
		panic("dense: " + name + "'s storage is too short")
	}
}

// overlaps reports whether the storage spans of the non-empty c and g,
// from their first element to their last, share memory.
func overlaps(c, g blas64.General) bool {
	if c.Rows == 0 || c.Cols == 0 || g.Rows == 0 || g.Cols == 0 {
		return false
	}
	c0 := uintptr(unsafe.Pointer(&c.Data[0]))
	c1 := uintptr(unsafe.Pointer(&c.Data[(c.Rows-1)*c.Stride+c.Cols-1]))
	g0 := uintptr(unsafe.Pointer(&g.Data[0]))
	g1 := uintptr(unsafe.Pointer(&g.Data[(g.Rows-1)*g.Stride+g.Cols-1]))
	return c0 <= g1 && g0 <= c1
}

// copyGeneral returns a compact copy of g.
func copyGeneral(g blas64.General) blas64.General {
	d := make([]float64, g.Rows*g.Cols)
	for i := range g.Rows {
		copy(d[i*g.Cols:(i+1)*g.Cols], g.Data[i*g.Stride:i*g.Stride+g.Cols])
	}
	return blas64.General{Rows: g.Rows, Cols: g.Cols, Stride: g.Cols, Data: d}
}

// mirror copies the upper triangle of the square c into its lower one.
func mirror(c blas64.General) {
	for i := 1; i < c.Rows; i++ {
		row := c.Data[i*c.Stride : i*c.Stride+i]
		for j := range row {
			row[j] = c.Data[j*c.Stride+i]
		}
	}
}

// scale sets c = beta·c (c = 0 when beta is 0), on the upper triangle
// only if upper.
func scale(beta float64, c blas64.General, upper bool) {
	if beta == 1 {
		return
	}
	for i := range c.Rows {
		lo := 0
		if upper {
			lo = i
		}
		row := c.Data[i*c.Stride+lo : i*c.Stride+c.Cols]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// product is one call's C += α op(A) op(B): the operands' storage, their
// transposes and the inner dimension k.
type product struct {
	u     micro
	work  int // products.parallelWork
	alpha float64
	a     []float64
	lda   int
	ta    bool
	b     []float64
	ldb   int
	tb    bool
	c     []float64
	ldc   int
	k     int
}

// split runs the m × n product on up to GOMAXPROCS goroutines: along the
// longer side of C, or for the upper triangle (upper) along the columns
// with equal shares of the triangle's area.
func (p *product) split(m, n int, upper bool) {
	mr, nr := p.u.mr, p.u.nr
	w := runtime.GOMAXPROCS(0)
	work := float64(m) * float64(n) * float64(p.k)
	if upper {
		work /= 2
	}
	w = min(w, int(work/float64(p.work))+1)
	switch {
	case upper:
		w = min(w, (n+nr-1)/nr)
	case m >= n:
		w = min(w, (m+mr-1)/mr)
	default:
		w = min(w, (n+nr-1)/nr)
	}
	if w <= 1 {
		p.block(0, m, 0, n, upper)
		return
	}
	var wg sync.WaitGroup
	prev := 0
	for i := 1; i <= w; i++ {
		var end int
		switch {
		case i == w && upper || i == w && m < n:
			end = n
		case i == w:
			end = m
		case upper:
			end = roundUp(int(float64(n)*math.Sqrt(float64(i)/float64(w))), nr)
		case m >= n:
			end = roundUp(i*m/w, mr)
		default:
			end = roundUp(i*n/w, nr)
		}
		// Rounding up to whole tiles may overshoot C (the square-root
		// split does for n = 13: 16 > 13); past C there is nothing to
		// compute and the kernel would read a and write c out of bounds.
		if upper || m < n {
			end = min(end, n)
		} else {
			end = min(end, m)
		}
		lo := prev
		prev = end
		if end <= lo {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch {
			case upper:
				p.block(0, end, lo, end, true)
			case m >= n:
				p.block(lo, end, 0, n, false)
			default:
				p.block(0, m, lo, end, false)
			}
		}()
	}
	wg.Wait()
}

// roundUp returns x rounded up to a multiple of q.
func roundUp(x, q int) int { return (x + q - 1) / q * q }

// buffers are one goroutine's packing buffers.
type buffers struct {
	a, b []float64
	tile [maxTile]float64
}

var pool = sync.Pool{New: func() any { return new(buffers) }}

// grow returns s with length n, reallocated if its capacity is short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// block computes C[i0:i1, j0:j1] += α op(A)[i0:i1, :] op(B)[:, j0:j1]; with
// upper it skips the tiles wholly below the diagonal of C.
func (p *product) block(i0, i1, j0, j1 int, upper bool) {
	u := p.u
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	kb := min(u.kc, p.k)
	buf.a = grow(buf.a, kb*roundUp(min(u.mc, i1-i0), u.mr))
	buf.b = grow(buf.b, kb*roundUp(min(u.nc, j1-j0), u.nr))
	for jc := j0; jc < j1; jc += u.nc {
		nb := min(u.nc, j1-jc)
		iEnd := i1
		if upper {
			iEnd = min(i1, jc+nb)
		}
		for pc := 0; pc < p.k; pc += u.kc {
			kb := min(u.kc, p.k-pc)
			packB(buf.b, p.b, p.ldb, p.tb, pc, kb, jc, nb, u.nr)
			for ic := i0; ic < iEnd; ic += u.mc {
				mb := min(u.mc, iEnd-ic)
				packA(buf.a, p.a, p.lda, p.ta, ic, mb, pc, kb, u.mr)
				p.macro(buf, ic, mb, jc, nb, kb, upper)
			}
		}
	}
}

// macro runs the micro-kernel over the packed mb × kb block of A and
// kb × nb block of B, adding into C at (ic, jc).
func (p *product) macro(buf *buffers, ic, mb, jc, nb, kb int, upper bool) {
	mr, nr, run := p.u.mr, p.u.nr, p.u.run
	for jr := 0; jr < nb; jr += nr {
		w := min(nr, nb-jr)
		bp := &buf.b[jr*kb]
		for ir := 0; ir < mb; ir += mr {
			if upper && ic+ir >= jc+jr+nr {
				break
			}
			h := min(mr, mb-ir)
			ap := &buf.a[ir*kb]
			off := (ic+ir)*p.ldc + jc + jr
			if h == mr && w == nr {
				run(kb, ap, bp, &p.c[off], p.ldc, p.alpha)
				continue
			}
			t := buf.tile[:mr*nr]
			clear(t)
			run(kb, ap, bp, &t[0], nr, p.alpha)
			for i := range h {
				row := p.c[off+i*p.ldc : off+i*p.ldc+w]
				for j := range row {
					row[j] += t[i*nr+j]
				}
			}
		}
	}
}

// packA copies op(A)[i0:i0+mb, p0:p0+kb] into dst as panels of mr rows:
// panel q holds, for each p, the mr values op(A)[i0+q·mr+i, p0+p], zero
// past row i0+mb.
func packA(dst, a []float64, lda int, trans bool, i0, mb, p0, kb, mr int) {
	for ip := 0; ip < mb; ip += mr {
		h := min(mr, mb-ip)
		d := dst[ip*kb : ip*kb+kb*mr]
		if h < mr {
			clear(d) // the padding rows
		}
		switch {
		case trans && h == 6 && mr == 6:
			// Element by element: copy (and array assignment) call
			// memmove, which costs more than six moves.
			for p := range kb {
				s := (p0+p)*lda + i0 + ip
				src, dp := a[s:s+6:s+6], d[p*6:p*6+6:p*6+6]
				dp[0], dp[1], dp[2], dp[3], dp[4], dp[5] = src[0], src[1], src[2], src[3], src[4], src[5]
			}
		case trans && h == 8 && mr == 8:
			for p := range kb {
				s := (p0+p)*lda + i0 + ip
				src, dp := a[s:s+8:s+8], d[p*8:p*8+8:p*8+8]
				dp[0], dp[1], dp[2], dp[3] = src[0], src[1], src[2], src[3]
				dp[4], dp[5], dp[6], dp[7] = src[4], src[5], src[6], src[7]
			}
		case trans:
			for p := range kb {
				s := (p0+p)*lda + i0 + ip
				for i, v := range a[s : s+h] {
					d[p*mr+i] = v
				}
			}
		case h == 6 && mr == 6:
			// The mr rows side by side: six sequential reads and one
			// sequential write, where a row at a time writes with
			// stride mr.
			s := (i0+ip)*lda + p0
			r0 := a[s : s+kb]
			r1 := a[s+lda : s+lda+kb]
			r2 := a[s+2*lda : s+2*lda+kb]
			r3 := a[s+3*lda : s+3*lda+kb]
			r4 := a[s+4*lda : s+4*lda+kb]
			r5 := a[s+5*lda : s+5*lda+kb]
			for p, v := range r0 {
				dp := d[p*6 : p*6+6 : p*6+6]
				dp[0], dp[1], dp[2], dp[3], dp[4], dp[5] = v, r1[p], r2[p], r3[p], r4[p], r5[p]
			}
		default:
			for i := range h {
				s := (i0+ip+i)*lda + p0
				for p, v := range a[s : s+kb] {
					d[p*mr+i] = v
				}
			}
		}
	}
}

// packB copies op(B)[p0:p0+kb, j0:j0+nb] into dst as panels of nr
// columns: panel q holds, for each p, the nr values op(B)[p0+p, j0+q·nr+j],
// zero past column j0+nb.
func packB(dst, b []float64, ldb int, trans bool, p0, kb, j0, nb, nr int) {
	for jp := 0; jp < nb; jp += nr {
		w := min(nr, nb-jp)
		d := dst[jp*kb : jp*kb+kb*nr]
		if w < nr {
			clear(d) // the padding columns
		}
		switch {
		case trans:
			for j := range w {
				s := (j0+jp+j)*ldb + p0
				for p, v := range b[s : s+kb] {
					d[p*nr+j] = v
				}
			}
		case w == 8 && nr == 8:
			for p := range kb {
				s := (p0+p)*ldb + j0 + jp
				src, dp := b[s:s+8:s+8], d[p*8:p*8+8:p*8+8]
				dp[0], dp[1], dp[2], dp[3] = src[0], src[1], src[2], src[3]
				dp[4], dp[5], dp[6], dp[7] = src[4], src[5], src[6], src[7]
			}
		default:
			// A row of nr (24) values is long enough for copy.
			for p := range kb {
				s := (p0+p)*ldb + j0 + jp
				copy(d[p*nr:p*nr+w], b[s:s+w])
			}
		}
	}
}
