package multiclass

import (
	"math"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// The multinomial probit likelihood of the multi-class model, (P1)–(P9) of
// docs/design.md ("Multi-class probit"): auxiliary variables
// yₙ ~ N(Wᵀφₙ, I) with tₙ = argmaxₖ yₙₖ (Girolami & Rogers 2006), so that
// Q(Y) is a product of truncated Gaussians whose moments are
// one-dimensional integrals, and each class's Q(wₖ) is the posterior of a
// regression on the targets ⟨yₖ⟩ with unit noise precision (P3); the
// solver is mcProblem.solve (solve.go), with probitLik.

// probitNodes is the number of Gauss–Hermite nodes of the adaptive
// quadrature (P4): the integrands are smooth and log-concave, and 16
// nodes centred at the mode agree with a brute-force rule to 1e-7 in
// ln Z and the moments (TestProbitIntegral); 12 do not for (P7).
const probitNodes = 16

// hermite holds the Gauss–Hermite nodes xᵢ and ln wᵢ + xᵢ² for the weight
// e^(−x²).
var hermite = func() (h struct{ x, lw []float64 }) {
	h.x, h.lw = make([]float64, probitNodes), make([]float64, probitNodes)
	w := make([]float64, probitNodes)
	quad.Hermite{}.FixedLocations(h.x, w, math.Inf(-1), math.Inf(1))
	for i, x := range h.x {
		h.lw[i] = math.Log(w[i]) + x*x
	}
	return h
}()

// lnPhiRatio returns ln Φ(z) and the inverse Mills ratio λ(z) = N(z)/Φ(z)
// of the standard normal, accurate in both tails: Φ by erfc above −5,
// below by the continued fraction of Mills' ratio Φ(z)/N(z) =
// 1/(x + 1/(x + 2/(x + 3/(x + …)))), x = −z.
func lnPhiRatio(z float64) (lnPhi, lambda float64) {
	lnN := -0.5*z*z - 0.5*likelihood.Ln2Pi
	if z > -5 {
		p := 0.5 * math.Erfc(-z/math.Sqrt2)
		if z > 0 {
			lnPhi = math.Log1p(-0.5 * math.Erfc(z/math.Sqrt2))
		} else {
			lnPhi = math.Log(p)
		}
		return lnPhi, math.Exp(lnN - lnPhi)
	}
	x := -z
	r := x
	for k := 60; k >= 1; k-- {
		r = x + float64(k)/r
	}
	// r = 1/R with R = Φ(z)/N(z).
	return lnN - math.Log(r), r
}

// probitIntegral returns ln Z = ln ∫ N(u|0,1) ∏ₗ Φ(aₗu + dₗ) du (P4) and,
// if e is not nil, sets eₗ = E_f[λ(aₗu + dₗ)] under the normalised
// integrand f (P5); a nil a means aₗ = 1. The integrand is log-concave;
// the quadrature is Gauss–Hermite centred at its mode u* (Newton steps)
// and scaled by its curvature there, in log space, so that it stays
// accurate when Z underflows.
func probitIntegral(d, a, e []float64) float64 {
	lnZ, _ := probitMoments(d, a, e, nil)
	return lnZ
}

// probitQuad computes the adaptive quadrature of (P4): it returns ln Z
// and sets the nodes us, their normalised weights pis (summing to one,
// the quadrature of E_f) and lams[i·L + l] = λ(aₗusᵢ + dₗ), L = len(d).
func probitQuad(d, a []float64, us, pis, lams []float64) float64 {
	scale := func(l int) float64 {
		if a == nil {
			return 1
		}
		return a[l]
	}
	// g(u) = −u²/2 + Σₗ ln Φ(aₗu + dₗ), concave, g'' ≤ −1.
	deriv := func(u float64) (g1, g2 float64) {
		g1, g2 = -u, -1
		for l, dl := range d {
			al := scale(l)
			z := al*u + dl
			_, lam := lnPhiRatio(z)
			g1 += al * lam
			g2 -= al * al * lam * (z + lam)
		}
		return g1, g2
	}
	u := 0.0
	var g2 float64
	for range 100 {
		var g1 float64
		g1, g2 = deriv(u)
		step := -g1 / g2
		u += step
		if math.Abs(step) <= 1e-10*(1+math.Abs(u)) {
			break
		}
	}
	_, g2 = deriv(u)
	sd := math.Sqrt2 / math.Sqrt(-g2) // √2σ
	nl := len(d)
	hi := math.Inf(-1)
	for i, x := range hermite.x {
		v := u + sd*x
		us[i] = v
		g := -0.5 * v * v
		for l, dl := range d {
			lp, lam := lnPhiRatio(scale(l)*v + dl)
			g += lp
			lams[i*nl+l] = lam
		}
		pis[i] = hermite.lw[i] + g
		hi = math.Max(hi, pis[i])
	}
	var s float64
	for i, v := range pis {
		pis[i] = math.Exp(v - hi)
		s += pis[i]
	}
	for i := range pis {
		pis[i] /= s
	}
	return hi + math.Log(s) + math.Log(sd) - 0.5*likelihood.Ln2Pi // (P4)
}

// probitMoments is probitIntegral that also, if vv is not nil (and a is
// nil), sets vvₗ = Var_f(yₗ) of the truncated variable yₗ of (P5),
// 1 − E_f[λ(z + λ)] + Var_f(λ) with z = u + dₗ, and returns Var_f(u), the
// variance of the class's own variable (P7).
func probitMoments(d, a, e, vv []float64) (lnZ, varU float64) {
	var us, pis [probitNodes]float64
	nl := len(d)
	lams := make([]float64, probitNodes*nl)
	lnZ = probitQuad(d, a, us[:], pis[:], lams)
	if e == nil && vv == nil {
		return lnZ, 0
	}
	for l := range e {
		e[l] = 0
	}
	for l := range vv {
		vv[l] = 0
	}
	var eu, eu2 float64
	var e2 []float64
	if vv != nil {
		e2 = make([]float64, nl)
	}
	for i, pi := range pis {
		eu += pi * us[i]
		eu2 += pi * us[i] * us[i]
		for l, dl := range d {
			lam := lams[i*nl+l]
			e[l] += pi * lam // (P5)
			if vv != nil {
				z := us[i] + dl
				vv[l] += pi * lam * (z + lam)
				e2[l] += pi * lam * lam
			}
		}
	}
	for l := range vv {
		vv[l] = 1 - vv[l] + e2[l] - e[l]*e[l] // (P7)
	}
	return lnZ, eu2 - eu*eu
}

// probitRowCov is probitRow that also sets h (K × K, row-major) to
// I − Cov_Q(yₙ), the negative Hessian of ln Zₙ in the means (P7): given
// u, the yⱼ (j ≠ t) are independent with means mⱼ − λⱼ(u), so
// Cov(yⱼ, yₗ) = Cov_f(λⱼ, λₗ) (j ≠ l), Cov(yₜ, yⱼ) = −Cov_f(u, λⱼ), and
// the variances are (P7).
func probitRowCov(ytil, m []float64, t int, h []float64) float64 {
	k := len(m)
	d := make([]float64, k-1)
	idx := make([]int, k-1)
	l := 0
	for j, v := range m {
		if j != t {
			d[l], idx[l] = m[t]-v, j
			l++
		}
	}
	var us, pis [probitNodes]float64
	nl := k - 1
	lams := make([]float64, probitNodes*nl)
	lnZ := probitQuad(d, nil, us[:], pis[:], lams)
	e, eul, ez := make([]float64, nl), make([]float64, nl), make([]float64, nl)
	ell := make([]float64, nl*nl)
	var eu, eu2 float64
	for i, pi := range pis {
		eu += pi * us[i]
		eu2 += pi * us[i] * us[i]
		row := lams[i*nl : (i+1)*nl]
		for a, la := range row {
			e[a] += pi * la
			eul[a] += pi * us[i] * la
			ez[a] += pi * la * (us[i] + d[a] + la)
			for b := a; b < nl; b++ {
				ell[a*nl+b] += pi * la * row[b]
			}
		}
	}
	for i := range h {
		h[i] = 0
	}
	ytil[t] = m[t]
	for a, j := range idx {
		ytil[j] = m[j] - e[a] // (P5)
		ytil[t] += e[a]
		h[j*k+j] = 1 - (1 - ez[a] + ell[a*nl+a] - e[a]*e[a]) // (P7)
		c := -(eul[a] - eu*e[a])
		h[t*k+j], h[j*k+t] = -c, -c
		for b := a + 1; b < nl; b++ {
			cv := ell[a*nl+b] - e[a]*e[b]
			h[j*k+idx[b]], h[idx[b]*k+j] = -cv, -cv
		}
	}
	h[t*k+t] = 1 - (eu2 - eu*eu)
	return lnZ
}

// probitRow returns ln Zₙ (P4) of a row with means m and class t and sets
// ỹ = ⟨yₙ⟩ under Q(yₙ) (P5): ỹⱼ = mⱼ − E_f[λ(u + mₜ − mⱼ)] for j ≠ t and
// ỹₜ = mₜ + Σ_{j≠t}(mⱼ − ỹⱼ). d and e are scratch space of length K − 1.
//
// If vr is not nil (with vv, scratch of length K − 1), it is set to the
// variances Var_Q(yₙⱼ) (P7).
func probitRow(ytil, m []float64, t int, d, e, vr, vv []float64) float64 {
	l := 0
	for j, v := range m {
		if j != t {
			d[l] = m[t] - v
			l++
		}
	}
	var lnZ, vt float64
	if vr != nil {
		lnZ, vt = probitMoments(d, nil, e, vv)
	} else {
		lnZ = probitIntegral(d, nil, e)
	}
	l = 0
	ytil[t] = m[t]
	for j, v := range m {
		if j != t {
			ytil[j] = v - e[l]
			ytil[t] += e[l]
			if vr != nil {
				vr[j] = vv[l]
			}
			l++
		}
	}
	if vr != nil {
		vr[t] = vt
	}
	return lnZ
}

// probitLik is the multinomial probit (P1) with one precision per
// function shared by the classes (P2): one Q(W) block of K outputs with
// unit curvature (P3), whose targets are the means ỹ of Q(Y) at ψ (P5).
type probitLik struct {
	p *mcProblem
	// Q(Y) at the means ψ: ⟨y⟩ = ytil and ln Zₙ = lnZ (P4)–(P5).
	ytil *mat.Dense
	lnZ  []float64
}

func (l *probitLik) outputs() int { return l.p.k }

func (l *probitLik) uniform() (float64, bool) { return 1, true }

func (l *probitLik) curvature(int) []float64 {
	n, _ := l.p.phi.Dims()
	return vec.Constant(n, 1) // (P3)
}

func (l *probitLik) targets(int) *mat.Dense { return l.ytil }

// excluded returns the terms of the functions outside the shared active
// set (P13), each bound.ExcludedTerm for K outputs with shared α:
// −ã ln(ã/α) − bα − (K/2)ln(α + s) + a ln b − ln Γ(a) + ln Γ(ã) + ã, α the
// maximiser of ã ln α − bα − (K/2)ln(α + s), s = φₘᵀφₘ.
func (l *probitLik) excluded(k int) float64 {
	// Each term computed once per problem: dₘ = φₘᵀφₘ is fixed.
	return excludedSum(l.p.uniformExcluded(1).term, l.p.cls[k].act)
}

// ProbitExcluded is bound.ExcludedTerm for k outputs sharing α (P13).
func ProbitExcluded(pr bound.Prior, k int, s float64) float64 {
	kk := float64(k)
	at := pr.A + kk/2
	a := bound.AlphaRoot(pr.A/kk, pr.B/kk, s, 0)
	lgA, _ := math.Lgamma(pr.A)
	lgAt, _ := math.Lgamma(at)
	return -at*math.Log(at/a) - pr.B*a - kk/2*math.Log(a+s) + pr.A*math.Log(pr.B) - lgA + lgAt + at
}

// means is (P8): the means' joint Newton steps with the design Φ_act and
// precisions ⟨α⟩, Q(Y) left at its optimum (P5).
func (l *probitLik) means(rounds int) float64 {
	c := l.p.cls[0]
	mu := c.mean()
	dpsi := l.newtonMeans(subset.Cols(l.p.phi, c.act), c.alpha, mu, rounds)
	c.fixed = mu
	return dpsi
}

// hold returns the probit problem's Q held fixed: one shared active set
// and Σ, one column of the means per class.
func (l *probitLik) hold() *Held {
	p := l.p
	h := &Held{Y: p.y, Probit: true, C: 1, Psi: mat.DenseCopyOf(p.psi), Ytil: mat.DenseCopyOf(l.ytil), LnZ: append([]float64(nil), l.lnZ...)}
	c := p.cls[0]
	mu := c.mean()
	act, sig, alpha := append([]int(nil), c.act...), mat.DenseCopyOf(c.sig), append([]float64(nil), c.alpha...)
	for k := range p.k {
		h.Classes = append(h.Classes, HeldClass{Act: act, Mu: mat.Col(nil, k, mu), Sig: sig, LogDet: c.logDet, Alpha: alpha})
	}
	return h
}

// setY computes ỹ and ln Zₙ of Q(Y) (P4)–(P5) at the means ψ.
func (l *probitLik) setY() {
	p := l.p
	n, _ := p.phi.Dims()
	if l.ytil == nil {
		l.ytil = mat.NewDense(n, p.k, nil)
		l.lnZ = make([]float64, n)
	}
	d, e := make([]float64, p.k-1), make([]float64, p.k-1)
	for i := range n {
		l.lnZ[i] = probitRow(l.ytil.RawRowView(i), p.psi.RawRowView(i), p.y[i], d, e, nil, nil)
	}
}

// terms returns the likelihood terms of L (P6) for the means ȳ and
// variances v of Q(W):
//
//	Σₙ{ln Zₙ + ½‖ỹₙ − ψₙ‖² − ½‖ỹₙ − ȳₙ‖² − ½Σₖ vₙₖ}.
func (pl *probitLik) terms(ybar, v *mat.Dense) float64 {
	p := pl.p
	n, _ := ybar.Dims()
	var l float64
	for i := range n {
		yt, ps, yb := pl.ytil.RawRowView(i), p.psi.RawRowView(i), ybar.RawRowView(i)
		var a, b float64
		for k, y := range yt {
			a += (y - ps[k]) * (y - ps[k])
			b += (y - yb[k]) * (y - yb[k])
		}
		l += pl.lnZ[i] + 0.5*a - 0.5*b // (P6)
	}
	return l - 0.5*mat.Sum(v) // (P6), the covariance part
}

// ProbitProb sets dst to the predictive class probabilities of a point
// whose activations have means m and independent variances v (P9):
//
//	P(t = k) = E_u[∏_{j≠k} Φ((u√(1 + vₖ) + mₖ − mⱼ)/√(1 + vⱼ))],  u ~ N(0, 1),
//
// normalised to sum to one (they do up to the quadrature's error); v = 0
// gives the plug-in probabilities. d and a are scratch of length K − 1.
func ProbitProb(dst, m, v []float64, d, a []float64) {
	hi := math.Inf(-1)
	for k := range m {
		sk := math.Sqrt(1 + v[k])
		l := 0
		for j := range m {
			if j != k {
				sj := math.Sqrt(1 + v[j])
				d[l], a[l] = (m[k]-m[j])/sj, sk/sj
				l++
			}
		}
		dst[k] = probitIntegral(d, a, nil) // (P9)
		hi = math.Max(hi, dst[k])
	}
	var s float64
	for k := range dst {
		dst[k] = math.Exp(dst[k] - hi)
		s += dst[k]
	}
	for k := range dst {
		dst[k] /= s
	}
}

// probitPass computes, at the means ybar, ln Zₙ, ỹ and the negative
// Hessians I − Cov_Q(yₙ) (rows of h, K × K each) of every row (P5), (P7),
// and returns Σₙ ln Zₙ.
func (l *probitLik) probitPass(ybar, ytil, h *mat.Dense, lnZ []float64) float64 {
	p := l.p
	n, _ := ybar.Dims()
	var s float64
	for i := range n {
		lnZ[i] = probitRowCov(ytil.RawRowView(i), ybar.RawRowView(i), p.y[i], h.RawRowView(i))
		s += lnZ[i]
	}
	return s
}

// newtonMeans maximises L over the means of Q(W) and Q(Y) jointly,
// with Σ fixed (P8): with Q(Y) at its optimum (P5) for the means, L is,
// up to terms of Σ and α,
//
//	F(μ) = Σₙ ln Zₙ(ȳₙ) − ½ Σₖ μₖᵀdiag⟨α⟩μₖ,
//
// concave in μ (Zₙ is the probability of a convex cone under N(ȳₙ, I)),
// with gradient Φᵀ(ỹₖ − ȳₖ) − diag⟨α⟩μₖ and Hessian blocks
// −Φᵀdiag(δₖₗ − Cov_Q(yₙₖ, yₙₗ))Φ − δₖₗdiag⟨α⟩ (P7). Alternating (P5) and
// (P3) is an EM iteration with the curvature of the unit noise, which
// crawls where the classes are well separated (Var yₙₖ ≈ 1, thousands of
// iterations on iris); here all the means take a joint Newton step
// (MK unknowns), kept only if it raises F (halved otherwise). ln Zₙ is
// flat in the direction that moves every class alike, so the joint
// Hessian is needed: one class's block alone crawls along it. It leaves
// Q(Y) at its optimum for the final means, mu (M × K, the design phiA's
// coefficients, updated in place), and returns the largest relative
// change of ψ.
func (l *probitLik) newtonMeans(phiA *mat.Dense, alpha []float64, mu *mat.Dense, rounds int) float64 {
	p := l.p
	n, m := phiA.Dims()
	k := p.k
	ybar := mat.NewDense(n, k, nil)
	dense.Mul(ybar, phiA, mu)
	prior := func(w *mat.Dense) float64 {
		var s float64
		for i, al := range alpha {
			for _, v := range w.RawRowView(i) {
				s -= 0.5 * al * v * v
			}
		}
		return s
	}
	ytil, h, lnZ := mat.NewDense(n, k, nil), mat.NewDense(n, k*k, nil), make([]float64, n)
	f0 := l.probitPass(ybar, ytil, h, lnZ) + prior(mu)
	tYtil, tH, tLnZ := mat.NewDense(n, k, nil), mat.NewDense(n, k*k, nil), make([]float64, n)
	tYbar := mat.NewDense(n, k, nil)
	trial := mat.NewDense(m, k, nil)
	r := mat.NewDense(n, k, nil)
	grad := mat.NewDense(m, k, nil)
	wphi := mat.NewDense(n, m, nil)
	joint := m*k <= probitJointMax && !l.p.set.ProbitBlockStep
	var hess *mat.SymDense
	if joint {
		hess = mat.NewSymDense(m*k, nil)
	}
	for range rounds {
		r.Sub(ytil, ybar)
		dense.Mul(grad, phiA.T(), r)
		for i, al := range alpha {
			g := grad.RawRowView(i)
			for c := range k {
				g[c] -= al * mu.At(i, c)
			}
		}
		g := make([]float64, m*k)
		for c := range k {
			for q := range m {
				g[c*m+q] = grad.At(q, c)
			}
		}
		var step []float64
		if joint {
			step = l.jointStep(phiA, alpha, h, wphi, hess, g)
		} else {
			step = l.blockStep(phiA, alpha, h, wphi, g)
		}
		if step == nil {
			break
		}
		if vec.Dot(g, step) <= 1e-12*math.Max(1, math.Abs(f0)) {
			break
		}
		accepted := false
		for t := 1.0; t > 1e-6; t /= 2 {
			for c := range k {
				for q := range m {
					trial.Set(q, c, mu.At(q, c)+t*step[c*m+q])
				}
			}
			dense.Mul(tYbar, phiA, trial)
			f := l.probitPass(tYbar, tYtil, tH, tLnZ) + prior(trial)
			if f > f0 {
				f0 = f
				mu.Copy(trial)
				ybar, tYbar = tYbar, ybar
				ytil, tYtil = tYtil, ytil
				h, tH = tH, h
				lnZ, tLnZ = tLnZ, lnZ
				accepted = true
				break
			}
		}
		if !accepted {
			break
		}
	}
	dpsi := psiChange(p.psi, ybar)
	p.psi, l.ytil, l.lnZ = ybar, ytil, lnZ // (P5) at the final means
	return dpsi
}

// probitJointMax is the largest number of means MK for which (P8) takes
// the joint Newton step (an MK × MK system); above it (the paper's
// schedule on large problems starts with every function in every class)
// each class takes a step with its own block of the Hessian, still kept
// only if it raises F, which converges more slowly along the direction
// that shifts every class alike.
const probitJointMax = 2000

// jointStep returns the Newton step of (P8) for the gradient g
// (class-major), with the Hessian blocks Φᵀdiag(δₖₗ − Cov_Q(yₙₖ, yₙₗ))Φ +
// δₖₗdiag⟨α⟩ of the rows of h (I − Cov_Q(yₙ), K × K), or nil if it is not
// positive definite. wphi is N × M scratch and hess MK × MK.
func (l *probitLik) jointStep(phiA *mat.Dense, alpha []float64, h, wphi *mat.Dense, hess *mat.SymDense, g []float64) []float64 {
	_, m := phiA.Dims()
	k := l.p.k
	var blk mat.Dense
	for a := range k {
		for b := a; b < k; b++ {
			weightedCross(&blk, phiA, h, a*k+b, wphi)
			for q := range m {
				for t := range m {
					if a < b || q <= t {
						hess.SetSym(a*m+q, b*m+t, blk.At(q, t))
					}
				}
			}
		}
		for q, al := range alpha {
			hess.SetSym(a*m+q, a*m+q, hess.At(a*m+q, a*m+q)+al)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(hess) {
		return nil
	}
	var st mat.VecDense
	if err := chol.SolveVecTo(&st, mat.NewVecDense(m*k, g)); err != nil {
		return nil
	}
	return st.RawVector().Data
}

// weightedCross sets dst = Φ_Aᵀ diag(h[:, col]) Φ_A, one block of the
// Hessian of (P8); wphi is N × M scratch.
func weightedCross(dst, phiA, h *mat.Dense, col int, wphi *mat.Dense) {
	n, _ := phiA.Dims()
	for i := range n {
		w := h.At(i, col)
		src, out := phiA.RawRowView(i), wphi.RawRowView(i)
		for q, v := range src {
			out[q] = w * v
		}
	}
	dense.Mul(dst, phiA.T(), wphi)
}

// blockStep returns the Newton step of (P8) with each class's diagonal
// block of the Hessian, Φᵀdiag(1 − Var yₙₖ)Φ + diag⟨α⟩, for the gradient
// g (class-major), or nil if a block is not positive definite. wphi is
// N × M scratch.
func (l *probitLik) blockStep(phiA *mat.Dense, alpha []float64, h, wphi *mat.Dense, g []float64) []float64 {
	_, m := phiA.Dims()
	k := l.p.k
	step := make([]float64, m*k)
	var blk mat.Dense
	for c := range k {
		weightedCross(&blk, phiA, h, c*k+c, wphi)
		hess := mat.NewSymDense(m, nil)
		for q := range m {
			for t := q; t < m; t++ {
				hess.SetSym(q, t, blk.At(q, t))
			}
			hess.SetSym(q, q, hess.At(q, q)+alpha[q])
		}
		var chol mat.Cholesky
		if !chol.Factorize(hess) {
			return nil
		}
		var st mat.VecDense
		if err := chol.SolveVecTo(&st, mat.NewVecDense(m, g[c*m:(c+1)*m])); err != nil {
			return nil
		}
		copy(step[c*m:], st.RawVector().Data)
	}
	return step
}
