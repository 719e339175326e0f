package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Newton steps on the collapsed bound.
//
// With Q_w at its optimum for the current hyperparameters and Q_αₘ in the
// family Γ(ã, ã/⟨αₘ⟩) that (25)/(57) produce, L is a smooth function F of
// x = (ln⟨αₘ⟩, ln⟨τ⟩) (regression) or x = (ln⟨αₘ⟩, ln ξₙ)
// (classification): up to a constant
//
//	F = Σₘ (ã ln αₘ − bαₘ) + c̃ ln τ − dτ + ½ ln|Σ| + ½ hᵀΣh − ½τ‖t‖²   (regression)
//	F = Σₘ (ã ln αₘ − bαₘ) + Σₙ (ln σ(ξₙ) − ξₙ/2 + λ(ξₙ)ξₙ²) + ½ ln|Σ| + ½ hᵀΣh
//
// Its stationary points are exactly the fixed points of the paper's
// schedule: ∂F/∂ln αₘ = ã − αₘ(b + ⟨wₘ²⟩/2) vanishes when (25) holds,
// ∂F/∂ln τ = c̃ − τ(d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2) when (26)–(27) hold, and
// ∂F/∂ln ξₙ = ξₙ λ'(ξₙ)(ξₙ² − φₙᵀ⟨wwᵀ⟩φₙ) when (58) holds. The second
// derivatives follow from dΣ = −Σ dΣ⁻¹ Σ:
//
//	∂²F/∂uₘ∂uⱼ = δₘⱼ(gₘ − ã) + αₘαⱼ(½Σₘⱼ² + μₘμⱼΣₘⱼ)
//	∂²F/∂uₘ∂v  = −½ταₘ(2μₘ(ΣΦᵀr)ₘ − (ΣΦᵀΦΣ)ₘₘ),          r = t − Φμ
//	∂²F/∂v²    = g_v − c̃ + ½τ²(2rᵀΦΣΦᵀr + tr((ΦᵀΦΣ)²))
//	∂²F/∂uₘ∂ζₖ = αₘ ξₖλ'ₖ (2μₘTₖₘmₖ + Tₖₘ²),                  T = ΦΣ, m = Φμ
//	∂²F/∂ζₐ∂ζ꜀ = ξₐξ꜀λ'ₐλ'꜀(4mₐSₐ꜀m꜀ + 2Sₐ꜀²)
//	            + δₐ꜀(ξₐ²(λ''ₐ(ξₐ² − Eₐ) + 2ξₐλ'ₐ) + g_ζₐ),     S = ΦΣΦᵀ
//
// with u = ln α, v = ln τ, ζ = ln ξ.

// newtonMax is the largest number of parameters for which the solver takes
// Newton steps (a dense Hessian of that size); larger problems continue
// with the extrapolated schedule alone.
const newtonMax = 1500

// lambdaDerivs returns λ'(ξ) and λ”(ξ) for ξ ≥ 0.
func lambdaDerivs(xi float64) (d1, d2 float64) {
	if xi < 0.1 {
		// λ = 1/8 − ξ²/96 + ξ⁴/960 − 17ξ⁶/161280 + 62ξ⁸/5806080 − …
		x2 := xi * xi
		d1 = xi * (-1.0/48 + x2*(1.0/240+x2*(-102.0/161280+x2*496.0/5806080)))
		d2 = -1.0/48 + x2*(1.0/80+x2*(-510.0/161280+x2*3472.0/5806080))
		return d1, d2
	}
	th := math.Tanh(xi / 2)
	s2 := 1 - th*th
	num := xi*s2/2 - th
	d1 = num / (4 * xi * xi)
	d2 = -th*s2/(8*xi) - num/(2*xi*xi*xi)
	return d1, d2
}

// weightHessian fills the ln α block of the Hessian and the gradient.
func weightHessian(p Prior, w *woodQ, sig *mat.SymDense, g []float64, h *mat.SymDense) {
	m := len(w.mu)
	at := p.A + 0.5
	for i := range m {
		w2 := w.mu[i]*w.mu[i] + w.diag[i]
		g[i] = at - w.alpha[i]*(p.B+w2/2)
	}
	raw := sig.RawSymmetric()
	for i := range m {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		ai, mi := w.alpha[i], w.mu[i]
		for j := i; j < m; j++ {
			sij := row[j]
			v := ai * w.alpha[j] * (0.5*sij*sij + mi*w.mu[j]*sij)
			if i == j {
				v += g[i] - at
			}
			h.SetSym(i, j, v)
		}
	}
}

