package likelihood

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// Lambda is the Jaakkola–Jordan coefficient λ(ξ) = tanh(ξ/2) / (4ξ) of the
// bound (50), an even function with λ(0) = 1/8.
//
// Special cases are:
//
//	Lambda(0) = 1/8
//	Lambda(±Inf) = 0
//	Lambda(NaN) = NaN
func Lambda(xi float64) float64 {
	a := math.Abs(xi)
	if a < 1e-4 {
		// tanh(u) = u − u³/3 + 2u⁵/15 − …, u = ξ/2.
		x2 := a * a
		return 1.0/8 - x2/96 + x2*x2/960
	}
	if math.IsInf(a, 1) {
		return 0
	}
	return math.Tanh(a/2) / (4 * a)
}

// LogSigmoid returns ln σ(z) = −ln(1 + e^(−z)) without overflow.
func LogSigmoid(z float64) float64 {
	if z >= 0 {
		return -math.Log1p(math.Exp(-z))
	}
	return z - math.Log1p(math.Exp(z))
}

// Sigmoid returns the logistic function σ(z) = 1/(1 + e^(−z)).
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Logit is the logistic likelihood of classification (8),
// P(tₙ = 1 | w) = σ(wᵀφₙ), under the Jaakkola–Jordan bound (50) with one
// variational parameter ξₙ per training point.
type Logit struct {
	t    []float64
	half []float64 // tₙ − ½
	xi   []float64 // ξₙ
	lam  []float64 // λ(ξₙ)
	beta []float64 // 2λ(ξₙ)
	act  []float64 // μᵀφₙ under the observed Q_w
	e    []float64 // φₙᵀ⟨wwᵀ⟩φₙ = (μᵀφₙ)² + φₙᵀΣφₙ
}

// NewLogit starts every ξₙ at xi0, for labels t ∈ {0, 1}.
func NewLogit(t []float64, xi0 float64) *Logit {
	n := len(t)
	l := &Logit{t: t, half: make([]float64, n), xi: make([]float64, n), lam: make([]float64, n),
		beta: make([]float64, n), act: make([]float64, n), e: make([]float64, n)}
	for i, v := range t {
		l.half[i] = v - 0.5
		l.setXi(i, xi0)
	}
	return l
}

func (l *Logit) setXi(i int, xi float64) {
	l.xi[i] = xi
	l.lam[i] = Lambda(xi)
	l.beta[i] = 2 * l.lam[i]
}

func (l *Logit) Weights() ([]float64, float64) { return l.beta, 0 }
func (l *Logit) Data() ([]float64, float64)    { return l.half, 1 }
func (l *Logit) RowVariances() bool            { return true }

func (l *Logit) Observe(q *Latent) {
	for i, m := range q.Mean {
		l.act[i] = m
		l.e[i] = m*m + q.Vars[i]
	}
}

// Update applies (58): ξₙ = √(φₙᵀ⟨wwᵀ⟩φₙ).
func (l *Logit) Update() float64 {
	var ch float64
	for i, e := range l.e {
		nx := math.Sqrt(math.Max(e, 0)) // (58)
		ch = math.Max(ch, math.Abs(nx-l.xi[i])/math.Max(math.Abs(l.xi[i]), 1e-12))
		l.setXi(i, nx)
	}
	return ch
}

// Terms returns ⟨ln F⟩ (60):
//
//	⟨ln F⟩ = Σₙ{ln σ(ξₙ) + (tₙ − ½)μᵀφₙ − ξₙ/2 − λ(ξₙ)(φₙᵀ⟨wwᵀ⟩φₙ − ξₙ²)}
func (l *Logit) Terms() [3]float64 {
	var s float64
	for i, xi := range l.xi {
		s += LogSigmoid(xi) + l.half[i]*l.act[i] - xi/2 - l.lam[i]*(l.e[i]-xi*xi) // (60)
	}
	return [3]float64{0, 0, s}
}

func (l *Logit) Params(dst []float64) []float64 { return append(dst, l.xi...) }

func (l *Logit) LogParams(dst []float64) []float64 {
	for _, v := range l.xi {
		dst = append(dst, math.Log(v))
	}
	return dst
}

func (l *Logit) SetLogParams(u []float64) {
	for i := range l.xi {
		u[i] = ClampLog(u[i], 700)
		l.setXi(i, math.Exp(u[i]))
	}
}

func (l *Logit) Factor(dst []float64) []float64 { return append(dst, l.xi...) }

func (l *Logit) SetFactor(f []float64) {
	for i, v := range f {
		l.setXi(i, v)
	}
}

