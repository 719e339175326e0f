package vec

import "gonum.org/v1/gonum/mat"

// WorkDense returns an r × c matrix on the storage *buf, grown if need
// be; its contents are undefined. The work matrices of candidateStats
// (M × P at every full addition round) were most of the garbage of a
// Friedman #1 fit, and garbage raises the peak memory: the collector lets
// the heap grow to twice the live data (the N × P design) before it runs.
// A buffer grows by a quarter more than asked: C gains a row with every
// addition, and growing it to the size asked made a new M × P buffer at
// every full round after one; the N × M work matrices of the sweeps
// change shape with every addition and removal as well.
func WorkDense(buf *[]float64, r, c int) *mat.Dense {
	if r == 0 || c == 0 {
		return &mat.Dense{}
	}
	if n := r * c; cap(*buf) < n {
		*buf = make([]float64, n, n+n/4)
	}
	*buf = (*buf)[:r*c]
	return mat.NewDense(r, c, *buf)
}

// WorkSym returns an m × m symmetric matrix on the storage *buf (see
// WorkDense); its contents are undefined.
func WorkSym(buf *[]float64, m int) *mat.SymDense {
	if m == 0 {
		return &mat.SymDense{}
	}
	*buf = Resize(*buf, m*m)
	return mat.NewSymDense(m, *buf)
}

// ResizeBool returns b with length n, reallocated only if its capacity is
// short (the values are not kept).
func ResizeBool(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}
