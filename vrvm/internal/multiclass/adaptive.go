package multiclass

import (
	"math"
	"slices"
	"sort"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// The softmax model under the adaptive-curvature quadratic bound of
// Jebara & Choromanska (2012) (docs/design.md, "Multi-class classification",
// (M19)–(M22)): like Böhning's (M3) it is quadratic in the activations
// and tight at the expansion point ψₙ, so every factor keeps its closed
// form and the means keep their optimum (M18), but its curvature Aₙ
// depends on ψₙ and is small where the softmax is confident.

// jcLik is the softmax (M1) under the adaptive bound (M19): the
// curvatures Aₙ at ψ (N × K × K), Bₙ = Aₙ,ₖₖ of class k (M22), and ψ by
// (M21).
type jcLik struct {
	p    *mcProblem
	curv []float64
	// curvVer counts the changes of curv; exK caches, per class, dₘ and
	// bound.ExcludedTerm(dₘ) of every function at version exVer[k].
	curvVer int
	exK     [][2][]float64
	exVer   []int
}

func (l *jcLik) outputs() int { return 1 }

func (l *jcLik) uniform() (float64, bool) { return 0, false }

func (l *jcLik) hold() *Held {
	return l.p.held(0.5*(1-1/float64(l.p.k)), append([]float64(nil), l.curv...))
}

// JCCurvature sets a (K × K, row-major) to the curvature of the bound
// (M19) on lse expanded at psi, and returns ln Σₖ exp(ψₖ): with the
// classes taken in the order of decreasing ψₖ (ties by index; the reverse
// order if asc), z ← 0⁺,
// m ← 0, A ← 0, then for each class j
//
//	ρ = ln(e^{ψⱼ}/z),  l = eⱼ − m,  A ← A + 2λ(ρ) llᵀ,  m ← m + e^{ψⱼ}/(z + e^{ψⱼ}) l,  z ← z + e^{ψⱼ}
//
// with 2λ(ρ) = tanh(ρ/2)/(2ρ) (the first class, ρ = +∞, adds nothing);
// m ends as softmax(ψ) and z as Σₖ e^{ψₖ}. order is scratch of length K.
func JCCurvature(a []float64, order []int, psi []float64, asc bool) float64 {
	k := len(psi)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(i, j int) bool { return psi[order[i]] > psi[order[j]] })
	if asc {
		slices.Reverse(order)
	}
	clear(a)
	hi := psi[order[0]]
	m := make([]float64, k)
	l := make([]float64, k)
	var z float64
	for n, j := range order {
		e := math.Exp(psi[j] - hi) // the bound is invariant to a common shift of ψ
		for q := range l {
			l[q] = -m[q]
		}
		l[j]++
		if n > 0 {
			c := 2 * likelihood.Lambda(math.Log(e/z)) // (M19)
			for r, lr := range l {
				if lr == 0 {
					continue
				}
				row := a[r*k : (r+1)*k]
				for q, lq := range l {
					row[q] += c * lr * lq
				}
			}
		}
		f := e / (z + e)
		for q, lq := range l {
			m[q] += f * lq
		}
		z += e
	}
	return hi + math.Log(z)
}

// JCRow returns (M20) for one row: the bound (M19) at the mean
// activations y less ½Σₖ Aₖₖvₖ for the activations' variances v (nil for
// none), for the label t and the order asc of JCCurvature; it sets a to
// A(ψ) and g to softmax(ψ), with order scratch of length K.
func JCRow(a []float64, order []int, g, y, psi []float64, t int, v []float64, asc bool) float64 {
	JCCurvature(a, order, psi, asc)
	return AdaptiveRow(a, g, y, psi, t, v)
}

// setCurv sets the curvatures Aₙ (M19) of every row at the current ψ.
func (l *jcLik) setCurv() {
	p := l.p
	n, _ := p.psi.Dims()
	kk := p.k
	if l.curv == nil {
		l.curv = make([]float64, n*kk*kk)
	}
	order := make([]int, kk)
	for i := range n {
		JCCurvature(l.curv[i*kk*kk:(i+1)*kk*kk], order, p.psi.RawRowView(i), false)
	}
	l.curvVer++
}

// curvRow returns Aₙ of row i (K × K, row-major).
func (l *jcLik) curvRow(i int) []float64 {
	kk := l.p.k
	return l.curv[i*kk*kk : (i+1)*kk*kk]
}

// terms returns Σₙ (M20) at the means ybar and variances v, with
// the current ψ and Aₙ.
func (l *jcLik) terms(ybar, v *mat.Dense) float64 {
	p := l.p
	return rowSum(ybar, p.k, func(i int, g []float64) float64 {
		return AdaptiveRow(l.curvRow(i), g, ybar.RawRowView(i), p.psi.RawRowView(i), p.y[i], v.RawRowView(i)) // (M20)
	})
}

// AdaptiveRow is (M20) for one row with A given: the bound (M19) at y
// less ½Σₖ Aₖₖvₖ (v nil for none); it sets g to softmax(ψ).
func AdaptiveRow(a, g, y, psi []float64, t int, v []float64) float64 {
	kk := len(psi)
	s := y[t] - SoftmaxTo(g, psi)
	for r := range kk {
		dr := y[r] - psi[r]
		s -= g[r] * dr
		row := a[r*kk : (r+1)*kk]
		var q float64
		for c, ac := range row {
			q += ac * (y[c] - psi[c])
		}
		s -= 0.5 * dr * q
		if v != nil {
			s -= 0.5 * row[r] * v[r]
		}
	}
	return s
}

