package vrvm

import (
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/augment"
	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
)

// mcAugmentation holds what MultiClassifier's predictions augmented at
// the test point need (docs/design.md, "Variance away from the data", (A7)):
// the training inputs and labels, and for each class the prior
// precision α*ₖ of its augmenting weight. The residuals rₙₖ = tₙₖ − pₙₖ
// and the design at the training inputs are built at the first
// prediction (prepare), as for the binary models.
type mcAugmentation struct {
	x         *mat.Dense // N × d training inputs
	y         []int      // class of each training row, until prepare
	resid     *mat.Dense // N × K: tₙₖ − softmax(Wᵀφₙ)ₖ
	alphaStar []float64  // α*ₖ (A5) per class

	once sync.Once
	phi  *mat.Dense // N × M: the basis functions at the training inputs
	bphi *mat.Dense // c₀Φ
	beta []float64  // c₀ at every training row
	err  error
	// ny is the low-rank form (A10)–(A13), one latent function per
	// class, when the kernel matrix has one within the tolerance (A12);
	// then x, resid, phi and bphi are released.
	ny      *augment.LowRank
	lowRank augment.Settings
}

// newMCAugmentation records the augmentation state of a softmax fit on
// inputs x with classes y; its α*ₖ is (A5) over class k's active
// kernel functions, with weight precisions alphaK (M × K, zero where a
// function is not active in a class), whose first row is the bias if
// bias.
func newMCAugmentation(x mat.Matrix, y []int, alphaK *mat.Dense, bias bool) *mcAugmentation {
	m, k := alphaK.Dims()
	a := &mcAugmentation{x: mat.DenseCopyOf(x), y: append([]int(nil), y...), alphaStar: make([]float64, k)}
	// harmonic returns the harmonic mean of the active precisions of the
	// classes cs, of the kernel functions only if withBias is false, and
	// whether there was one.
	harmonic := func(cs []int, withBias bool) (float64, bool) {
		var s float64
		var n int
		for _, c := range cs {
			for i := range m {
				if al := alphaK.At(i, c); al > 0 && (withBias || !bias || i > 0) {
					s += 1 / al
					n++
				}
			}
		}
		return float64(n) / s, n > 0
	}
	all := seq(k)
	for c := range k {
		var ok bool
		// Class c's kernel functions; its bias alone; every class's
		// functions (a class with no active weight); 1.
		if a.alphaStar[c], ok = harmonic([]int{c}, false); ok {
			continue
		}
		if a.alphaStar[c], ok = harmonic([]int{c}, true); ok {
			continue
		}
		if a.alphaStar[c], ok = harmonic(all, true); !ok {
			a.alphaStar[c] = 1
		}
	}
	return a
}

// prepare builds the design at the training inputs and the residuals of
// the fit f (a loaded model holds them); once.
func (a *mcAugmentation) prepare(f *fitted) error {
	a.once.Do(func() {
		m, k := f.w.Dims()
		a.phi, a.err = f.b.design(a.x, seq(m))
		if a.err != nil {
			return
		}
		n, _ := a.x.Dims()
		c0 := 0.5 * (1 - 1/float64(k)) // (M4)
		a.beta = constant(n, c0)
		a.bphi = mat.NewDense(n, m, nil)
		a.bphi.Scale(c0, a.phi)
		if a.resid == nil {
			a.residuals(f)
		}
		a.ny, a.err = augment.New(a.lowRank, augKernel(f.b.kernel), f.augDesign(seq(m)), a.x, f.b.centers, f.designOffset(), a.phi, a.bphi, a.beta, a.latents(f))
		a.err = kernelErr(a.err)
		if a.ny != nil {
			a.x, a.resid, a.phi, a.bphi, a.beta = nil, nil, nil, nil, nil
		}
	})
	return a.err
}

// residuals sets the residuals tₙₖ − pₙₖ of the fit f at the training
// inputs.
func (a *mcAugmentation) residuals(f *fitted) {
	n, _ := a.x.Dims()
	_, k := f.w.Dims()
	a.resid = mat.NewDense(n, k, nil)
	mul(a.resid, a.phi, f.w)
	p := make([]float64, k)
	for i := range n {
		row := a.resid.RawRowView(i)
		multiclass.SoftmaxTo(p, row)
		for c := range k {
			row[c] = -p[c]
		}
		row[a.y[i]]++
	}
	a.y = nil
}

// latents returns each class's latent function for (A7): Σₖ in full,
// ⟨αₖ⟩, α*ₖ and the column k of the residuals.
func (a *mcAugmentation) latents(f *fitted) []augment.Latent {
	nt, k := a.resid.Dims()
	ls := make([]augment.Latent, k)
	for c, s := range f.sigmas {
		ls[c] = augment.Latent{Sigma: symFull(s), Alpha: mat.Col(nil, c, f.alphaK), AlphaStar: a.alphaStar[c],
			Resid: blas64.Vector{N: nt, Inc: k, Data: a.resid.RawMatrix().Data[c:]}}
	}
	return ls
}

// adjust augments the mean activations ybar and their variances v at the
// rows of x, for the softmax under Böhning's bound (curvature
// c₀ = ½(1 − 1/K) at every row, (M4)): with k the kernel between the
// training inputs and x* and g = c₀Φᵀk, for each class
//
//	qₖ = α*ₖ + c₀kᵀk − gᵀΣₖg,  eₖ = K(x*, x*) − φ*ᵀΣₖg                (A7)
//	ȳₖ += eₖ kᵀrₖ/qₖ,  vₖ += eₖ²/qₖ
//
// (A1)–(A4) with B = c₀ and the targets (M5), whose residual at the
// means of (M18) is zₖ − c₀Φμₖ = tₖ − pₖ; by augment.Exact, with (A8), or
// augment.LowRank.Adjust.
func (a *mcAugmentation) adjust(f *fitted, x *mat.Dense, ybar, v *mat.Dense) error {
	if err := a.prepare(f); err != nil {
		return err
	}
	m, _ := f.w.Dims()
	add := func(c, i int, dm, dv float64) {
		ybar.Set(i, c, ybar.At(i, c)+dm)
		v.Set(i, c, v.At(i, c)+dv)
	}
	k, phi := augKernel(f.b.kernel), f.augDesign(seq(m))
	if a.ny != nil {
		return kernelErr(a.ny.Adjust(k, phi, m, x, add))
	}
	t := augment.Training{X: a.x, Phi: a.phi, BPhi: a.bphi, Beta: a.beta}
	return kernelErr(augment.Exact(k, phi, m, x, t, a.latents(f), add))
}
