package likelihood

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// Gauss is the Gaussian likelihood of regression (2), tₙ = wᵀφₙ + ε
// with noise precision τ, and its factor Q_τ = Γ(τ | c̃, d̃) (21) under the
// prior Γ(τ | c, d).
type Gauss struct {
	t      []float64 // nil for a fit from sufficient statistics
	n      int       // N, the number of rows
	c, d   float64   // the prior's shape and rate
	ct, dt float64   // c̃, d̃
	ew     float64   // Σₙ⟨(tₙ − wᵀφₙ)²⟩ under the observed Q_w
	extra  float64   // tᵀt − zᵀz when t holds the pseudo-targets z (P1), else 0
	resid  []float64
}

// NewGauss starts Q_τ at ⟨τ⟩ = tau0 with c̃ = c + N/2 (26, settled), for
// n rows whose targets t may be nil (a fit from sufficient statistics,
// whose solver observes SqResid), under the prior Γ(τ | c, d).
func NewGauss(t []float64, n int, c, d, tau0 float64) *Gauss {
	ct := c + float64(n)/2
	return &Gauss{t: t, n: n, c: c, d: d, ct: ct, dt: ct / tau0}
}

// SetPseudoRows sets the targets to the pseudo-targets z of a fit from
// sufficient statistics and extra to tᵀt − zᵀz (P1); N stays the number
// of rows the statistics count, for (26) and (40).
func (g *Gauss) SetPseudoRows(z []float64, extra float64) { g.t, g.extra = z, extra }

// SqErr returns Σₙ⟨(tₙ − wᵀφₙ)²⟩ under the Q_w observed last (27).
func (g *Gauss) SqErr() float64 { return g.ew }

// Tau returns ⟨τ⟩ = c̃/d̃.
func (g *Gauss) Tau() float64 { return g.ct / g.dt }

// clone returns a copy of g that shares no state with it (the data t are
// read only), for a second start of the sequential solver.
func (g *Gauss) clone() *Gauss {
	c := *g
	c.resid = append([]float64(nil), g.resid...)
	return &c
}

func (g *Gauss) lnTau() float64     { return mathext.Digamma(g.ct) - math.Log(g.dt) }
func (g *Gauss) RowVariances() bool { return false }

func (g *Gauss) Weights() ([]float64, float64) { return nil, g.Tau() }
func (g *Gauss) Data() ([]float64, float64)    { return g.t, g.Tau() }

