package vrvm

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
)

// Kernels evaluated by blocks. Design matrices (for fits) and predictions
// evaluate the kernel on blocks of rows: a kernel that implements
// BlockKernel fills a whole block in one call, through BLAS where the
// input dimension is large enough to gain from it; any other kernel is
// called through Eval, element by element, on views of the rows (no
// allocation per row).

// BlockKernel is a Kernel that can evaluate itself on every pair of rows
// of two matrices at once. The library uses EvalBlock, when a kernel has
// it, for design matrices and predictions; Gaussian, Polynomial and
// Linear implement it. EvalBlock must give the same values as Eval (to
// rounding) and must not retain or modify x or c.
type BlockKernel interface {
	Kernel
	// EvalBlock sets dst[i, j] = K(xᵢ, cⱼ) for the rows xᵢ of x and cⱼ
	// of c. dst must be r × s for x with r rows and c with s rows, and x
	// and c must have the same number of columns; otherwise it panics.
	EvalBlock(dst, x, c *mat.Dense)
}

// gemmDim is the input dimension from which the block kernels form the
// squared distances (or inner products) as ‖x‖² + ‖c‖² − 2XCᵀ through
// matrix multiplication; below it they loop over the coordinates of each
// pair, which is faster for a few columns and gives exactly Eval's
// values. Measured by BenchmarkKernelBlock (d = 2 … 64).
const gemmDim = 16

// checkBlock panics unless dst is rows(x) × rows(c) and x, c have the same
// number of columns.
func checkBlock(dst, x, c *mat.Dense) {
	n, d := x.Dims()
	m, dc := c.Dims()
	r, s := dst.Dims()
	if d != dc || r != n || s != m {
		panic(mat.ErrShape)
	}
}

// innerBlock sets dst = XCᵀ, by BLAS for d ≥ gemmDim and pair by pair
// (in Eval's order) otherwise.
func innerBlock(dst, x, c *mat.Dense) {
	_, d := x.Dims()
	if d >= gemmDim {
		mul(dst, x, c.T())
		return
	}
	m, _ := c.Dims()
	cr := c.RawMatrix()
	n, _ := x.Dims()
	for i := range n {
		xi := x.RawRowView(i)
		row := dst.RawRowView(i)[:m]
		for j := range row {
			row[j] = dot(xi, cr.Data[j*cr.Stride:j*cr.Stride+d])
		}
	}
}

// EvalBlock sets dst[i, j] = exp(−‖xᵢ − cⱼ‖² / Width²) (see BlockKernel).
// From 16 input columns the squared distances are formed as
// ‖xᵢ‖² + ‖cⱼ‖² − 2xᵢ·cⱼ through BLAS, after both sets are shifted by the
// mean of c (the kernel depends only on differences; the shift keeps the
// cancellation small); below that, pair by pair as Eval does.
func (k Gaussian) EvalBlock(dst, x, c *mat.Dense) {
	_, d := x.Dims()
	k.evalBlock(dst, x, c, d >= gemmDim)
}

