package vrvm

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/augment"
)

// augmentation holds what predictions augmented at the test point need
// (docs/design.md, "Variance away from the data", (A1)–(A6); the
// numerics are package augment's): the training
// inputs, the likelihood's precisions Bₙ and the residuals
// rₙ = yₙ − Bₙmₙ of the fit, and the prior precision α* of the
// augmenting weight. The residuals and BΦ need the design at the
// training inputs, which is built at the first prediction (prepare), not
// at the end of the fit: a fit interrupted in a notebook returns at once
// even with an interpreted kernel.
type augmentation struct {
	x         *mat.Dense // N × d training inputs
	beta      []float64  // Bₙ
	data      []float64  // yₙ, until prepare replaces it by the residuals
	resid     []float64  // yₙ − Bₙ μᵀφₙ
	alphaStar float64

	once sync.Once
	phi  *mat.Dense // N × M: φₘ(xₙ) for the active functions
	bphi *mat.Dense // N × M: Bₙ φₘ(xₙ)
	err  error
	// ny is the low-rank form (A10)–(A13), when the kernel matrix at the
	// training inputs has one within the tolerance (A12); then x, beta,
	// resid, phi and bphi are released.
	ny      *augment.LowRank
	lowRank augment.Settings
	// floor is the GP floor of a regressor's augmented latent variance
	// (A15)–(A18), built by prepare from the targets and the noise
	// precision tau (0 for another likelihood: no floor).
	floor *augment.Floor
	tau   float64
	// floorOnly is (A19): the kernel matrix failed (A12) on more than
	// augment.ExactRows rows and the floor is kept alone, the latent
	// mean and variance plain below it; x, beta, resid, phi and bphi are
	// released.
	floorOnly bool
}

// newAugmentation records the augmentation state of a fit of problem p
// with solution sol; it returns nil for a user design (no kernel to
// centre at the test point) and for a kernel whose diagonal is not
// constant over the training inputs (A9). gauss says that p's likelihood
// is Gaussian noise, whose precision ⟨τ⟩ sets the GP floor (A18); the
// other likelihoods get no floor.
func newAugmentation(p *problem, sol *solution, gauss bool) (*augmentation, error) {
	if p.basis.kernel == nil || !constantDiagonal(p.basis.kernel, p.x) {
		return nil, nil
	}
	n, _ := p.x.Dims()
	beta, uni := p.lik.Weights()
	var tau float64
	if gauss && beta == nil {
		tau = uni // (A18): Gaussian noise of precision ⟨τ⟩
	}
	if beta == nil {
		beta = constant(n, uni)
	}
	d, scale := p.lik.Data()
	a := &augmentation{x: mat.DenseCopyOf(p.x), beta: append([]float64(nil), beta...), data: make([]float64, n), tau: tau}
	for i := range n {
		a.data[i] = scale * d[i]
	}
	a.alphaStar = alphaStar(p.basis, sol)
	return a, nil
}

// constantDiagonal reports whether K(x, x) is the same at every row of x
// (A9): augment.ConstantDiagonal.
func constantDiagonal(k Kernel, x mat.Matrix) bool { return augment.ConstantDiagonal(k, x) }

// augmentedConstantDiag is constantDiagonal (A9) for a loaded
// augmentation: at its training inputs x, or at the pivots of its
// low-rank form ny, the model's centres among them, or at the centres
// alone (x nil: the floor alone, (A19)).
func augmentedConstantDiag(ny *augment.LowRank, x *mat.Dense, k Kernel, centres *mat.Dense) bool {
	if ny != nil {
		return ny.ConstantDiag(k, centres)
	}
	if x == nil {
		return centres == nil || constantDiagonal(k, centres)
	}
	return constantDiagonal(k, x)
}

// prepare builds BΦ at the training inputs for the active functions of
// f and, for a fresh fit, the residuals rₙ = yₙ − Bₙμᵀφₙ (a loaded model
// holds them); once.
func (a *augmentation) prepare(f *fitted) error {
	a.once.Do(func() {
		var p *mat.Dense
		p, a.err = f.b.design(a.x, seq(len(f.mu)))
		if a.err != nil {
			return
		}
		if a.resid == nil {
			if a.err = a.newFloor(f); a.err != nil {
				return
			}
			a.resid = make([]float64, len(a.data))
			for i := range a.data {
				m := blas64.Dot(blas64.Vector{N: len(f.mu), Inc: 1, Data: p.RawRowView(i)}, blas64.Vector{N: len(f.mu), Inc: 1, Data: f.mu})
				a.resid[i] = a.data[i] - a.beta[i]*m
			}
			a.data = nil
		}
		a.phi = mat.DenseCopyOf(p)
		for i := range a.beta {
			row := p.RawRowView(i)
			for j := range row {
				row[j] *= a.beta[i]
			}
		}
		a.bphi = p
		a.ny, a.err = augment.New(a.lowRank, augKernel(f.b.kernel), f.augDesign(seq(len(f.mu))), a.x, f.b.centers, f.designOffset(), a.phi, a.bphi, a.beta, []augment.Latent{a.latent(f)})
		a.err = kernelErr(a.err)
		n, _ := a.x.Dims()
		a.floorOnly = a.err == nil && a.ny == nil && a.floor != nil && a.lowRank.FloorOnly(n) // (A19)
		if a.ny != nil || a.floorOnly {
			a.x, a.beta, a.resid, a.phi, a.bphi = nil, nil, nil, nil, nil
		}
	})
	return a.err
}

