package vrvm

import (
	"context"
	"errors"
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
	"gonum.org/v1/gonum/mat"
)

// Kernel learning for MultiClassifier (docs/design.md, "Learning the kernel",
// (K9)–(K11)): the learning loop of the binary models (learnWith) with the
// multi-class full-model bound and its gradient in the design Φ.

// mcFixedQ is a fitted multi-class Q held fixed while the kernel
// parameters move: the terms of the full-model bound that depend on Φ, as
// a function of θ (K9)–(K10).
type mcFixedQ struct {
	rows   [][]float64 // training inputs, which are also the centres
	off    int         // column of the first centre in the design (1 with a bias)
	y      []int
	probit bool
	c      float64 // the curvature of each class's activation: c₀ = ½(1 − 1/K), or 1 for the probit
	prior  Prior
	// psi are the expansion points ψ (N × K); for the probit ytil and lnZ
	// are Q(Y)'s means ỹ and normalisers (P4)–(P5) at ψ.
	psi, ytil *mat.Dense
	lnZ       []float64
	cls       []mcFixedClass
	k         *mat.Dense // scratch: the N × N kernel matrix
	// curv, for the bound (M19), holds the curvatures Aₙ at ψ (N × K × K),
	// in place of c.
	curv []float64
}

// cAt returns the curvature of class c's activation at row i: c, or
// Aₙ,cc for the bound (M19).
func (q *mcFixedQ) cAt(i, c int) float64 {
	if q.curv == nil {
		return q.c
	}
	nk := len(q.cls)
	return q.curv[(i*nk+c)*nk+c]
}

// mcFixedClass is class k's Q(wₖ): its active columns of the design, its
// means and its covariance (the probit's classes share act and Σ).
type mcFixedClass struct {
	act []int
	mu  []float64
	sig *mat.Dense
}

// newMCFixedQ returns the fitted Q h of the solver held fixed, on basis
// b with the prior pr.
func newMCFixedQ(b *basis, pr Prior, h *multiclass.Held) *mcFixedQ {
	q := &mcFixedQ{rows: rowsOf(b.centers), off: b.offset(), y: h.Y, probit: h.Probit, c: h.C, prior: pr,
		psi: h.Psi, ytil: h.Ytil, lnZ: h.LnZ, curv: h.Curv}
	for _, c := range h.Classes {
		q.cls = append(q.cls, mcFixedClass{act: c.Act, mu: c.Mu, sig: c.Sig})
	}
	return q
}

// eval returns F(θ), the terms of the full-model bound that depend on the
// kernel k at the fixed Q (K9):
//
//	F = Σₙ ℓₙ(ȳₙ) − ½c Σₙₖ vₙₖ + Σₖ Σ_{j ∉ Aₖ} excludedTerm(c φⱼᵀφⱼ),
//
// ℓₙ the likelihood part of (M9) (softmax) or of (P6) (probit), with
// ȳₙₖ = μₖᵀφₙ and vₙₖ = φₙᵀΣₖφₙ over class k's active set Aₖ (the
// probit's excluded functions count once, with K outputs, (P13)); and,
// if grad is not nil, sets grad to ∂F/∂u (K10), (K6).
func (q *mcFixedQ) eval(k Learnable, grad []float64) float64 {
	n := len(q.rows)
	q.k = kernelMatrix(k, q.rows, q.k)
	kd := q.k.RawMatrix().Data
	nk := len(q.cls)
	// G = ∂F/∂Φ over the centres' columns (N × N); the bias column does
	// not depend on θ.
	var gm *mat.Dense
	if grad != nil {
		gm = mat.NewDense(n, n, nil)
	}
	ybar := mat.NewDense(n, nk, nil)
	ts := make([]*mat.Dense, nk) // Tₖ = Φ_AₖΣₖ
	f := q.activeTerms(0, kd, ybar, ts)
	r := mat.NewDense(n, nk, nil)
	f = q.rowTerms(f, ybar, r)
	if gm != nil {
		q.activeGrad(gm, ts, r)
	}
	f, ex, exK := q.excludedTerms(f, kd)
	if gm == nil {
		return f
	}
	q.excludedGrad(gm, kd, ex, exK)
	gd := gm.RawMatrix().Data
	chainKernel(k, q.rows, kd, func(i, j int) float64 { return gd[i*n+j] }, grad) // (K6)
	return f
}

