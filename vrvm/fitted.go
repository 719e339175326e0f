package vrvm

import (
	"context"
	"fmt"
	"html"
	"math"
	"runtime"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// RelevanceThreshold is the weight magnitude above which a basis function
// counts as a relevance vector, as in the paper's tables (|⟨wₘ⟩| > 1e-3).
const RelevanceThreshold = 1e-3

// fitted is the fitted state shared by every estimator: the active basis
// functions and the Gaussian posterior (or Laplace approximation) over
// their weights, with the hyperparameters and the fit's history. Every
// estimator embeds it, so that its accessors are written once.
type fitted struct {
	status Status
	b      basis     // the active basis: bias (if active) + active centres, or a user design
	rows   []int     // training rows of the active kernel functions, or the active design columns
	design []int     // for a user design: the columns of b to use; nil for kernels
	mu     []float64 // posterior mean of the active weights
	sigma  *lazySigma
	alpha  []float64 // ⟨αₘ⟩ (or αₘ for type-II ML) of the active functions
	trace  []float64 // the bound or log evidence after each iteration, initial value first
	iters  int
	full   float64 // the full-model bound
	noise  float64 // noise variance (regression), 0 for classification
	// learnTrace is the full-model bound after each fit of kernel
	// learning (LearnKernel); nil without learning.
	learnTrace []float64
	// aug is the state of predictions augmented at the test point
	// (Augment); nil without augmentation.
	aug *augmentation
}

// record stores a solver's solution for the full basis b.
func (f *fitted) record(b basis, s *solution) {
	f.setPosterior(b, s.cols, s.mu, s.sigma, s.alpha)
	if s.sigma == nil {
		f.sigma = &lazySigma{f: s.sigmaOf}
	}
	f.trace, f.iters, f.status, f.full = s.trace, s.iters, s.status, s.full
	f.checkRelevance()
}

// checkRelevance turns Converged into InterceptOnly for a model without
// relevance vectors.
func (f *fitted) checkRelevance() {
	if f.status == Converged && len(f.RelevanceVectors()) == 0 {
		f.status = InterceptOnly
	}
}

// lazySigma is Σ, computed on first use when a solver leaves it to a
// function: forming a large Σ costs M³/3 flops, which an interrupted fit
// should not wait for.
type lazySigma struct {
	once sync.Once
	f    func() *mat.SymDense
	v    *mat.SymDense
}

func (l *lazySigma) get() *mat.SymDense {
	l.once.Do(func() {
		if l.f != nil {
			l.v, l.f = l.f(), nil
		}
	})
	return l.v
}

// setPosterior stores the active basis in compact form: the centres of the
// active kernel functions are copied out of the training inputs.
func (f *fitted) setPosterior(b basis, cols []int, mu []float64, sigma *mat.SymDense, alpha []float64) {
	f.mu, f.sigma, f.alpha = mu, &lazySigma{v: sigma}, alpha
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

func (f *fitted) mustFit() {
	if f.status == NotFitted {
		panic(ErrNotFitted)
	}
}

// Latent returns, for each row of x, the mean μᵀφ(x) and the variance
// φ(x)ᵀΣφ(x) of the latent function y(x) = wᵀφ(x) under Q_w (for a
// classifier, the activation whose sigmoid is the probability of class 1).
// For a model fitted with FitDesign, the rows of x hold the basis
// functions at the new inputs. It returns ErrNotFitted before a fit, and
// empty slices for a matrix with no rows.
func (f *fitted) Latent(x mat.Matrix) (mean, variance []float64, err error) {
	if f.status == NotFitted {
		return nil, nil, ErrNotFitted
	}
	if x == nil {
		return nil, nil, ErrNoData
	}
	n, d := x.Dims()
	if d != f.b.dim {
		what := "input columns"
		if f.b.kernel == nil {
			what = "design matrix columns"
		}
		return nil, nil, &DimensionError{What: what, Got: d, Want: f.b.dim}
	}
	if n == 0 {
		return []float64{}, []float64{}, nil
	}
	xd := denseOf(x)
	if err := checkFiniteDense("x", xd); err != nil {
		return nil, nil, err
	}
	mean = make([]float64, n)
	variance = make([]float64, n)
	if err := f.latentTo(mean, variance, xd); err != nil {
		return nil, nil, err
	}
	if f.aug != nil {
		// The augmentation needs Φₓ and ΦₓΣ row by row (augment.go).
		cols := f.design
		if cols == nil {
			cols = seq(len(f.mu))
		}
		phi, err := f.b.design(xd, cols)
		if err != nil {
			return nil, nil, err
		}
		var ps mat.Dense
		ps.Mul(phi, f.sigma.get())
		if err := f.aug.adjust(f, x, phi, &ps, mean, variance); err != nil {
			return nil, nil, err
		}
		for i := range n {
			if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(variance[i]) || math.IsInf(variance[i], 0) {
				return nil, nil, &NonFiniteError{What: "augmented prediction", Row: i, Col: -1, Value: mean[i] + variance[i]}
			}
		}
	}
	return mean, variance, nil
}

// latentTo computes Latent's mean and variance by blocks of rows, in
// parallel for large inputs: for each block the design Φₓ of the active
// functions (kernel.go, block.go), the means Φₓμ (1) and the variances as
// the row sums of (ΦₓΣ) ⊙ Φₓ (38), with one buffer per worker and no
// allocation per row.
func (f *fitted) latentTo(mean, variance []float64, x *mat.Dense) error {
	n, d := x.Dims()
	m := len(f.mu)
	sigma := f.sigma.get().RawSymmetric()
	mu := blas64.Vector{N: m, Inc: 1, Data: f.mu}
	size := blockRows(m)
	type buffers struct {
		phi, ps []float64
		centre  []int
	}
	bufs := make([]buffers, runtime.GOMAXPROCS(0))
	off := 0
	if f.b.kernel != nil && f.b.bias {
		off = 1
	}
	// Up to quadDim functions, φᵀΣφ is summed over the upper triangle of
	// Σ row by row; beyond, ΦₓΣ is one matrix product per block, with Σ
	// copied out in full (gonum's Dgemm is blocked, its Dsymm is not).
	var full blas64.General
	if m > quadDim {
		full = blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
		for i := range m {
			for j := i; j < m; j++ {
				v := sigma.Data[i*sigma.Stride+j]
				full.Data[i*m+j], full.Data[j*m+i] = v, v
			}
		}
	}
	return parallelBlocks(context.Background(), n, size, m, func(lo, hi, w int) error {
		r := hi - lo
		bf := &bufs[w]
		if bf.phi == nil {
			bf.phi = make([]float64, size*m)
			if full.Data != nil {
				bf.ps = make([]float64, size*m)
			}
			bf.centre = seq(m - off)
		}
		phi := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.phi[:r*m]}
		switch {
		case f.b.kernel == nil:
			for i := range r {
				src, row := x.RawRowView(lo+i), phi.Data[i*m:(i+1)*m]
				for j, c := range f.design {
					row[j] = src[c]
				}
			}
		default:
			if off == 1 {
				for i := range r {
					phi.Data[i*m] = 1
				}
			}
			if m > off {
				dst := mat.NewDense(r, m, phi.Data).Slice(0, r, off, m).(*mat.Dense)
				if err := kernelBlock(f.b.kernel, dst, x.Slice(lo, hi, 0, d).(*mat.Dense), f.b.centers, lo, bf.centre); err != nil {
					return err
				}
			}
		}
		mb := mean[lo:hi]
		blas64.Gemv(blas.NoTrans, 1, phi, mu, 0, blas64.Vector{N: r, Inc: 1, Data: mb})
		ps := blas64.General{Rows: r, Cols: m, Stride: m}
		if full.Data != nil {
			ps.Data = bf.ps[:r*m]
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, phi, full, 0, ps)
		}
		vb := variance[lo:hi]
		switch {
		case full.Data != nil:
			for i := range r {
				vb[i] = blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: ps.Data[i*m : (i+1)*m]}, blas64.Vector{N: m, Inc: 1, Data: phi.Data[i*m : (i+1)*m]})
			}
		default:
			i := 0
			for ; i+3 < r; i += 4 {
				quadForm4(vb[i:i+4], sigma, phi.Data[i*m:(i+4)*m])
			}
			for ; i < r; i++ {
				vb[i] = quadForm(sigma, phi.Data[i*m:(i+1)*m])
			}
		}
		for i, v := range vb {
			if mb[i]-mb[i] != 0 { // NaN or ±Inf
				return &NonFiniteError{What: "predicted mean", Row: lo + i, Col: -1, Value: mb[i]}
			}
			if v-v != 0 {
				return &NonFiniteError{What: "predicted variance", Row: lo + i, Col: -1, Value: v}
			}
			vb[i] = math.Max(0, v)
		}
		return nil
	})
}