// evalBlock is EvalBlock through BLAS if gemm, else pair by pair, at any
// input dimension (BenchmarkKernelBlock compares the two).
func (k Gaussian) evalBlock(dst, x, c *mat.Dense, gemm bool) {
	checkBlock(dst, x, c)
	n, d := x.Dims()
	m, _ := c.Dims()
	s := k.scale()
	if !gemm {
		cr := c.RawMatrix()
		for i := range n {
			xi := x.RawRowView(i)
			row := dst.RawRowView(i)[:m]
			switch d {
			case 1: // the sinc problems
				x0 := xi[0]
				for j := range row {
					e := x0 - cr.Data[j*cr.Stride]
					row[j] = e * e * s
				}
			case 2:
				x0, x1 := xi[0], xi[1]
				for j := range row {
					c := cr.Data[j*cr.Stride : j*cr.Stride+2]
					e, f := x0-c[0], x1-c[1]
					row[j] = (e*e + f*f) * s
				}
			default:
				for j := range row {
					cj := cr.Data[j*cr.Stride : j*cr.Stride+d]
					cj = cj[:len(xi)]
					var d2 float64
					for l, v := range xi {
						e := v - cj[l]
						d2 += e * e
					}
					row[j] = d2 * s
				}
			}
			expTo(row)
		}
		return
	}
	shift := make([]float64, d)
	for j := range m {
		for l, v := range c.RawRowView(j) {
			shift[l] += v
		}
	}
	for l := range shift {
		shift[l] /= float64(m)
	}
	xs, xn := shifted(x, shift)
	cs, cn := shifted(c, shift)
	dense.Gemm(blas.NoTrans, blas.Trans, -2, xs.RawMatrix(), cs.RawMatrix(), 0, dst.RawMatrix())
	for i := range n {
		row := dst.RawRowView(i)[:m]
		for j, v := range row {
			row[j] = max(0, v+xn[i]+cn[j]) * s
		}
		expTo(row)
	}
}

// shifted returns the rows of a minus shift and their squared norms.
func shifted(a *mat.Dense, shift []float64) (*mat.Dense, []float64) {
	r, d := a.Dims()
	out := mat.NewDense(r, d, nil)
	norms := make([]float64, r)
	for i := range r {
		src, dst := a.RawRowView(i), out.RawRowView(i)
		var s float64
		for l, v := range src {
			e := v - shift[l]
			dst[l] = e
			s += e * e
		}
		norms[i] = s
	}
	return out, norms
}

// EvalBlock sets dst[i, j] = (1 + Scale·xᵢ·cⱼ)^Degree (see BlockKernel),
// the inner products by BLAS from 16 input columns.
func (k Polynomial) EvalBlock(dst, x, c *mat.Dense) {
	checkBlock(dst, x, c)
	innerBlock(dst, x, c)
	s := k.Scale
	if s == 0 {
		s = 1
	}
	n, _ := x.Dims()
	m, _ := c.Dims()
	for i := range n {
		row := dst.RawRowView(i)[:m]
		for j, ip := range row {
			base := 1 + s*ip
			v := 1.0
			for range k.Degree {
				v *= base
			}
			row[j] = v
		}
	}
}

// EvalBlock sets dst[i, j] = xᵢ·cⱼ (see BlockKernel), by BLAS from 16
// input columns.
func (Linear) EvalBlock(dst, x, c *mat.Dense) {
	checkBlock(dst, x, c)
	innerBlock(dst, x, c)
}

// blockKernel returns the BlockKernel behind k (looking through a
// registered kernel's name), or nil.
func blockKernel(k Kernel) BlockKernel {
	if sk, ok := k.(scaledKernel); ok {
		k = sk.k
	}
	if nk, ok := k.(namedKernel); ok {
		k = nk.k
	}
	bk, _ := k.(BlockKernel)
	return bk
}

