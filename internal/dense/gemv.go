package dense

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// parallelGemv is the size of a (elements) above which GemvT splits y
// among goroutines.
const parallelGemv = 1 << 17

// Gemv computes y = alpha·op(a)·x + beta·y with the semantics of
// blas64.Gemv (beta = 0 sets y to zero whatever it held). With tA =
// blas.Trans and unit increments it adds four rows of a into y per pass
// with the AVX2 kernel (where gonum adds one row per pass), on several
// goroutines for large a; otherwise it calls gonum. It panics if the sizes
// do not agree.
func Gemv(tA blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	host.gemv(tA, alpha, a, x, beta, y)
}

// gemv is Gemv with the kernels of e.
func (e products) gemv(tA blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	// Narrow matrices go to gonum too: a few values of y per pass do not
	// pay for the kernel's call (1257 × 8: 8.8 µs against gonum's 6.7).
	if tA == blas.NoTrans || e.level == portable || x.Inc != 1 || y.Inc != 1 || a.Rows < 4 || a.Cols < 16 {
		blas64.Gemv(tA, alpha, a, x, beta, y)
		return
	}
	if x.N != a.Rows || y.N != a.Cols {
		panic("dense: Gemv: x or y does not match a")
	}
	// Slicing checks against capacity, not length: check the lengths as
	// gonum does.
	checkStorage(a, "a")
	if len(x.Data) < x.N || len(y.Data) < y.N {
		panic("dense: Gemv: x or y is shorter than its N")
	}
	yd := y.Data[:y.N]
	switch beta {
	case 0:
		clear(yd)
	case 1:
	default:
		for j := range yd {
			yd[j] *= beta
		}
	}
	if alpha == 0 {
		return
	}
	n := a.Cols
	w := min(runtime.GOMAXPROCS(0), a.Rows*n/parallelGemv+1, n/64+1)
	if w <= 1 {
		gemvT(alpha, a, x.Data[:x.N], 0, n, yd)
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := roundUp(i*n/w, 4), roundUp((i+1)*n/w, 4)
		hi = min(hi, n)
		if i == w-1 {
			hi = n
		}
		if hi <= lo {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			gemvT(alpha, a, x.Data[:x.N], lo, hi, yd)
		}()
	}
	wg.Wait()
}

// gemvT adds alpha·aᵀx into y on the columns [lo, hi).
func gemvT(alpha float64, a blas64.General, x []float64, lo, hi int, y []float64) {
	w := hi - lo
	body := w &^ 3
	var xs [4]float64
	i := 0
	for ; i+4 <= a.Rows; i += 4 {
		for r := range 4 {
			xs[r] = alpha * x[i+r]
		}
		row := a.Data[i*a.Stride+lo:]
		if body > 0 {
			_ = row[3*a.Stride+body-1]
			gemvT4(body, &row[0], a.Stride, &xs, &y[lo])
		}
		for j := lo + body; j < hi; j++ {
			o := j - lo
			y[j] += xs[0]*row[o] + xs[1]*row[a.Stride+o] + xs[2]*row[2*a.Stride+o] + xs[3]*row[3*a.Stride+o]
		}
	}
	for ; i < a.Rows; i++ {
		s := alpha * x[i]
		row := a.Data[i*a.Stride+lo : i*a.Stride+hi]
		for j, v := range row {
			y[lo+j] += s * v
		}
	}
}