func (l *Logit) Start() Likelihood {
	c := *l
	for _, v := range []*[]float64{&c.xi, &c.lam, &c.beta, &c.act, &c.e} {
		*v = append([]float64(nil), *v...)
	}
	return &c
}

func (l *Logit) GammaRows() int                    { return 0 }
func (l *Logit) Labels() []float64                 { return l.t }
func (l *Logit) NewtonCopy() Likelihood            { return nil }
func (l *Logit) TakesBiasStart(constant bool) bool { return constant || explainsLittle(l) }

// CountRows returns the counted likelihood of the distinct rows (Count).
func (l *Logit) CountRows(of, first []int, count []float64) (Likelihood, func()) {
	lu := NewLogit(subset.Vec(l.t, first), 1)
	for u, i := range first {
		lu.setXi(u, l.xi[i]) // the factor starts where l holds it
	}
	cl := NewCount(lu, count)
	return cl, func() {
		for n, u := range of {
			l.setXi(n, lu.xi[u])
			l.act[n], l.e[n] = lu.act[u], lu.e[u]
		}
	}
}

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

// Hessian fills the ξ part of the gradient and Hessian of the collapsed
// bound F for the Newton solver:
//
//	∂F/∂ζₙ     = ξₙλ'(ξₙ)(ξₙ² − Eₙ),   Eₙ = φₙᵀ⟨wwᵀ⟩φₙ
//	∂²F/∂uₘ∂ζₖ = αₘ ξₖλ'ₖ (2μₘTₖₘmₖ + Tₖₘ²),                  T = ΦΣ, m = Φμ
//	∂²F/∂ζₐ∂ζ꜀ = ξₐξ꜀λ'ₐλ'꜀(4mₐSₐ꜀m꜀ + 2Sₐ꜀²)
//	            + δₐ꜀(ξₐ²(λ''ₐ(ξₐ² − Eₐ) + 2ξₐλ'ₐ) + ∂F/∂ζₐ),  S = ΦΣΦᵀ
func (l *Logit) Hessian(s *Collapsed, sig *mat.SymDense, g []float64, h *mat.SymDense) bool {
	m := len(s.Alpha)
	n, r := s.U.Dims()
	// T = ΦΣ = U (ΣB)ᵀ and S = ΦΣΦᵀ = U (BᵀΣB) Uᵀ.
	sb := mat.NewDense(m, r, nil)
	blas64.Symm(blas.Left, 1, sig.RawSymmetric(), s.B.RawMatrix(), 0, sb.RawMatrix())
	tm := mat.NewDense(n, m, nil)
	dense.Gemm(blas.NoTrans, blas.Trans, 1, s.U.RawMatrix(), sb.RawMatrix(), 0, tm.RawMatrix())
	sm := mat.NewDense(n, n, nil)
	dense.Gemm(blas.NoTrans, blas.Trans, 1, s.UY.RawMatrix(), s.U.RawMatrix(), 0, sm.RawMatrix())
	d1 := make([]float64, n)
	d2 := make([]float64, n)
	for i, xi := range l.xi {
		d1[i], d2[i] = lambdaDerivs(xi)
		g[m+i] = xi * d1[i] * (xi*xi - l.e[i])
	}
	for i := range m {
		ai, mi := s.Alpha[i], s.Mu[i]
		for c := range n {
			tc := tm.At(c, i)
			h.SetSym(i, m+c, ai*l.xi[c]*d1[c]*(2*mi*tc*l.act[c]+tc*tc))
		}
	}
	for a := range n {
		row := sm.RawRowView(a)
		fa := l.xi[a] * d1[a]
		for c := a; c < n; c++ {
			sac := row[c]
			v := fa * l.xi[c] * d1[c] * (4*l.act[a]*sac*l.act[c] + 2*sac*sac)
			if a == c {
				xi := l.xi[a]
				v += xi*xi*(d2[a]*(xi*xi-l.e[a])+2*xi*d1[a]) + g[m+a]
			}
			h.SetSym(m+a, m+c, v)
		}
	}
	return true
}

// explainsLittleFrac is the fraction of the constant classifier's training
// errors (the smaller class's rows) at or above which a fit has explained
// too little of the labels to be left without the bias start (S13).
const explainsLittleFrac = 0.5

// explainsLittle reports whether the fitted likelihood l, at its final
// activations, misclassifies at least explainsLittleFrac times as many
// training rows as the constant classifier does (S13).
func explainsLittle(l *Logit) bool {
	var n1, errs int
	for i, t := range l.t {
		if t == 1 {
			n1++
		}
		if (l.act[i] > 0) != (t == 1) {
			errs++
		}
	}
	minority := min(n1, len(l.t)-n1)
	return minority > 0 && float64(errs) >= explainsLittleFrac*float64(minority)
}