// quadDim is the largest number of functions for which latentTo sums
// φᵀΣφ over the triangle of Σ, row by row, rather than by matrix products.
const quadDim = 64

// quadForm returns φᵀΣφ = Σᵢ φᵢ (Σᵢᵢφᵢ + 2 Σⱼ₌ᵢ₊₁ Σᵢⱼφⱼ) from the upper
// triangle of Σ.
func quadForm(sigma blas64.Symmetric, phi []float64) float64 {
	var v float64
	for i, p := range phi {
		row := sigma.Data[i*sigma.Stride+i : i*sigma.Stride+len(phi)]
		rest := phi[i+1:]
		row = row[1 : len(rest)+1]
		s := 0.5 * sigma.Data[i*sigma.Stride+i] * p
		for j, q := range rest {
			s += row[j] * q
		}
		v += p * s
	}
	return 2 * v
}

// quadForm4 sets out[r] = quadForm(sigma, φᵣ) for the four consecutive
// vectors φᵣ in phi, sharing the loads of Σ and with four independent
// sums in the inner loop.
func quadForm4(out []float64, sigma blas64.Symmetric, phi []float64) {
	m := len(phi) / 4
	p0, p1, p2, p3 := phi[:m], phi[m:2*m], phi[2*m:3*m], phi[3*m:4*m]
	var v0, v1, v2, v3 float64
	for i := range m {
		row := sigma.Data[i*sigma.Stride+i : i*sigma.Stride+m]
		d := 0.5 * row[0]
		s0, s1, s2, s3 := d*p0[i], d*p1[i], d*p2[i], d*p3[i]
		row = row[1:]
		a0, a1, a2, a3 := p0[i+1:], p1[i+1:], p2[i+1:], p3[i+1:]
		a0, a1, a2, a3 = a0[:len(row)], a1[:len(row)], a2[:len(row)], a3[:len(row)]
		for j, sij := range row {
			s0 += sij * a0[j]
			s1 += sij * a1[j]
			s2 += sij * a2[j]
			s3 += sij * a3[j]
		}
		v0 += p0[i] * s0
		v1 += p1[i] * s1
		v2 += p2[i] * s2
		v3 += p3[i] * s3
	}
	out[0], out[1], out[2], out[3] = 2*v0, 2*v1, 2*v2, 2*v3
}

