package design

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// EvalBlockSize is the number of kernel evaluations per block of Columns
// for kernels without EvalBlock, which may be slow (interpreted): stop is
// then called every EvalBlockSize evaluations or so.
const EvalBlockSize = 4096

// BlockOf returns the Block behind k (looking through Scaled and through
// a kernel's Inner), or nil.
func BlockOf(k Kernel) Block {
	if sk, ok := k.(Scaled); ok {
		k = sk.K
	}
	if in := inner(k); in != nil {
		k = in
	}
	bk, _ := k.(Block)
	return bk
}

// symmetric reports whether bk says its blocks are symmetric to the bit.
func symmetric(bk Block) bool {
	s, ok := bk.(interface{ SymmetricBlock() bool })
	return ok && s.SymmetricBlock()
}

// Fill sets dst[i, j] = K(xᵢ, cⱼ) for the rows of x and c, or, with
// byCols, dst[j, i] (the block transposed). It uses EvalBlock where k has
// it, else Eval; a Scaled kernel's block is its kernel's divided by S
// (U1). A kernel whose blocks are symmetric to the bit (SymmetricBlock)
// fills a transposed block as EvalBlock(dst, c, x); another Block fills a
// row-major block that is then transposed. A non-finite value from
// EvalBlock is evaluated again by Eval (the block form can overflow where
// the pairwise one does not); a non-finite value from Eval is returned as
// a *NonFiniteError with the row (plus row0) and centre (centre[j]).
func Fill(k Kernel, dst, x, c *mat.Dense, row0 int, centre []int, byCols bool) error {
	n, _ := x.Dims()
	m, _ := c.Dims()
	raw := dst.RawMatrix()
	rs, cs := raw.Stride, 1 // dst[i, j] at i·rs + j·cs
	if byCols {
		rs, cs = 1, raw.Stride
	}
	if sk, ok := k.(Scaled); ok {
		// The kernel's block divided by its scale (U1).
		if err := Fill(sk.K, dst, x, c, row0, centre, byCols); err != nil {
			return err
		}
		for i := range n {
			for j := range m {
				raw.Data[i*rs+j*cs] /= sk.S
			}
		}
		return nil
	}
	bk := BlockOf(k)
	if bk == nil {
		for i := range n {
			xi := x.RawRowView(i)
			for j := range m {
				v := k.Eval(xi, c.RawRowView(j))
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return &NonFiniteError{Row: row0 + i, Col: centre[j], Value: v}
				}
				raw.Data[i*rs+j*cs] = v
			}
		}
		return nil
	}
	switch {
	case !byCols:
		bk.EvalBlock(dst, x, c)
	case symmetric(bk):
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
					return &NonFiniteError{Row: row0 + i, Col: centre[j], Value: v}
				}
				raw.Data[i*rs+j*cs] = v
			}
		}
	}
	return nil
}

// Columns sets the kernel columns of phi: phi[i, pos[j]] = K(xᵢ, cⱼ) for
// the rows xᵢ of x and the rows cⱼ = centres[centre[j]]. It evaluates the
// kernel by blocks of rows, in parallel for large designs (Parallel), and
// calls stop (if not nil) before each block, returning its error if it
// has one. Where the kernel columns are the last ones of phi (after a
// bias, if any) they are written in place; otherwise through a buffer
// per worker.
func Columns(phi *mat.Dense, k Kernel, x, centres *mat.Dense, pos, centre []int, stop func() error) error {
	n, d := x.Dims()
	cm := mat.NewDense(len(centre), d, nil)
	for j, c := range centre {
		copy(cm.RawRowView(j), centres.RawRowView(c))
	}
	_, cols := phi.Dims()
	direct := pos[0]+len(pos) == cols // the kernel columns last and contiguous
	size := BlockRows(len(centre))
	if BlockOf(k) == nil {
		size = max(1, EvalBlockSize/len(centre))
	}
	var bufs [][]float64
	if !direct {
		bufs = make([][]float64, runtime.GOMAXPROCS(0))
	}
	return Parallel(n, size, len(centre), stop, func(lo, hi, w int) error {
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		if direct {
			return Fill(k, phi.Slice(lo, hi, pos[0], pos[0]+len(pos)).(*mat.Dense), xb, cm, lo, centre, false)
		}
		if bufs[w] == nil {
			bufs[w] = make([]float64, size*len(centre))
		}
		dst := mat.NewDense(hi-lo, len(centre), bufs[w][:(hi-lo)*len(centre)])
		if err := Fill(k, dst, xb, cm, lo, centre, false); err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			src, row := dst.RawRowView(i-lo), phi.RawRowView(i)
			for j, p := range pos {
				row[p] = src[j]
			}
		}
		return nil
	})
}

// BlockRows is the number of rows per block for m columns: blocks of
// about 64k elements (512 KB), at least 8 rows.
func BlockRows(m int) int { return max(8, min(1024, (1<<16)/max(1, m))) }

// Parallel calls f(lo, hi, worker) for consecutive blocks [lo, hi) of
// size rows covering [0, n), spreading the blocks over up to GOMAXPROCS
// workers when there are at least 2¹⁵ elements (n·cols) in all. Worker w
// runs its blocks in order; f must only use the buffers of its worker.
// Before each block it calls stop (if not nil) and ends with its error.
// It returns the error of the lowest block that failed.
func Parallel(n, size, cols int, stop func() error, f func(lo, hi, worker int) error) error {
	const minWork = 1 << 15
	if stop == nil {
		stop = func() error { return nil }
	}
	blocks := (n + size - 1) / size
	w := min(runtime.GOMAXPROCS(0), blocks)
	if n*cols < minWork {
		w = 1
	}
	if w <= 1 {
		for lo := 0; lo < n; lo += size {
			if err := stop(); err != nil {
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
				if err := stop(); err != nil {
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