// activeTerms adds to f the covariance part of F over the active sets,
// −½c Σₙₖ vₙₖ ((M9), (P6), (M20)), for the kernel matrix kd, and sets the
// activations ybar (N × K) and Tₖ = Φ_AₖΣₖ in ts.
func (q *mcFixedQ) activeTerms(f float64, kd []float64, ybar *mat.Dense, ts []*mat.Dense) float64 {
	n := len(q.rows)
	for c, cl := range q.cls {
		m := len(cl.act)
		if m == 0 {
			continue
		}
		phi := mat.NewDense(n, m, nil)
		for i := range n {
			row := phi.RawRowView(i)
			for p, a := range cl.act {
				if a < q.off {
					row[p] = 1
				} else {
					row[p] = kd[i*n+a-q.off]
				}
			}
		}
		var t mat.Dense
		mul(&t, phi, cl.sig)
		for i := range n {
			pr, tr := phi.RawRowView(i), t.RawRowView(i)
			var mi, vi float64
			for p, v := range pr {
				mi += v * cl.mu[p]
				vi += v * tr[p]
			}
			ybar.Set(i, c, mi)
			f -= 0.5 * q.cAt(i, c) * vi // (M9), (P6), (M20): the covariance part
		}
		ts[c] = &t
	}
	return f
}

// rowTerms adds to f the likelihood part ℓₙ(ȳₙ) of every row, (P6) for
// the probit, (M20) for the bound (M19), (M9) with (M3) otherwise, and
// sets r to ∂ℓₙ/∂ȳₙ.
func (q *mcFixedQ) rowTerms(f float64, ybar, r *mat.Dense) float64 {
	n, nk := ybar.Dims()
	g := make([]float64, nk)
	for i := range n {
		yb, ps, rr := ybar.RawRowView(i), q.psi.RawRowView(i), r.RawRowView(i)
		if q.probit {
			yt := q.ytil.RawRowView(i)
			var a, b float64
			for c := range nk {
				a += (yt[c] - ps[c]) * (yt[c] - ps[c])
				b += (yt[c] - yb[c]) * (yt[c] - yb[c])
				rr[c] = yt[c] - yb[c]
			}
			f += q.lnZ[i] + 0.5*a - 0.5*b // (P6)
			continue
		}
		if q.curv != nil {
			a := q.curv[i*nk*nk : (i+1)*nk*nk]
			f += multiclass.AdaptiveRow(a, g, yb, ps, q.y[i], make([]float64, nk)) // (M20) without the covariance part
			for c := range nk {
				// ∂(M20)/∂ȳₙc = [tₙ = c] − g_c(ψₙ) − (Aₙ(ȳₙ − ψₙ))_c
				var s float64
				for j, v := range a[c*nk : (c+1)*nk] {
					s += v * (yb[j] - ps[j])
				}
				rr[c] = -g[c] - s
				if q.y[i] == c {
					rr[c]++
				}
			}
			continue
		}
		f += multiclass.Bohning(g, yb, ps, q.y[i]) // (M9), (M3); g = softmax(ψₙ)
		var ds float64
		for c := range nk {
			ds += yb[c] - ps[c]
		}
		for c := range nk {
			// ∂(M3)/∂ȳₙc = [tₙ = c] − g_c(ψₙ) − ½((ȳ − ψ)_c − Σⱼ(ȳ − ψ)ⱼ/K)
			rr[c] = -g[c] - 0.5*(yb[c]-ps[c]-ds/float64(nk))
			if q.y[i] == c {
				rr[c]++
			}
		}
	}
	return f
}

// activeGrad adds the active columns' part of G = ∂F/∂Φ (K10):
// Gₙⱼ += rₙₖμₖⱼ − c(ΦΣₖ)ₙⱼ.
func (q *mcFixedQ) activeGrad(gm *mat.Dense, ts []*mat.Dense, r *mat.Dense) {
	n := len(q.rows)
	for c, cl := range q.cls {
		if ts[c] == nil {
			continue
		}
		for i := range n {
			grow, tr := gm.RawRowView(i), ts[c].RawRowView(i)
			ri := r.At(i, c)
			for p, a := range cl.act {
				if a >= q.off {
					grow[a-q.off] += ri*cl.mu[p] - q.cAt(i, c)*tr[p]
				}
			}
		}
	}
}