// Status returns how the last fit ended (NotFitted before a successful fit).
func (f *fitted) Status() Status { return f.status }

// LowerBound returns the final value of the objective the fit maximised,
// the last element of BoundTrace: for the VRVM estimators the bound of the
// full model with the Sequential solver (the excluded functions' factors as
// last set during the fit; FullModelBound sets them to their optimum for
// the final Q, so it is at least LowerBound), the variational
// lower bound L of the active model with PaperSchedule and Newton (the
// two agree when nothing was pruned; see "Lower bound" in the package
// documentation); for the RVM estimators the log evidence (exact for
// regression, Laplace's approximation for classification).
// Like every accessor of fitted state, it panics if the model is not fitted.
func (f *fitted) LowerBound() float64 {
	f.mustFit()
	return f.trace[len(f.trace)-1]
}

// FullModelBound returns the variational lower bound of the paper's full
// model, with all N+1 basis functions, at the fitted posterior: the active
// model's L plus, for each function outside the active set, the bound terms of the
// factor Q(wₘ) = N(0, vₘ), independent of the other weights, and of Q_αₘ,
// both at their optimum (closed form, with sₘ = φₘᵀBφₘ for the
// likelihood's precisions B):
//
//	maxₐ [ã ln α − bα − ½ ln(α + sₘ)] + ln Γ(ã) − ln Γ(a) − ã ln ã + ã + a ln b.
//
// This is L(Q) for a valid Q, so a true lower bound on the log evidence of
// the full model, comparable between fits that prune differently (and
// what package selection compares); it is at least LowerBound for the
// Sequential solver and equals it whenever nothing was pruned. For the RVM estimators, whose pruned functions have αₘ = ∞ and
// contribute nothing to the evidence, it equals LowerBound. It is saved
// with the model; a model loaded from a file of format version 1, which
// did not record it, reports NaN.
func (f *fitted) FullModelBound() float64 {
	f.mustFit()
	return f.full
}

// BoundTrace returns the objective (see LowerBound) after each iteration;
// element 0 is its value at the initial hyperparameters.
func (f *fitted) BoundTrace() []float64 {
	f.mustFit()
	return append([]float64(nil), f.trace...)
}

// Iterations returns the number of iterations of the last fit.
func (f *fitted) Iterations() int { f.mustFit(); return f.iters }

