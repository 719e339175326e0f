package vrvm

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
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

func dot(x, y []float64) float64 { return vec.Dot(x, y) }

// kernelBlock sets dst[i, j] = K(xᵢ, cⱼ) for the rows of x and c, or,
// with byCols, dst[j, i] (the block transposed, as latentColumns reads
// it), by design.Fill: EvalBlock where k has it, else Eval. A non-finite
// value is returned as a *NonFiniteError with the row (plus row0) and
// centre (centre[j]).
func kernelBlock(k Kernel, dst, x, c *mat.Dense, row0 int, centre []int, byCols bool) error {
	return kernelErr(design.Fill(k, dst, x, c, row0, centre, byCols))
}

// kernelErr returns the *NonFiniteError of a non-finite kernel value that
// err reports (a *design.NonFiniteError), or err.
func kernelErr(err error) error {
	var nf *design.NonFiniteError
	if errors.As(err, &nf) {
		return &NonFiniteError{What: "kernel value", Row: nf.Row, Col: nf.Col, Value: nf.Value}
	}
	return err
}

// kernelValues sets out[i] = K(rows[i], rows[c(i)]) for every row, in
// parallel (design.Values); a non-finite value is a *NonFiniteError.
func kernelValues(k Kernel, rows [][]float64, out []float64, c func(i int) int) error {
	return kernelErr(design.Values(k, rows, out, c))
}

// blockRows is design.BlockRows: rows per block for m columns.
func blockRows(m int) int { return design.BlockRows(m) }

// parallelBlocks is design.Parallel, stopping, with the error of stopped,
// when ctx is done.
func parallelBlocks(ctx context.Context, n, size, cols int, f func(lo, hi, worker int) error) error {
	return design.Parallel(n, size, cols, func() error { return stopped(ctx, 0) }, f)
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