// excludedTerms adds to f the excluded functions' terms (K10), (K4),
// with s = cφⱼᵀφⱼ: the softmax counts one term per class outside whose
// active set j is, the probit one term with K outputs for a function
// outside the shared set. It returns, for the gradient, ex, Σ over the
// terms of j of c/(αⱼ + sⱼ) (Gₙⱼ −= exⱼKₙⱼ), or, for the bound (M19), exK,
// 1/(αⱼ + sⱼₖ) (N × K: Gₙⱼ −= Kₙⱼ Σₖ exKⱼₖ Aₙ,ₖₖ).
func (q *mcFixedQ) excludedTerms(f float64, kd []float64) (float64, []float64, *mat.Dense) {
	n := len(q.rows)
	nk := len(q.cls)
	ex := make([]float64, n)
	biasS := q.c * float64(n) // s of the bias function
	var exK *mat.Dense
	var cw []float64 // class c's curvatures Aₙ,cc
	if q.curv != nil {
		exK, cw = mat.NewDense(n, nk, nil), make([]float64, n)
	}
	for c, cl := range q.cls {
		if q.curv != nil {
			biasS = 0
			for i := range n {
				cw[i] = q.cAt(i, c)
				biasS += cw[i]
			}
		}
		if q.probit && c > 0 {
			break
		}
		in := memberOf(n+q.off, cl.act)
		if q.off > 0 && !in[0] {
			f += q.excludedTerm(biasS) // constant in θ
		}
		for j := range n {
			if in[j+q.off] {
				continue
			}
			var s float64
			if q.curv != nil {
				for i := range n {
					v := kd[i*n+j]
					s += cw[i] * v * v
				}
				f += q.excludedTerm(s)
				exK.Set(j, c, 1/(alphaRoot(q.prior.A, q.prior.B, s, 0)+s)) // (K4)
				continue
			}
			for i := range n {
				v := kd[i*n+j]
				s += v * v
			}
			s *= q.c
			f += q.excludedTerm(s)
			ex[j] += q.excludedSlope(s)
		}
	}
	return f, ex, exK
}

// excludedGrad adds the excluded functions' part of G = ∂F/∂Φ (K10),
// from the output of excludedTerms.
func (q *mcFixedQ) excludedGrad(gm *mat.Dense, kd, ex []float64, exK *mat.Dense) {
	n := len(q.rows)
	for i := range n {
		grow := gm.RawRowView(i)
		if exK != nil {
			for j := range n {
				var e float64
				for c, v := range exK.RawRowView(j) {
					e += v * q.cAt(i, c)
				}
				grow[j] -= e * kd[i*n+j]
			}
			continue
		}
		for j, e := range ex {
			if e != 0 {
				grow[j] -= e * kd[i*n+j]
			}
		}
	}
}

// excludedTerm is the full-model bound's term of an excluded function
// with s = cφⱼᵀφⱼ: (M15) for a softmax class, (P13) for the probit.
func (q *mcFixedQ) excludedTerm(s float64) float64 {
	if !q.probit {
		return excludedTerm(q.prior, s)
	}
	return multiclass.ProbitExcluded(q.prior.weightPrior(), len(q.cls), s)
}

// excludedSlope returns e with ∂excludedTerm/∂φⱼ = −eφⱼ (K10): by the
// envelope theorem d excludedTerm/ds = −(q/2)/(α + s) for q outputs at the
// maximiser α, and ∂s/∂φⱼ = 2cφⱼ.
func (q *mcFixedQ) excludedSlope(s float64) float64 {
	if !q.probit {
		return q.c / (alphaRoot(q.prior.A, q.prior.B, s, 0) + s)
	}
	kk := float64(len(q.cls))
	return kk * q.c / (alphaRoot(q.prior.A/kk, q.prior.B/kk, s, 0) + s)
}

// mcTarget is the learnTarget of MultiClassifier: every fit starts from
// an empty model (its solvers take no warm start).
type mcTarget struct {
	s   settings
	b   basis
	x   mat.Matrix
	y   []int
	nk  int
	lik MultiLikelihood
}

// mcFit is a fit of mcTarget.
type mcFit struct {
	b   basis
	sol *multiclass.Result
	q   *mcFixedQ
	ab  *abandonment
}

func (f *mcFit) full() float64 {
	if v := f.sol.Trace[len(f.sol.Trace)-1]; !math.IsNaN(v) {
		return v
	}
	return math.Inf(-1)
}
func (f *mcFit) halted() bool                      { return f.sol.Status == engine.Stopped && !f.ab.done }
func (f *mcFit) abandoned() bool                   { return f.ab.done }
func (f *mcFit) crowded() bool                     { return false }
func (f *mcFit) iters() int                        { return f.sol.Iters }
func (f *mcFit) gradient(k Learnable, g []float64) { f.q.eval(k, g) }

func (t *mcTarget) check(k Learnable) error {
	bb := t.b
	bb.kernel = k
	return bb.checkScale()
}

func (t *mcTarget) warmable() bool { return false }

func (t *mcTarget) unlimit() {}

func (t *mcTarget) fit(ctx context.Context, k Learnable, _ learnFit, abandon func(Progress) bool) (learnFit, error) {
	bb := t.b
	bb.kernel = k
	s := t.s
	s.kernel = k
	ab := s.abandonWhen(abandon)
	sol, q, err := solveMulti(ctx, &bb, t.x, t.y, t.nk, s, t.lik, true, nil)
	if errors.Is(err, errBoundNaN) {
		// A numerical failure at this θ (the kernel matrix nearly the
		// identity): the step is rejected, V = −∞.
		err = nil
	}
	if sol == nil {
		return nil, err
	}
	return &mcFit{b: bb, sol: sol, q: q, ab: ab}, err
}
