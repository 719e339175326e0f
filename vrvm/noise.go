package vrvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// gaussLik is the Gaussian likelihood of regression (2), tₙ = wᵀφₙ + ε
// with noise precision τ, and its factor Q_τ = Γ(τ | c̃, d̃) (21).
type gaussLik struct {
	t      []float64 // nil for a fit from sufficient statistics (stats.go)
	n      int       // N, the number of rows
	prior  Prior
	ct, dt float64 // c̃, d̃
	ew     float64 // Σₙ⟨(tₙ − wᵀφₙ)²⟩ under the observed Q_w
	extra  float64 // tᵀt − zᵀz when t holds the pseudo-targets z (P1), else 0
	resid  []float64
}

// newGaussLik starts Q_τ at ⟨τ⟩ = tau0 with c̃ = c + N/2 (26, settled).
func newGaussLik(t []float64, p Prior, tau0 float64) *gaussLik {
	return newGaussLikRows(t, len(t), p, tau0)
}

// newGaussLikRows is newGaussLik for n rows whose targets t may be nil
// (a fit from sufficient statistics, whose solver observes sqResid).
func newGaussLikRows(t []float64, n int, p Prior, tau0 float64) *gaussLik {
	ct := p.C + float64(n)/2
	return &gaussLik{t: t, n: n, prior: p, ct: ct, dt: ct / tau0}
}

// clone returns a copy of g that shares no state with it (the data t are
// read only), for a second start of the sequential solver.
func (g *gaussLik) clone() *gaussLik {
	c := *g
	c.resid = append([]float64(nil), g.resid...)
	return &c
}

func (g *gaussLik) tau() float64       { return g.ct / g.dt }
func (g *gaussLik) lnTau() float64     { return mathext.Digamma(g.ct) - math.Log(g.dt) }
func (g *gaussLik) RowVariances() bool { return false }

func (g *gaussLik) Weights() ([]float64, float64) { return nil, g.tau() }
func (g *gaussLik) Data() ([]float64, float64)    { return g.t, g.tau() }

// Observe records Σₙ⟨(tₙ − wᵀφₙ)²⟩ = ‖t − Φμ‖² + tr(ΦΣΦᵀ) (27, settled),
// plus extra for pseudo-rows (P1).
func (g *gaussLik) Observe(l *latent) {
	if l.Mean == nil {
		g.ew = l.SqResid + l.SumVar + g.extra
		return
	}
	g.resid = resize(g.resid, len(g.t))
	for i, m := range l.Mean {
		g.resid[i] = g.t[i] - m
	}
	r := blas64.Vector{N: len(g.resid), Inc: 1, Data: g.resid}
	g.ew = blas64.Dot(r, r) + l.SumVar + g.extra
}

// Update applies (26)–(27) as settled: c̃ = c + N/2, d̃ = d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2.
func (g *gaussLik) Update() float64 {
	old := g.tau()
	g.ct = g.prior.C + float64(g.n)/2 // (26)
	g.dt = g.prior.D + g.ew/2         // (27)
	return math.Abs(g.tau()-old) / old
}

// Terms returns (40), (43) and (46*):
//
//	⟨ln p(t|w,τ)⟩ = N/2 ⟨ln τ⟩ − N/2 ln 2π − ⟨τ⟩/2 Σₙ⟨(tₙ − wᵀφₙ)²⟩    (40)
//	⟨ln p(τ)⟩     = c ln d + (c − 1)⟨ln τ⟩ − d⟨τ⟩ − ln Γ(c)              (43)
//	H[Q_τ]        = ln Γ(c̃) − (c̃ − 1)ψ(c̃) − ln d̃ + c̃                    (46*)
func (g *gaussLik) Terms() [3]float64 {
	lnPt, lnPtau, htau := g.termList()
	return [3]float64{lnPt, lnPtau, htau}
}

func (g *gaussLik) termList() (lnPt, lnPtau, htau float64) {
	n := float64(g.n)
	tau, lnTau := g.tau(), g.lnTau()
	lnPt = n/2*lnTau - n/2*ln2Pi - tau/2*g.ew                   // (40)
	lnPtau = expectedLogGamma(g.prior.C, g.prior.D, tau, lnTau) // (43)
	htau = gammaEntropy(g.ct, g.dt)                             // (46*)
	return lnPt, lnPtau, htau
}

func (g *gaussLik) Params(dst []float64) []float64 { return append(dst, g.tau()) }

func (g *gaussLik) LogParams(dst []float64) []float64 { return append(dst, math.Log(g.tau())) }

func (g *gaussLik) SetLogParams(u []float64) {
	u[0] = clampLog(u[0], 700)
	g.dt = g.ct / math.Exp(u[0])
}

func (g *gaussLik) Factor(dst []float64) []float64 { return append(dst, g.ct, g.dt) }
func (g *gaussLik) SetFactor(f []float64)          { g.ct, g.dt = f[0], f[1] }
func (g *gaussLik) Start() likelihood              { return g.clone() }
func (g *gaussLik) GammaRows() int                 { return len(g.t) }
func (g *gaussLik) Labels() []float64              { return nil }
func (g *gaussLik) TakesBiasStart(bool) bool       { return true }

func (g *gaussLik) CountRows([]int, []int, []float64) (likelihood, func()) { return nil, nil }

// NewtonCopy returns a copy of g without its residuals, for (S7).
func (g *gaussLik) NewtonCopy() likelihood {
	c := *g
	c.resid = nil
	return &c
}

// Hessian fills the ln τ part of the gradient and Hessian of the collapsed
// bound F for the Newton solver (see newton.go), with v = ln τ and
// r = t − Φμ:
//
//	∂F/∂v      = c̃ − τ(d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2)
//	∂²F/∂uₘ∂v  = −½ταₘ(2μₘ(ΣΦᵀr)ₘ − (ΣΦᵀΦΣ)ₘₘ)
//	∂²F/∂v²    = ∂F/∂v − c̃ + ½τ²(2rᵀΦΣΦᵀr + tr((ΦᵀΦΣ)²))
func (g *gaussLik) Hessian(s *collapsed, sig *mat.SymDense, gr []float64, h *mat.SymDense) bool {
	m := len(s.alpha)
	_, r := s.f.b.Dims()
	beta := g.tau()
	gr[m] = g.ct - g.prior.D*beta - 0.5*beta*g.ew
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
	h.SetSym(m, m, gr[m]-g.ct+0.5*beta*beta*(2*rSr+y2))
	return true
}