// kernelBlock sets dst[i, j] = K(xᵢ, cⱼ) for the rows of x and c, or,
// with byCols, dst[j, i] (the block transposed, as latentColumns reads
// it). It uses EvalBlock where k has it, else Eval. The built-in kernels
// are symmetric to the bit (their pairwise sums and products are the same
// in either order), so byCols fills dst as EvalBlock(dst, c, x); another
// BlockKernel fills a row-major block that is then transposed. A
// non-finite value from EvalBlock is evaluated again by Eval (the block
// form can overflow where the pairwise one does not); a non-finite value
// from Eval is returned as a *NonFiniteError with the row (plus row0) and
// centre (centre[j]).
func kernelBlock(k Kernel, dst, x, c *mat.Dense, row0 int, centre []int, byCols bool) error {
	n, _ := x.Dims()
	m, _ := c.Dims()
	raw := dst.RawMatrix()
	rs, cs := raw.Stride, 1 // dst[i, j] at i·rs + j·cs
	if byCols {
		rs, cs = 1, raw.Stride
	}
	if sk, ok := k.(scaledKernel); ok {
		// The kernel's block divided by its scale (U1).
		if err := kernelBlock(sk.k, dst, x, c, row0, centre, byCols); err != nil {
			return err
		}
		for i := range n {
			for j := range m {
				raw.Data[i*rs+j*cs] /= sk.s
			}
		}
		return nil
	}
	bk := blockKernel(k)
	if bk == nil {
		for i := range n {
			xi := x.RawRowView(i)
			for j := range m {
				v := k.Eval(xi, c.RawRowView(j))
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return &NonFiniteError{What: "kernel value", Row: row0 + i, Col: centre[j], Value: v}
				}
				raw.Data[i*rs+j*cs] = v
			}
		}
		return nil
	}
	switch bk.(type) {
	case Gaussian, Polynomial, Linear:
		if byCols {
			bk.EvalBlock(dst, c, x)
		} else {
			bk.EvalBlock(dst, x, c)
		}
	default:
		if !byCols {
			bk.EvalBlock(dst, x, c)
			break
		}
		var tmp mat.Dense
		tmp.ReuseAs(n, m)
		bk.EvalBlock(&tmp, x, c)
		dst.Copy(tmp.T())
	}
	if _, ok := bk.(Gaussian); ok && c.RawMatrix().Cols < gemmDim {
		// Pair by pair, exp of a finite or −∞ argument: in [0, 1].
		return nil
	}
	for i := range n {
		for j := range m {
			if v := raw.Data[i*rs+j*cs]; v-v != 0 { // NaN or ±Inf
				v = k.Eval(x.RawRowView(i), c.RawRowView(j))
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return &NonFiniteError{What: "kernel value", Row: row0 + i, Col: centre[j], Value: v}
				}
				raw.Data[i*rs+j*cs] = v
			}
		}
	}
	return nil
}

// blockRows is the number of rows per block for m columns: blocks of
// about 64k elements (512 KB), at least 8 rows.
func blockRows(m int) int { return max(8, min(1024, (1<<16)/max(1, m))) }

// parallelBlocks calls f(lo, hi, worker) for consecutive blocks [lo, hi)
// of size rows covering [0, n), spreading the blocks over up to
// GOMAXPROCS workers when there are at least minWork elements (n·cols) in
// all. Worker w runs its blocks in order; f must only use the buffers of
// its worker. It returns the error of the lowest block that failed.
func parallelBlocks(ctx context.Context, n, size, cols int, f func(lo, hi, worker int) error) error {
	const minWork = 1 << 15
	blocks := (n + size - 1) / size
	w := min(runtime.GOMAXPROCS(0), blocks)
	if n*cols < minWork {
		w = 1
	}
	if w <= 1 {
		for lo := 0; lo < n; lo += size {
			if err := stopped(ctx, 0); err != nil {
				return err
			}
			if err := f(lo, min(n, lo+size), 0); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, blocks)
	var wg sync.WaitGroup
	for worker := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := worker; b < blocks; b += w {
				if err := stopped(ctx, 0); err != nil {
					errs[b] = err
					return
				}
				lo := b * size
				if errs[b] = f(lo, min(n, lo+size), worker); errs[b] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// denseOf returns x as a *mat.Dense: x itself if it is one, else a copy.
func denseOf(x mat.Matrix) *mat.Dense {
	if d, ok := x.(*mat.Dense); ok {
		return d
	}
	return mat.DenseCopyOf(x)
}

// checkFiniteDense is checkFinite for a *mat.Dense, on its raw rows.
func checkFiniteDense(what string, x *mat.Dense) error {
	n, _ := x.Dims()
	for i := range n {
		for j, v := range x.RawRowView(i) {
			if v-v != 0 { // NaN or ±Inf
				return &NonFiniteError{What: what, Row: i, Col: j, Value: v}
			}
		}
	}
	return nil
}