func (s *fastReg) newton() ([]float64, *mat.SymDense, bool) {
	m := len(s.alpha)
	if m+1 > newtonMax {
		return nil, nil, false
	}
	_, r := s.f.b.Dims()
	g := make([]float64, m+1)
	h := mat.NewSymDense(m+1, nil)
	sig := s.w.sigma()
	weightHessian(s.prior, &s.w, sig, g, h)
	beta := s.beta
	g[m] = s.ct - s.prior.D*beta - 0.5*beta*s.ew
	// ΣB, e = Uᵀr = K⁻¹Uᵀt/τ, ΣΦᵀr = ΣB e.
	sb := mat.NewDense(m, r, nil)
	blas64.Symm(blas.Left, 1, sig.RawSymmetric(), s.f.b.RawMatrix(), 0, sb.RawMatrix())
	e := make([]float64, r)
	for i, v := range s.w.v {
		e[i] = v / beta
	}
	sr := make([]float64, m)
	blas64.Gemv(blas.NoTrans, 1, sb.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: e}, 0, blas64.Vector{N: m, Inc: 1, Data: sr})
	for i := range m {
		row := sb.RawRowView(i)
		sgs := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: row}, blas64.Vector{N: r, Inc: 1, Data: row})
		h.SetSym(i, m, -0.5*beta*s.alpha[i]*(2*s.w.mu[i]*sr[i]-sgs))
	}
	ye := make([]float64, r)
	blas64.Symv(1, s.w.y.RawSymmetric(), blas64.Vector{N: r, Inc: 1, Data: e}, 0, blas64.Vector{N: r, Inc: 1, Data: ye})
	rSr := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: e}, blas64.Vector{N: r, Inc: 1, Data: ye})
	var y2 float64
	for i := range r {
		for j := range r {
			v := s.w.y.At(i, j)
			y2 += v * v
		}
	}
	h.SetSym(m, m, g[m]-s.ct+0.5*beta*beta*(2*rSr+y2))
	return g, h, true
}

func (s *fastCls) newton() ([]float64, *mat.SymDense, bool) {
	m := len(s.alpha)
	n, r := s.f.u.Dims()
	k := m + n
	if k > newtonMax {
		return nil, nil, false
	}
	g := make([]float64, k)
	h := mat.NewSymDense(k, nil)
	sig := s.w.sigma()
	weightHessian(s.prior, &s.w, sig, g, h)
	// T = ΦΣ = U (ΣB)ᵀ and S = ΦΣΦᵀ = U (BᵀΣB) Uᵀ.
	sb := mat.NewDense(m, r, nil)
	blas64.Symm(blas.Left, 1, sig.RawSymmetric(), s.f.b.RawMatrix(), 0, sb.RawMatrix())
	tm := mat.NewDense(n, m, nil)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, s.f.u.RawMatrix(), sb.RawMatrix(), 0, tm.RawMatrix())
	sm := mat.NewDense(n, n, nil)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, s.uy.RawMatrix(), s.f.u.RawMatrix(), 0, sm.RawMatrix())
	d1 := make([]float64, n)
	d2 := make([]float64, n)
	for i, xi := range s.xi {
		d1[i], d2[i] = lambdaDerivs(xi)
		g[m+i] = xi * d1[i] * (xi*xi - s.e[i])
	}
	for i := range m {
		ai, mi := s.alpha[i], s.w.mu[i]
		for c := range n {
			tc := tm.At(c, i)
			h.SetSym(i, m+c, ai*s.xi[c]*d1[c]*(2*mi*tc*s.act[c]+tc*tc))
		}
	}
	for a := range n {
		row := sm.RawRowView(a)
		fa := s.xi[a] * d1[a]
		for c := a; c < n; c++ {
			sac := row[c]
			v := fa * s.xi[c] * d1[c] * (4*s.act[a]*sac*s.act[c] + 2*sac*sac)
			if a == c {
				xi := s.xi[a]
				v += xi*xi*(d2[a]*(xi*xi-s.e[a])+2*xi*d1[a]) + g[m+a]
			}
			h.SetSym(m+a, m+c, v)
		}
	}
	return g, h, true
}
