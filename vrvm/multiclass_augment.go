package vrvm

import (
	"context"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// mcAugmentation holds what MultiClassifier's predictions augmented at
// the test point need (doc.go, "Variance away from the data", (A7)):
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
	err  error
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
		if a.err != nil || a.resid != nil {
			return
		}
		n, _ := a.x.Dims()
		a.resid = mat.NewDense(n, k, nil)
		mul(a.resid, a.phi, f.w)
		p := make([]float64, k)
		for i := range n {
			row := a.resid.RawRowView(i)
			softmaxTo(p, row)
			for c := range k {
				row[c] = -p[c]
			}
			row[a.y[i]]++
		}
		a.y = nil
	})
	return a.err
}

// adjust augments the mean activations ybar and their variances v at the
// rows of x, whose basis functions are phi, for the softmax under
// Böhning's bound (curvature c₀ = ½(1 − 1/K) at every row, (M4)): with k
// the kernel between the training inputs and x* and g = c₀Φᵀk, for each
// class
//
//	qₖ = α*ₖ + c₀kᵀk − gᵀΣₖg,  eₖ = K(x*, x*) − φ*ᵀΣₖg                (A7)
//	ȳₖ += eₖ kᵀrₖ/qₖ,  vₖ += eₖ²/qₖ
//
// (A1)–(A4) with B = c₀ and the targets (M5), whose residual at the
// means of (M18) is zₖ − c₀Φμₖ = tₖ − pₖ. By blocks of test rows, and
// with c₀kᵀk − gᵀΣₖg as the minimum (A8), as augmentation.adjust.
func (a *mcAugmentation) adjust(f *fitted, x mat.Matrix, phi, ybar, v *mat.Dense) error {
	if err := a.prepare(f); err != nil {
		return err
	}
	n, m := phi.Dims()
	nt, k := a.resid.Dims()
	c0 := 0.5 * (1 - 1/float64(k))
	xd := denseOf(x)
	sigmas := make([]blas64.General, k)
	for c, s := range f.sigmas {
		sigmas[c] = symFull(s)
	}
	size := max(1, min(n, (1<<16)/max(1, nt)))
	type buffers struct{ k, g, sg, kr, res []float64 }
	bufs := make([]buffers, runtime.GOMAXPROCS(0))
	centre := seq(nt)
	return parallelBlocks(context.Background(), n, size, nt+m*k, func(lo, hi, w int) error {
		r := hi - lo
		bf := &bufs[w]
		if bf.k == nil {
			bf.k, bf.g, bf.sg, bf.kr, bf.res = make([]float64, size*nt), make([]float64, size*m), make([]float64, size*m), make([]float64, size*k), make([]float64, size*nt)
		}
		kb := mat.NewDense(r, nt, bf.k[:r*nt])
		if err := kernelBlock(f.b.kernel, kb, xd.Slice(lo, hi, 0, xd.RawMatrix().Cols).(*mat.Dense), a.x, lo, centre, false); err != nil {
			return err
		}
		g := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.g[:r*m]}
		sg := blas64.General{Rows: r, Cols: m, Stride: m, Data: bf.sg[:r*m]}
		kr := blas64.General{Rows: r, Cols: k, Stride: k, Data: bf.kr[:r*k]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, c0, kb.RawMatrix(), a.phi.RawMatrix(), 0, g)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb.RawMatrix(), a.resid.RawMatrix(), 0, kr)
		kss := make([]float64, r)
		for i := range r {
			row := xd.RawRowView(lo + i)
			kss[i] = f.b.kernel.Eval(row, row)
		}
		res := blas64.General{Rows: r, Cols: nt, Stride: nt, Data: bf.res[:r*nt]}
		for c := range k {
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g, sigmas[c], 0, sg)
			// The residuals k − Φu, u = Σₖg, of (A8).
			copy(res.Data, kb.RawMatrix().Data[:r*nt])
			blas64.Gemm(blas.NoTrans, blas.Trans, -1, sg, a.phi.RawMatrix(), 1, res)
			for i := range r {
				sgi := sg.Data[i*m : (i+1)*m]
				var s float64 // (A8)
				for _, v := range res.Data[i*nt : (i+1)*nt] {
					s += v * v
				}
				s *= c0
				for j, u := range sgi {
					s += f.alphaK.At(j, c) * u * u
				}
				q := a.alphaStar[c] + s // (A7)
				e := kss[i] - dot(phi.RawRowView(lo+i), sgi)
				ybar.Set(lo+i, c, ybar.At(lo+i, c)+e*kr.Data[i*k+c]/q)
				v.Set(lo+i, c, v.At(lo+i, c)+e*e/q)
			}
		}
		return nil
	})
}
