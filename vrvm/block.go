package vrvm

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
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
//
// A BlockKernel may also implement
//
//	SymmetricBlock() bool
//
// to report that EvalBlock(dst, c, x) fills dst with the transpose of
// EvalBlock(dst, x, c) to the bit; the transposed blocks predictions
// need are then evaluated in place rather than through a copy.
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

func dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

// symmetricBlock reports whether bk says its blocks are symmetric to the
// bit (SymmetricBlock).
func symmetricBlock(bk BlockKernel) bool {
	s, ok := bk.(interface{ SymmetricBlock() bool })
	return ok && s.SymmetricBlock()
}

// blockKernel returns the BlockKernel behind k (looking through a
// NamedKernel's name), or nil.
func blockKernel(k Kernel) BlockKernel {
	if sk, ok := k.(scaledKernel); ok {
		k = sk.k
	}
	if in, ok := k.(interface{ inner() Kernel }); ok {
		k = in.inner()
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
	switch {
	case !byCols:
		bk.EvalBlock(dst, x, c)
	case symmetricBlock(bk):
		bk.EvalBlock(dst, c, x)
	default:
		var tmp mat.Dense
		tmp.ReuseAs(n, m)
		bk.EvalBlock(&tmp, x, c)
		dst.Copy(tmp.T())
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