// Observe records Σₙ⟨(tₙ − wᵀφₙ)²⟩ = ‖t − Φμ‖² + tr(ΦΣΦᵀ) (27, settled),
// plus extra for pseudo-rows (P1).
func (g *Gauss) Observe(l *Latent) {
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
func (g *Gauss) Update() float64 {
	old := g.Tau()
	g.ct = g.c + float64(g.n)/2 // (26)
	g.dt = g.d + g.ew/2         // (27)
	return math.Abs(g.Tau()-old) / old
}

// Terms returns (40), (43) and (46*):
//
//	⟨ln p(t|w,τ)⟩ = N/2 ⟨ln τ⟩ − N/2 ln 2π − ⟨τ⟩/2 Σₙ⟨(tₙ − wᵀφₙ)²⟩    (40)
//	⟨ln p(τ)⟩     = c ln d + (c − 1)⟨ln τ⟩ − d⟨τ⟩ − ln Γ(c)              (43)
//	H[Q_τ]        = ln Γ(c̃) − (c̃ − 1)ψ(c̃) − ln d̃ + c̃                    (46*)
func (g *Gauss) Terms() [3]float64 {
	lnPt, lnPtau, htau := g.termList()
	return [3]float64{lnPt, lnPtau, htau}
}

func (g *Gauss) termList() (lnPt, lnPtau, htau float64) {
	n := float64(g.n)
	tau, lnTau := g.Tau(), g.lnTau()
	lnPt = n/2*lnTau - n/2*Ln2Pi - tau/2*g.ew       // (40)
	lnPtau = ExpectedLogGamma(g.c, g.d, tau, lnTau) // (43)
	htau = GammaEntropy(g.ct, g.dt)                 // (46*)
	return lnPt, lnPtau, htau
}

func (g *Gauss) Params(dst []float64) []float64 { return append(dst, g.Tau()) }

func (g *Gauss) LogParams(dst []float64) []float64 { return append(dst, math.Log(g.Tau())) }

func (g *Gauss) SetLogParams(u []float64) {
	u[0] = ClampLog(u[0], 700)
	g.dt = g.ct / math.Exp(u[0])
}

func (g *Gauss) Factor(dst []float64) []float64 { return append(dst, g.ct, g.dt) }
func (g *Gauss) SetFactor(f []float64)          { g.ct, g.dt = f[0], f[1] }
func (g *Gauss) Start() Likelihood              { return g.clone() }
func (g *Gauss) GammaRows() int                 { return len(g.t) }
func (g *Gauss) Labels() []float64              { return nil }
func (g *Gauss) TakesBiasStart(bool) bool       { return true }

func (g *Gauss) CountRows([]int, []int, []float64) (Likelihood, func()) { return nil, nil }

// NewtonCopy returns a copy of g without its residuals, for (S7).
func (g *Gauss) NewtonCopy() Likelihood {
	c := *g
	c.resid = nil
	return &c
}

// Hessian fills the ln τ part of the gradient and Hessian of the collapsed
// bound F for the Newton solver, with v = ln τ and
// r = t − Φμ:
//
//	∂F/∂v      = c̃ − τ(d + Σₙ⟨(tₙ − wᵀφₙ)²⟩/2)
//	∂²F/∂uₘ∂v  = −½ταₘ(2μₘ(ΣΦᵀr)ₘ − (ΣΦᵀΦΣ)ₘₘ)
//	∂²F/∂v²    = ∂F/∂v − c̃ + ½τ²(2rᵀΦΣΦᵀr + tr((ΦᵀΦΣ)²))
func (g *Gauss) Hessian(s *Collapsed, sig *mat.SymDense, gr []float64, h *mat.SymDense) bool {
	m := len(s.Alpha)
	_, r := s.B.Dims()
	beta := g.Tau()
	gr[m] = g.ct - g.d*beta - 0.5*beta*g.ew
	// ΣB, e = Uᵀr = K⁻¹Uᵀt/τ, ΣΦᵀr = ΣB e.
	sb := mat.NewDense(m, r, nil)
	blas64.Symm(blas.Left, 1, sig.RawSymmetric(), s.B.RawMatrix(), 0, sb.RawMatrix())
	e := make([]float64, r)
	for i, v := range s.V {
		e[i] = v / beta
	}
	sr := make([]float64, m)
	blas64.Gemv(blas.NoTrans, 1, sb.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: e}, 0, blas64.Vector{N: m, Inc: 1, Data: sr})
	for i := range m {
		row := sb.RawRowView(i)
		sgs := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: row}, blas64.Vector{N: r, Inc: 1, Data: row})
		h.SetSym(i, m, -0.5*beta*s.Alpha[i]*(2*s.Mu[i]*sr[i]-sgs))
	}
	ye := make([]float64, r)
	blas64.Symv(1, s.Y.RawSymmetric(), blas64.Vector{N: r, Inc: 1, Data: e}, 0, blas64.Vector{N: r, Inc: 1, Data: ye})
	rSr := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: e}, blas64.Vector{N: r, Inc: 1, Data: ye})
	var y2 float64
	for i := range r {
		for j := range r {
			v := s.Y.At(i, j)
			y2 += v * v
		}
	}
	h.SetSym(m, m, gr[m]-g.ct+0.5*beta*beta*(2*rSr+y2))
	return true
}