// newFloor builds the GP floor (A15)–(A18) of a fresh regression fit
// from its targets tₙ = yₙ/⟨τ⟩ (a.data holds τtₙ), for a kernel that
// has a widened form (floorKernel).
func (a *augmentation) newFloor(f *fitted) error {
	k, ok := floorKernel(f.b.kernel)
	if !ok || !(a.tau > 0) {
		return nil
	}
	t := make([]float64, len(a.data))
	for i, v := range a.data {
		t[i] = v / a.tau
	}
	fl, err := augment.NewFloor(k, a.x, t, a.tau, 0)
	a.floor = fl
	return kernelErr(err)
}

// floorKernel returns the kernel of the floor's GP (A15): the model's
// Gaussian or ARDGaussian with every width √2 times as large and
// K(x, x) = 1 (the scale of (U1) left to the GP's signal variance), and
// false for a kernel without a widened form.
func floorKernel(k Kernel) (Kernel, bool) {
	if s, ok := k.(scaledKernel); ok {
		k = s.K
	}
	if w, ok := k.(interface{ widened(float64) Kernel }); ok {
		return w.widened(math.Sqrt2), true
	}
	return nil, false
}

// latent is the fit's latent function for (A1)–(A4): Σ in full, ⟨α⟩,
// α* and the residuals.
func (a *augmentation) latent(f *fitted) augment.Latent {
	return augment.Latent{Sigma: symFull(f.sigma.get()), Alpha: f.alpha, AlphaStar: a.alphaStar,
		Resid: blas64.Vector{N: len(a.resid), Inc: 1, Data: a.resid}}
}

// alphaStar is (A5): the prior precision of the augmenting weight, the
// harmonic mean of ⟨αₘ⟩ over the active kernel functions (the average
// prior variance of a relevant weight), or of every active function when
// no kernel function is active.
func alphaStar(b basis, sol *solution) float64 {
	alpha := unscaleVec(sol.alpha, b.divisors(sol.cols), unscaleAlpha) // in the kernel's units (U2)
	var s float64
	var n int
	for i, c := range sol.cols {
		if b.bias && c == 0 && len(sol.cols) > 1 {
			continue
		}
		s += 1 / alpha[i]
		n++
	}
	return float64(n) / s
}

// hook returns, for a prepared augmentation in the low-rank form, the
// blockHook of latentTo that augments the means and variances of f's
// predictions at the rows of x block by block (augment.LowRank.Block),
// with the design latentTo has already computed; nil for the exact form
// (adjust).
func (a *augmentation) hook(f *fitted, x *mat.Dense, mean, variance []float64) blockHook {
	if a.ny == nil || f.b.kernel == nil {
		return nil
	}
	k := augKernel(f.b.kernel)
	scratch := make([]augment.LowRankScratch, runtime.GOMAXPROCS(0))
	add := func(_, i int, dm, dv float64) {
		mean[i] += dm
		variance[i] += dv
	}
	return func(lo, hi, w int, phi []float64, rs, cs int) error {
		_, d := x.Dims()
		return kernelErr(a.ny.Block(k, x.Slice(lo, hi, 0, d).(*mat.Dense), lo, phi, rs, cs, &scratch[w], add))
	}
}

// adjust augments the latent mean and variance at the rows of x (the
// columns cols of f's basis), (A1)–(A4) by augment.Exact, or (A11) by
// augment.LowRank.Adjust, at a cost of O(N(d + M)) per test point beyond
// the plain prediction in the exact form.
func (a *augmentation) adjust(f *fitted, x *mat.Dense, cols []int, mean, variance []float64) error {
	if err := a.prepare(f); err != nil {
		return err
	}
	add := func(_, i int, dm, dv float64) {
		mean[i] += dm
		variance[i] += dv
	}
	if a.floorOnly {
		return nil // (A19): the floor alone, applied by the caller
	}
	k, phi := augKernel(f.b.kernel), f.augDesign(cols)
	if a.ny != nil {
		return kernelErr(a.ny.Adjust(k, phi, len(cols), x, add))
	}
	t := augment.Training{X: a.x, Phi: a.phi, BPhi: a.bphi, Beta: a.beta}
	return kernelErr(augment.Exact(k, phi, len(cols), x, t, []augment.Latent{a.latent(f)}, add))
}

// augDesign returns the design of the columns cols of f's basis, for
// package augment.
func (f *fitted) augDesign(cols []int) augment.Design {
	return func(x *mat.Dense) (*mat.Dense, error) { return f.b.design(x, cols) }
}

// augKernel returns k for package augment, with K(x, x) where it is the
// same at every x (selfValue).
func augKernel(k Kernel) augment.Kernel {
	self, constant := selfValue(k)
	return augment.Kernel{Kernel: k, Self: self, Constant: constant}
}

// selfValue returns K(x, x) and true for a kernel whose value there is
// the same at every x (its selfValue method: Gaussian and ARDGaussian,
// 1; divided by the scale of (U1) for the library's scaled kernel), or
// false for another kernel, whose K(x, x) is evaluated at each row.
func selfValue(k Kernel) (float64, bool) {
	if s, ok := k.(scaledKernel); ok {
		v, ok := selfValue(s.K)
		return v / s.S, ok
	}
	if c, ok := k.(interface{ selfValue() (float64, bool) }); ok {
		return c.selfValue()
	}
	return 0, false
}

// symFull returns the symmetric s as a full general matrix, for matrix
// products.
func symFull(s *mat.SymDense) blas64.General {
	m := s.SymmetricDim()
	raw := s.RawSymmetric()
	full := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	for i := range m {
		for j := i; j < m; j++ {
			v := raw.Data[i*raw.Stride+j]
			full.Data[i*m+j], full.Data[j*m+i] = v, v
		}
	}
	return full
}