// RelevanceVectors returns the training rows whose kernel functions are
// relevance vectors: active with |⟨wₘ⟩| > RelevanceThreshold, in training
// order. The bias is not included. For a FitDesign model the indices are
// design-matrix columns.
func (f *fitted) RelevanceVectors() []int {
	f.mustFit()
	var idx []int
	first := 0 // position of the first kernel (or design) weight in mu
	if f.HasBias() {
		first = 1
	}
	for i, r := range f.rows {
		if math.Abs(f.mu[first+i]) > RelevanceThreshold {
			idx = append(idx, r)
		}
	}
	return idx
}

// ActiveSet returns the training rows (design columns for FitDesign) of the
// basis functions still active at the end of the fit, bias excluded.
func (f *fitted) ActiveSet() []int {
	f.mustFit()
	return append([]int(nil), f.rows...)
}

// HasBias reports whether the bias function is in the active set.
func (f *fitted) HasBias() bool { f.mustFit(); return f.design == nil && f.b.bias }

// Inputs returns the training inputs of the active kernel functions, one
// row each, in the order of ActiveSet (nil for a FitDesign model).
func (f *fitted) Inputs() *mat.Dense {
	f.mustFit()
	if f.b.centers == nil {
		return nil
	}
	return mat.DenseCopyOf(f.b.centers)
}

// InputDim returns the number of input columns the model predicts from
// (design columns for a FitDesign model).
func (f *fitted) InputDim() int { f.mustFit(); return f.b.dim }

// Mean returns μ, the posterior mean of the active weights: the bias weight
// first if the bias is active, then one per ActiveSet entry.
func (f *fitted) Mean() []float64 { f.mustFit(); return append([]float64(nil), f.mu...) }

// Covariance returns Σ, the posterior covariance of the active weights,
// ordered as Mean.
func (f *fitted) Covariance() *mat.SymDense {
	f.mustFit()
	return mat.NewSymDense(len(f.mu), append([]float64(nil), f.sigma.get().RawSymmetric().Data...))
}

// Alpha returns ⟨αₘ⟩ (αₘ for the RVM estimators) for the active weights,
// ordered as Mean.
func (f *fitted) Alpha() []float64 { f.mustFit(); return append([]float64(nil), f.alpha...) }

// NoiseSD returns the noise standard deviation estimate of a regression
// model, 1/√⟨τ⟩ (VRVM) or 1/√β (RVM); 0 for a classifier, whose logistic
// likelihood has no noise parameter.
func (f *fitted) NoiseSD() float64 { f.mustFit(); return math.Sqrt(f.noise) }

// describe writes a short summary of an estimator: its name and
// configuration, then, once fitted, what the fit found.
func (f *fitted) describe(name string, k Kernel, solver string, extra ...string) string {
	var b strings.Builder
	if _, ok := k.(learnedWidth); ok && f.status != NotFitted && f.b.kernel == nil {
		k = nil // fitted to a design matrix
	}
	if k == nil && f.status != NotFitted && f.b.kernel == nil {
		fmt.Fprintf(&b, "%s (design matrix", name)
	} else {
		if k == nil {
			k = DefaultKernel
		}
		if f.learnTrace != nil && f.status != NotFitted {
			k = f.b.kernel // the learned kernel
		}
		fmt.Fprintf(&b, "%s (kernel %s", name, kernelString(k))
	}
	if solver != "" {
		fmt.Fprintf(&b, ", solver %s", solver)
	}
	b.WriteString(")")
	if f.status == NotFitted {
		b.WriteString(": not fitted")
		return b.String()
	}
	fmt.Fprintf(&b, ": %s after %d iterations\n", f.status, f.iters)
	fmt.Fprintf(&b, "  relevance vectors %d of %d active functions", len(f.RelevanceVectors()), len(f.mu))
	if f.HasBias() {
		b.WriteString(" (bias active)")
	}
	fmt.Fprintf(&b, "\n  bound %.6g, full-model bound %.6g", f.LowerBound(), f.full)
	if l := f.learnLine(); l != "" {
		extra = append([]string{l}, extra...)
	}
	for _, e := range extra {
		b.WriteString("\n  " + e)
	}
	return b.String()
}

// htmlSummary renders the String summary of an estimator as a small HTML
// table for notebooks (a Jupyter kernel shows a value's HTML method as
// text/html and its String as the plain-text fallback): the first line as
// the caption, each further line as a row.
func htmlSummary(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	b.WriteString(`<table class="vrvm-summary"><caption style="text-align:left">`)
	b.WriteString(html.EscapeString(lines[0]))
	b.WriteString("</caption>")
	for _, l := range lines[1:] {
		b.WriteString("<tr><td style=\"text-align:left\">" + html.EscapeString(strings.TrimSpace(l)) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}
