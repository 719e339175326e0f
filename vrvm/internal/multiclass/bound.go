package multiclass

import (
	"math"
	"slices"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The multi-class model's likelihood bound and lower bound, (M1)–(M15) of
// docs/design.md ("Multi-class classification"): the softmax likelihood (M1)
// under Böhning's bound (M3), or the adaptive bound (M19)
// (adaptive.go), one precision αₘₖ per weight.

// mcLikelihood is the likelihood side of the multi-class solver
// (mcProblem.solve): what the solver needs of Böhning's bound
// (bohningLik), the adaptive bound (jcLik) or the probit (probitLik),
// each holding its own variational parameters.
type mcLikelihood interface {
	// outputs returns the number of classes per Q(W) block, which share
	// its precisions and Σ: 1 (one α per weight (M2)) or K (P2).
	outputs() int
	// curvature returns the curvatures Bₙ of block k's activations,
	// the weights of its Q(W) (M4), (M22), (P3).
	curvature(k int) []float64
	// targets returns block k's targets z (N × q), given the other
	// blocks' current means (M5), (M22), (P3).
	targets(k int) *mat.Dense
	// terms returns the likelihood's terms of L at the activations'
	// means ybar and variances v (N × K): (M9), (M20), (P6).
	terms(ybar, v *mat.Dense) float64
	// excluded returns the terms of L of the functions outside block k's
	// active set, each at its optimum (M15), (P13).
	excluded(k int) float64
	// means maximises L over the means of Q(W) and the variational
	// parameters, with the Σ fixed, in at most rounds Newton rounds
	// ((M18) with (M8) or (M21), (P8) with (P5)); it sets the blocks'
	// fixed means and returns the largest relative change of ψ.
	means(rounds int) float64
	// hold returns the fitted Q held fixed for kernel learning (K9).
	hold() *Held
	// uniform returns the curvature b and true if every row and block
	// has the same constant curvature b (Böhning's c₀ (M4), the probit's
	// 1 (P3)), else false.
	uniform() (float64, bool)
}

// newMCLikelihood returns the likelihood lik of problem p with its
// variational parameters at ψ = 0.
func newMCLikelihood(lik Likelihood, p *mcProblem) mcLikelihood {
	switch lik {
	case Probit:
		l := &probitLik{p: p}
		l.setY() // Q(Y) at ψ = 0
		return l
	case Adaptive:
		l := &jcLik{p: p}
		l.setCurv() // (M19) at ψ = 0
		return l
	}
	return newBohningLik(p)
}

// bohningLik is the softmax (M1) under Böhning's bound (M3): the
// constant curvature c₀ = ½(1 − 1/K) of each class (M4) and ψ = ȳ (M8).
type bohningLik struct {
	p  *mcProblem
	c0 float64
	// g caches softmax(ψₙ) of every row (N × K) until ψ moves (means);
	// nil when not computed.
	g *mat.Dense
	// acts caches each class's activations Φ_act μ with the active set
	// and means they were computed for.
	acts []mcActivation
}

// mcActivation is a class's activations y = Φ_act μ at active set act
// and means mu.
type mcActivation struct {
	act   []int
	mu, y []float64
}

// activationOf returns the activations Φ_act μ of block j with its
// current means, recomputed only if its active set or means changed
// since the last call.
func (l *bohningLik) activationOf(j int) []float64 {
	p := l.p
	if l.acts == nil {
		l.acts = make([]mcActivation, len(p.cls))
	}
	c, e := p.cls[j], &l.acts[j]
	mu := c.vec()
	if e.y != nil && slices.Equal(e.act, c.act) && slices.Equal(e.mu, mu) {
		return e.y
	}
	if e.y == nil {
		n, _ := p.phi.Dims()
		e.y = make([]float64, n)
	}
	e.act, e.mu = append(e.act[:0], c.act...), mu
	p.activation(e.y, c.act, mu)
	return e.y
}

func newBohningLik(p *mcProblem) *bohningLik {
	return &bohningLik{p: p, c0: 0.5 * (1 - 1/float64(p.k))}
}

func (l *bohningLik) outputs() int { return 1 }

func (l *bohningLik) uniform() (float64, bool) { return l.c0, true }

func (l *bohningLik) curvature(int) []float64 {
	n, _ := l.p.phi.Dims()
	return vec.Constant(n, l.c0)
}

// softmaxPsi returns softmax(ψₙ) of every row (N × K), cached until ψ
// moves.
func (l *bohningLik) softmaxPsi() *mat.Dense {
	if l.g == nil {
		n, k := l.p.psi.Dims()
		l.g = mat.NewDense(n, k, nil)
		for i := range n {
			SoftmaxTo(l.g.RawRowView(i), l.p.psi.RawRowView(i))
		}
	}
	return l.g
}

// activation sets dst (N) to the activations Φ_act μ of the active
// functions act with means mu, from the rows of Φᵀ.
func (p *mcProblem) activation(dst []float64, act []int, mu []float64) {
	clear(dst)
	for i, a := range act {
		floats.AddScaled(dst, mu[i], p.tphi.RawRowView(a))
	}
}

// targets returns class k's targets (M5): zₙ = tₙₖ − gₖ(ψₙ) + c₀ψₙₖ +
// (1/2K) Σ_{j≠k}(ȳₙⱼ − ψₙⱼ), with ȳ·ⱼ the current means of the other
// classes (ψ for a class not yet set up).
func (l *bohningLik) targets(k int) *mat.Dense {
	p := l.p
	n, _ := p.phi.Dims()
	z := make([]float64, n)
	cross := make([]float64, n)
	kk := float64(p.k)
	for j, c := range p.cls {
		if j == k || c == nil || c.sig == nil || len(c.act) == 0 {
			if j != k && c != nil && c.sig != nil {
				for i := range n {
					cross[i] -= p.psi.At(i, j) / (2 * kk)
				}
			}
			continue
		}
		col := l.activationOf(j)
		for i := range n {
			cross[i] += (col[i] - p.psi.At(i, j)) / (2 * kk)
		}
	}
	g := l.softmaxPsi()
	for i := range n {
		z[i] = l.c0*p.psi.At(i, k) - g.At(i, k) + cross[i]
		if p.y[i] == k {
			z[i]++
		}
	}
	return mat.NewDense(n, 1, z)
}

// terms returns (M9): (M3) at each row, less ½c₀ Σₙₖ vₙₖ (½tr(A Cov yₙ)
// with independent classes).
func (l *bohningLik) terms(ybar, v *mat.Dense) float64 {
	p := l.p
	s := rowSum(ybar, p.k, func(i int, g []float64) float64 {
		return Bohning(g, ybar.RawRowView(i), p.psi.RawRowView(i), p.y[i]) // (M9), (M3) at each row
	})
	return s - 0.5*l.c0*mat.Sum(v) // (M9), the covariance part
}

// rowSum returns Σₙ f(n, g) over the rows n of ybar, in order, with g a
// scratch of k values that f may overwrite: the likelihood terms of a
// multi-class bound, row by row.
func rowSum(ybar *mat.Dense, k int, f func(n int, g []float64) float64) float64 {
	rows, _ := ybar.Dims()
	g := make([]float64, k)
	var s float64
	for n := range rows {
		s += f(n, g)
	}
	return s
}

// excluded returns (M15) with s = c₀φₘᵀφₘ (the block's dₘ).
func (l *bohningLik) excluded(k int) float64 {
	// (M15), each term computed once per problem: dₘ = c₀φₘᵀφₘ is fixed.
	return excludedSum(l.p.uniformExcluded(l.c0).term, l.p.cls[k].act)
}

// means sets the means and ψ = ȳ at their joint optimum (M18), (M8).
func (l *bohningLik) means(rounds int) float64 {
	p := l.p
	mus, ybar, prob := p.softmaxMeans(rounds)
	dpsi := psiChange(p.psi, ybar)
	p.psi = ybar // (M8)
	l.g = prob   // softmax(ψₙ) if known, else computed when needed
	for j, c := range p.cls {
		c.setVec(mus[j])
	}
	return dpsi
}

func (l *bohningLik) hold() *Held { return l.p.held(l.c0, nil) }

// moments returns the mean activations ȳ (N × K) and the variances
// vₙₖ = φₙᵀΣₖφₙ of the active weights, with each block's means (M × q),
// from the active rows of Φᵀ: with A = Φ_actᵀ (M × N), ȳ = Aᵀμ and
// vₙ = Σᵢ Aᵢₙ(ΣA)ᵢₙ.
func (p *mcProblem) moments() (ybar, v *mat.Dense, mus []*mat.Dense) {
	n, _ := p.phi.Dims()
	ybar, v = mat.NewDense(n, p.k, nil), mat.NewDense(n, p.k, nil)
	mus = make([]*mat.Dense, len(p.cls))
	yb, vi := make([]float64, n), make([]float64, n)
	var w mat.Dense
	var ybq mat.Dense
	k := 0
	for b, c := range p.cls {
		mu := c.mean()
		mus[b] = mu
		m := len(c.act)
		if m == 0 {
			k += c.q
			continue
		}
		a := subset.Rows(p.tphi, c.act)
		w.Reset()
		w.Mul(c.sig, a)
		clear(vi)
		for i := range m {
			ar, wr := a.RawRowView(i), w.RawRowView(i)
			for j, x := range ar {
				vi[j] += x * wr[j]
			}
		}
		if c.q == 1 {
			vec.MulTVec(yb, a, mu.RawMatrix().Data[:m])
		} else {
			ybq.Reset()
			dense.Mul(&ybq, a.T(), mu)
		}
		for i := range n {
			vv := math.Max(0, vi[i])
			for o := range c.q {
				if c.q == 1 {
					ybar.Set(i, k, yb[i])
				} else {
					ybar.Set(i, k+o, ybq.At(i, o))
				}
				v.Set(i, k+o, vv)
			}
		}
		k += c.q
	}
	return ybar, v, mus
}

// bound returns L: the likelihood's terms (M9), (M20), (P6) with each
// block's Q(W) independent, plus the weight terms of each block,
// (M10)–(M13) or (P11), and the excluded functions' terms (M15), (P13).
func (p *mcProblem) bound() float64 {
	ybar, v, mus := p.moments()
	l := p.lik.terms(ybar, v)
	for k, c := range p.cls {
		l = p.weightBound(l, c, mus[k])
		l += p.lik.excluded(k)
	}
	return l
}

// weightBound returns l plus the weight terms of block c with means mu:
// ⟨ln p(W|α)⟩ + ⟨ln p(α)⟩ + H[Q(W)] + H[Q_α], (M10)–(M13) for one
// output, (P11) for q outputs sharing ⟨αₘ⟩ and Σ.
func (p *mcProblem) weightBound(l float64, c *mcBlock, mu *mat.Dense) float64 {
	at := p.aTil(c.q)
	m := len(c.act)
	if c.q == 1 {
		bt, w2 := make([]float64, m), make([]float64, m)
		for i, a := range c.alpha {
			bt[i] = at / a
			w2[i] = mu.At(i, 0)*mu.At(i, 0) + c.sig.At(i, i)
		}
		lnPw, lnPa, hw, ha := bound.WeightTerms(p.prior, at, bt, w2, c.logDet) // (M10)–(M13)
		return l + lnPw + lnPa + hw + ha
	}
	kk := float64(c.q)
	psi := mathext.Digamma(at)
	lgA, _ := math.Lgamma(p.prior.A)
	lgAt, _ := math.Lgamma(at)
	lnB := math.Log(p.prior.B)
	for i, a := range c.alpha {
		bt := at / a
		lnA := psi - math.Log(bt)
		var w2 float64
		for _, v := range mu.RawRowView(i) {
			w2 += v*v + c.sig.At(i, i)
		}
		l += -kk/2*likelihood.Ln2Pi + kk/2*lnA - 0.5*a*w2          // (P11) ⟨ln p(wₘ|αₘ)⟩
		l += p.prior.A*lnB - lgA + (p.prior.A-1)*lnA - p.prior.B*a // ⟨ln p(αₘ)⟩
		l += lgAt - (at-1)*psi - math.Log(bt) + at                 // H[Q(αₘ)]
	}
	return l + kk*(float64(m)/2*(1+likelihood.Ln2Pi)+c.logDet/2) // H[Q(W)]
}