// adaptivePsi sets ψₙ, row by row, to whichever of the current ψₙ and the
// new mean activations ȳₙ gives the larger (M20) at the variances v
// (M21), updating Aₙ, and returns the largest relative change of ψ.
func (l *jcLik) adaptivePsi(ybar, v *mat.Dense) float64 {
	p := l.p
	n, _ := ybar.Dims()
	kk := p.k
	a := make([]float64, kk*kk)
	order := make([]int, kk)
	g := make([]float64, kk)
	old := mat.DenseCopyOf(p.psi)
	changed := false
	defer func() {
		if changed {
			l.curvVer++
		}
	}()
	for i := range n {
		yr, vr := ybar.RawRowView(i), v.RawRowView(i)
		cur := AdaptiveRow(l.curvRow(i), g, yr, p.psi.RawRowView(i), p.y[i], vr)
		for _, asc := range []bool{false, true} {
			if v := JCRow(a, order, g, yr, yr, p.y[i], vr, asc); v > cur { // (M21)
				p.psi.SetRow(i, yr)
				copy(l.curvRow(i), a)
				cur = v
				changed = true
			}
		}
	}
	return psiChange(old, p.psi)
}

// curvature returns class k's curvatures Bₙ = Aₙ,ₖₖ.
func (l *jcLik) curvature(k int) []float64 {
	p := l.p
	n, _ := p.phi.Dims()
	bw := make([]float64, n)
	for i := range n {
		bw[i] = l.curvRow(i)[k*p.k+k]
	}
	return bw
}

// excluded returns (M15) of class k for the bound (M19): the sum
// of bound.ExcludedTerm(dₘ) over the functions outside its active set, with
// dₘ = φₘᵀBₖφₘ, Bₖ = diag(Aₙ,ₖₖ); the terms are cached until the
// curvatures change.
func (l *jcLik) excluded(k int) float64 {
	p := l.p
	if l.exVer == nil {
		l.exK, l.exVer = make([][2][]float64, p.k), make([]int, p.k)
		for j := range l.exVer {
			l.exVer[j] = -1
		}
	}
	if l.exVer[k] != l.curvVer {
		_, np := p.phi.Dims()
		d, term := make([]float64, np), make([]float64, np)
		vec.MulTVec(d, p.square(), l.curvature(k))
		e := bound.NewExcludedTerms(p.prior)
		for m, v := range d {
			term[m] = e.Term(math.Max(v, 0))
		}
		l.exK[k], l.exVer[k] = [2][]float64{d, term}, l.curvVer
	}
	return excludedSum(l.exK[k][1], p.cls[k].act)
}

// targets returns class k's targets for the bound (M19) (M22)
//
//	zₙ = tₙₖ − gₖ(ψₙ) + Aₙ,ₖₖψₙₖ − Σ_{j≠k} Aₙ,ₖⱼ(ȳₙⱼ − ψₙⱼ),
//
// with ȳ·ⱼ the current means of the other classes (ψ for a class not yet
// set up).
func (l *jcLik) targets(k int) *mat.Dense {
	p := l.p
	n, _ := p.phi.Dims()
	kk := p.k
	z := make([]float64, n)
	diff := mat.NewDense(n, kk, nil) // ȳ − ψ of the other classes
	col := make([]float64, n)
	for j, c := range p.cls {
		if j == k || c == nil || c.sig == nil {
			continue
		}
		clear(col)
		if len(c.act) > 0 {
			mu := c.vec()
			for i := range n {
				row := p.phi.RawRowView(i)
				var s float64
				for q, a := range c.act {
					s += row[a] * mu[q]
				}
				col[i] = s
			}
		}
		for i := range n {
			diff.Set(i, j, col[i]-p.psi.At(i, j))
		}
	}
	g := make([]float64, kk)
	for i := range n {
		a := l.curvRow(i)[k*kk : (k+1)*kk]
		SoftmaxTo(g, p.psi.RawRowView(i))
		s := a[k]*p.psi.At(i, k) - g[k] // (M22)
		for j, d := range diff.RawRowView(i) {
			if j != k {
				s -= a[j] * d
			}
		}
		if p.y[i] == k {
			s++
		}
		z[i] = s
	}
	return mat.NewDense(n, 1, z)
}

// means sets the means and ψ for the bound (M19): the means at the
// optimum (M18) are kept with ψ by (M21) if the bound rises above its
// value before the step; else the means stay and ψ moves by (M21) at
// their activations, if that raises the bound (ψ also sets the excluded
// functions' curvatures (M15)). It returns the largest relative change of
// ψ.
func (l *jcLik) means(rounds int) float64 {
	p := l.p
	before := p.bound()
	mus, ybar, _ := p.softmaxMeans(rounds)
	oldPsi := mat.DenseCopyOf(p.psi)
	oldCurv := append([]float64(nil), l.curv...)
	oldMu := make([]*mat.Dense, len(p.cls))
	for j, c := range p.cls {
		oldMu[j] = c.fixed
		c.setVec(mus[j])
	}
	_, v, _ := p.moments()
	if dpsi := l.adaptivePsi(ybar, v); p.bound() >= before {
		return dpsi
	}
	restore := func() {
		p.psi.Copy(oldPsi)
		copy(l.curv, oldCurv)
		l.curvVer++
	}
	restore()
	for j, c := range p.cls {
		c.fixed = oldMu[j]
	}
	yb, v, _ := p.moments()
	if dpsi := l.adaptivePsi(yb, v); p.bound() >= before {
		return dpsi
	}
	restore()
	return 0
}
