package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

const blasNoTrans = blas.NoTrans

// RelevanceThreshold is the weight magnitude above which a basis function
// counts as a relevance vector, as in the paper's tables (|⟨wₘ⟩| > 1e-3).
const RelevanceThreshold = 1e-3

// fitResult is the fitted state shared by every estimator: the active basis
// functions and the Gaussian posterior (or Laplace approximation) over
// their weights, with the hyperparameters and the fit's history.
type fitResult struct {
	status Status
	b      basis     // the active basis: bias (if active) + active centres, or a user design
	rows   []int     // training rows of the active kernel functions, or the active design columns
	design []int     // for a user design: the columns of b to use; nil for kernels
	mu     []float64 // posterior mean of the active weights
	sigma  *mat.SymDense
	alpha  []float64 // ⟨αₘ⟩ (or αₘ for type-II ML) of the active functions
	trace  []float64 // the bound or log evidence after each iteration, initial value first
	iters  int
}

// set records the result of an iteration over the full basis b.
func (f *fitResult) set(b basis, cols []int, q *gaussQ, g *gammaQ, trace []float64, iters int, status Status) {
	alpha := make([]float64, len(cols))
	for i := range alpha {
		alpha[i] = g.mean(i)
	}
	f.setPosterior(b, cols, append([]float64(nil), q.mu...), q.sigma(), alpha)
	f.trace, f.iters, f.status = trace, iters, status
}

// setPosterior stores the active basis in compact form: the centres of the
// active kernel functions are copied out of the training inputs.
func (f *fitResult) setPosterior(b basis, cols []int, mu []float64, sigma *mat.SymDense, alpha []float64) {
	f.mu, f.sigma, f.alpha = mu, sigma, alpha
	if b.kernel == nil {
		f.b = b
		f.rows = append([]int(nil), cols...)
		f.design = f.rows
		return
	}
	f.design, f.rows = nil, nil
	off := b.offset()
	var centres []float64
	f.b = basis{kernel: b.kernel, dim: b.dim}
	for _, c := range cols {
		if b.bias && c == 0 {
			f.b.bias = true
			continue
		}
		f.rows = append(f.rows, c-off)
		centres = append(centres, b.centers.RawRowView(c-off)...)
	}
	if len(centres) > 0 {
		f.b.centers = mat.NewDense(len(centres)/b.dim, b.dim, centres)
	}
}

func (f *fitResult) mustFit() {
	if f.status == NotFitted {
		panic(ErrNotFitted)
	}
}

// predictDesign evaluates the active basis at x.
func (f *fitResult) predictDesign(x mat.Matrix) (*mat.Dense, error) {
	if f.status == NotFitted {
		return nil, ErrNotFitted
	}
	if x == nil {
		return nil, ErrNoData
	}
	if err := checkFinite("x", x); err != nil {
		return nil, err
	}
	if f.design != nil {
		return f.b.design(x, f.design)
	}
	return f.b.design(x, seq(len(f.mu)))
}

// latent returns the mean μᵀφ(x) and variance φ(x)ᵀΣφ(x) of the latent
// function y(x) = wᵀφ(x) under Q_w, for each row of x.
func (f *fitResult) latent(x mat.Matrix) (mean, variance []float64, err error) {
	phi, err := f.predictDesign(x)
	if err != nil {
		return nil, nil, err
	}
	n, m := phi.Dims()
	mean = make([]float64, n)
	variance = make([]float64, n)
	if m == 0 {
		return mean, variance, nil
	}
	mat.NewVecDense(n, mean).MulVec(phi, mat.NewVecDense(m, f.mu))
	var ps mat.Dense
	ps.Mul(phi, f.sigma)
	for i := range n {
		v := mat.Dot(ps.RowView(i), phi.RowView(i))
		variance[i] = math.Max(0, v)
		if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) {
			return nil, nil, &NonFiniteError{What: "predicted mean", Row: i, Col: -1, Value: mean[i]}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, &NonFiniteError{What: "predicted variance", Row: i, Col: -1, Value: v}
		}
	}
	return mean, variance, nil
}

// Accessors shared by every estimator.

// Status returns how the last fit ended (NotFitted before a successful fit).
func (f *fitResult) Status() Status { return f.status }

func (f *fitResult) relevant() []int {
	f.mustFit()
	var idx []int
	first := 0 // position of the first kernel (or design) weight in mu
	if f.hasBias() {
		first = 1
	}
	for i, r := range f.rows {
		if math.Abs(f.mu[first+i]) > RelevanceThreshold {
			idx = append(idx, r)
		}
	}
	return idx
}

func (f *fitResult) activeIdx() []int {
	f.mustFit()
	return append([]int(nil), f.rows...)
}

// helpers on slices and matrices

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func selectCols(a *mat.Dense, keep []int) *mat.Dense {
	n, _ := a.Dims()
	out := mat.NewDense(n, len(keep), nil)
	for i := range n {
		src, dst := a.RawRowView(i), out.RawRowView(i)
		for j, k := range keep {
			dst[j] = src[k]
		}
	}
	return out
}

func selectSym(a *mat.SymDense, keep []int) *mat.SymDense {
	out := mat.NewSymDense(len(keep), nil)
	for i, ki := range keep {
		for j := i; j < len(keep); j++ {
			out.SetSym(i, j, a.At(ki, keep[j]))
		}
	}
	return out
}

func selectVec(a []float64, keep []int) []float64 {
	out := make([]float64, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}

func selectInts(a []int, keep []int) []int {
	out := make([]int, len(keep))
	for j, k := range keep {
		out[j] = a[k]
	}
	return out
}

func variance(t []float64) float64 {
	var mean float64
	for _, v := range t {
		mean += v
	}
	mean /= float64(len(t))
	var s float64
	for _, v := range t {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(t))
}

func (f *fitResult) lowerBound() float64 {
	f.mustFit()
	return f.trace[len(f.trace)-1]
}

func (f *fitResult) boundTrace() []float64 {
	f.mustFit()
	return append([]float64(nil), f.trace...)
}

func (f *fitResult) iterations() int { f.mustFit(); return f.iters }

func (f *fitResult) hasBias() bool { f.mustFit(); return f.design == nil && f.b.bias }

func (f *fitResult) inputs() *mat.Dense {
	f.mustFit()
	if f.b.centers == nil {
		return nil
	}
	return mat.DenseCopyOf(f.b.centers)
}

func (f *fitResult) mean() []float64 { f.mustFit(); return append([]float64(nil), f.mu...) }

func (f *fitResult) covariance() *mat.SymDense {
	f.mustFit()
	return mat.NewSymDense(len(f.mu), append([]float64(nil), f.sigma.RawSymmetric().Data...))
}

func (f *fitResult) alphas() []float64 { f.mustFit(); return append([]float64(nil), f.alpha...) }
