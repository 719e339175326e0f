// Package augment holds the numerics of predictions augmented at the
// test point (docs/design.md, "Variance away from the data", (A1)–(A18);
// Rasmussen & Quiñonero-Candela 2005): a sparse kernel model's predictive
// variance, which falls to the noise away from its relevance vectors, is
// given back the prior variance of one more kernel function centred at
// the test point. The exact form (Exact, ExactBlock) evaluates the kernel
// between each test point and the N training inputs; the low-rank form
// (LowRank, New) replaces those values by their Nyström approximation
// through r pivots, (A10)–(A13), and is what a model file keeps (File).
//
// It sees kernels only through design.Kernel and the designs of the
// models through func values; it does not import the vrvm package.
package augment

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// Kernel is a model's kernel as augmentation uses it: K, and Self, the
// value K(x, x) at every x when Constant (Gaussian and ARDGaussian: 1,
// divided by the scale of (U1)); otherwise K(x, x) is evaluated at each
// test point.
type Kernel struct {
	design.Kernel
	Self     float64
	Constant bool
}

// Design returns the design of a model's active functions (the columns
// the prediction uses) at the rows of x.
type Design func(x *mat.Dense) (*mat.Dense, error)

// Latent is one latent function of an augmented model: its weights'
// covariance Σ in full, their ⟨αₐ⟩, the prior precision α* of the
// augmenting weight (A5) and the residuals rₙ = yₙ − Bₙμᵀφₙ at the
// training inputs (a column of an N × K matrix for a multi-class model).
type Latent struct {
	Sigma     blas64.General
	Alpha     []float64
	AlphaStar float64
	Resid     blas64.Vector
}

// Training is what the exact form needs at the N training inputs X: the
// design Phi (N × M) of the active functions, BPhi = BΦ and the
// likelihood's precisions Beta = Bₙ.
type Training struct {
	X, Phi, BPhi *mat.Dense
	Beta         []float64
}

// ConstantDiagonal reports whether K(x, x) is the same at every row of x
// (to a relative 1e-9): the kernels that augmentation suits (A9), such as
// Gaussian and ARDGaussian, where K(x, x) = 1, and not Polynomial or
// Linear, whose diagonal grows with ‖x‖.
func ConstantDiagonal(k design.Kernel, x mat.Matrix) bool {
	n, _ := x.Dims()
	if n == 0 {
		return true
	}
	row := func(i int) []float64 { return mat.Row(nil, i, x) }
	x0 := row(0)
	d0 := k.Eval(x0, x0)
	for i := 1; i < n; i++ {
		xi := row(i)
		if d := k.Eval(xi, xi); !(math.Abs(d-d0) <= 1e-9*math.Abs(d0)) {
			return false
		}
	}
	return true
}

// Scratch is a worker's buffers for ExactBlock.
type Scratch struct{ g, sg, kr, res []float64 }

// Exact augments, in the exact form, the latent means and variances at
// the rows of x for each latent function of lats: with k the kernel
// between the training inputs and x*, g = ΦᵀBk,
//
//	q = α* + kᵀBk − gᵀΣg,   e = K(x*, x*) − φ*ᵀΣg              (A1), (A3)
//	mean += e·kᵀr/q,   variance += e²/q                       (A2), (A4)
//
// at a cost of O(N(d + M)) per test point beyond the plain prediction;
// phi gives the design of the m active functions at a block of rows, and
// add receives the latent function, the row and the increments.
func Exact(k Kernel, phi Design, m int, x *mat.Dense, t Training, lats []Latent, add func(lat, i int, dm, dv float64)) error {
	n, d := x.Dims()
	nt, _ := t.X.Dims()
	size := max(1, min(n, (1<<16)/max(1, nt)))
	kbufs := make([][]float64, runtime.GOMAXPROCS(0))
	scratch := make([]Scratch, len(kbufs))
	centre := seq(nt)
	return design.Parallel(n, size, nt+m, nil, func(lo, hi, w int) error {
		r := hi - lo
		if kbufs[w] == nil {
			kbufs[w] = make([]float64, size*nt)
		}
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		kb := mat.NewDense(r, nt, kbufs[w][:r*nt])
		if err := design.Fill(k.Kernel, kb, xb, t.X, lo, centre, false); err != nil {
			return err
		}
		phis, err := phi(xb)
		if err != nil {
			return err
		}
		kss := make([]float64, r)
		for i := range r {
			kss[i] = k.Eval(xb.RawRowView(i), xb.RawRowView(i))
		}
		for c, l := range lats {
			ExactBlock(&scratch[w], kb, phis, kss, t, l, func(i int, dm, dv float64) { add(c, lo+i, dm, dv) })
		}
		return nil
	})
}

// ExactBlock computes (A1)–(A4) for the latent function l at the r test
// rows of a block — kb = K(x*, training inputs) (r × N), phis the rows'
// design (r × M), kss = K(x*, x*) — given the design, BΦ and the
// precisions at the training inputs t, and calls add with each row's
// mean and variance increments. g = ΦᵀBk and u = Σg go by matrix
// products. kᵀBk − gᵀΣg, the data's precision along the augmenting
// function that the active ones do not explain, is the difference of two
// nearly equal numbers where they nearly do (kᵀBk about 10⁴, the
// difference 10⁻³ on Friedman #1 with 3,000 rows: 38 % off); it is
// evaluated as the minimum it is, as (S14),
//
//	kᵀBk − gᵀΣg = Σₙ Bₙ(kₙ − φₙᵀu)² + Σₐ ⟨αₐ⟩uₐ²,  u = Σg,              (A8)
//
// a sum of non-negative terms whose error in u is of second order; and
// e = K(x*, x*) − φ*ᵀu.
func ExactBlock(s *Scratch, kb, phis *mat.Dense, kss []float64, t Training, l Latent, add func(i int, dm, dv float64)) {
	r, nt := kb.Dims()
	_, m := phis.Dims()
	if len(s.res) < r*nt || len(s.g) < r*m {
		s.g, s.sg, s.kr, s.res = make([]float64, r*m), make([]float64, r*m), make([]float64, r), make([]float64, r*nt)
	}
	g := blas64.General{Rows: r, Cols: m, Stride: m, Data: s.g[:r*m]}
	u := blas64.General{Rows: r, Cols: m, Stride: m, Data: s.sg[:r*m]}
	kr := blas64.Vector{N: r, Inc: 1, Data: s.kr[:r]}
	res := blas64.General{Rows: r, Cols: nt, Stride: nt, Data: s.res[:r*nt]}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb.RawMatrix(), t.BPhi.RawMatrix(), 0, g)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g, l.Sigma, 0, u)
	blas64.Gemv(blas.NoTrans, 1, kb.RawMatrix(), l.Resid, 0, kr)
	// The residuals k − Φu of (A8), row by row.
	for i := range r {
		copy(res.Data[i*nt:(i+1)*nt], kb.RawRowView(i))
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, -1, u, t.Phi.RawMatrix(), 1, res)
	for i := range r {
		var q float64 // (A8)
		for j, v := range res.Data[i*nt : (i+1)*nt] {
			q += t.Beta[j] * v * v
		}
		ui := u.Data[i*m : (i+1)*m]
		for j, v := range ui {
			q += l.Alpha[j] * v * v
		}
		q += l.AlphaStar                          // (A1)
		e := kss[i] - dot(phis.RawRowView(i), ui) // (A3)
		add(i, e*kr.Data[i]/q, e*e/q)             // (A2), (A4)
	}
}

func dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
