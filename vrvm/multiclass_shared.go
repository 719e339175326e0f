package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The multinomial probit with one precision αₘ per function, shared by
// the K classes (doc.go, "Multi-class probit", (P2), (P3), (P11)–(P13)): Q(αₘ) =
// Γ(a + K/2, b̃ₘ), and every class has the same Q(W) covariance
// Σ = (ΦᵀΦ + diag⟨α⟩)⁻¹ (P3), so the model is one regression with K
// target columns ỹ₁ … ỹ_K and one set of relevance vectors.

// spProblem is one fit of the shared-α probit.
type spProblem struct {
	phi, phi2 *mat.Dense
	y         []int
	k         int
	set       settings
	prior     Prior
	at        float64   // ã = a + K/2 (P11)
	dAll      []float64 // φₘᵀφₘ
	// Q(Y): means ψ (N × K), ⟨y⟩ and ln Zₙ (P4)–(P5), as in mcProblem.
	mc *mcProblem
	// Q(W), Q_α: the active functions, ⟨α⟩, Σ and the statistics of the
	// candidates (as mcClass, with Q R × K): Sₘ and Qₘₖ of (P12).
	act    []int
	alpha  []float64
	sig    *mat.Dense
	logDet float64
	rows   []int
	at2    []int
	c, e   *mat.Dense
	ss     []float64
	qq     *mat.Dense // R × K
	h      *mat.Dense // P × K: Φᵀỹ
	fixed  *mat.Dense // M × K means set by the Newton step, or nil
	del    map[int]int
	thr    float64
	hook   func(step string, bound func() float64)
}

// newSPProblem sets up a fit with Q(Y) at ψ = 0.
func newSPProblem(phi *mat.Dense, y []int, k int, s settings) *spProblem {
	mc := newMCProblem(phi, y, k, s, true)
	return &spProblem{phi: phi, phi2: mc.phi2, y: y, k: k, set: s, prior: s.prior, at: s.prior.A + 0.5*float64(k),
		dAll: mc.dAll, mc: mc, del: map[int]int{}}
}

// kPrior is the prior whose one-output (S1) is 1/K of the K-output one:
// f_K(α) = ã ln α − bα − (K/2)ln(α + s) + ½Σₖqₖ²/(α + s) = K f(α; a/K, b/K,
// s, Σₖqₖ²/K) (P12).
func (p *spProblem) kPrior() (a, b float64) {
	kk := float64(p.k)
	return p.prior.A / kk, p.prior.B / kk
}

// fresh recomputes Σ and the statistics from the active set and ⟨α⟩:
// the update of Q(W) (P3) for the current Q(Y).
func (p *spProblem) fresh(iter int, all bool) error {
	_, np := p.phi.Dims()
	m := len(p.act)
	phiA := selectCols(p.phi, p.act)
	p.at2 = make([]int, np)
	for j := range p.at2 {
		p.at2[j] = -1
	}
	if all {
		p.rows = seq(np)
		p.c = mat.NewDense(np, m, nil)
		p.c.Mul(p.phi.T(), phiA)
	} else {
		p.rows = append([]int(nil), p.act...)
		p.c = mat.NewDense(m, m, nil)
		p.c.Mul(phiA.T(), phiA)
	}
	for r, j := range p.rows {
		p.at2[j] = r
	}
	prec := mat.NewSymDense(m, nil)
	for i, a := range p.act {
		for j := i; j < m; j++ {
			prec.SetSym(i, j, p.c.At(p.at2[a], j))
		}
		prec.SetSym(i, i, prec.At(i, i)+p.alpha[i])
	}
	var q gaussQ
	if err := q.factor(prec, iter); err != nil {
		return err
	}
	p.sig = mat.DenseCopyOf(q.sigma())
	p.logDet = q.logDet
	p.h = mat.NewDense(np, p.k, nil)
	p.h.Mul(p.phi.T(), p.mc.ytil)
	p.fixed = nil
	nr := len(p.rows)
	p.e = mat.NewDense(nr, m, nil)
	if m > 0 {
		p.e.Mul(p.c, p.sig)
	}
	ha := selectRows(p.h, p.act)
	p.ss = make([]float64, nr)
	p.qq = mat.NewDense(nr, p.k, nil)
	if m > 0 {
		p.qq.Mul(p.e, ha)
	}
	for r, j := range p.rows {
		p.ss[r] = p.dAll[j] - dot(p.c.RawRowView(r), p.e.RawRowView(r))
		qr := p.qq.RawRowView(r)
		for k := range qr {
			qr[k] = p.h.At(j, k) - qr[k]
		}
	}
	return nil
}

// mean returns the M × K means ΣΦ_actᵀỹ (P3), or those of the Newton
// step.
func (p *spProblem) mean() *mat.Dense {
	if p.fixed != nil {
		return mat.DenseCopyOf(p.fixed)
	}
	mu := mat.NewDense(len(p.act), p.k, nil) // the active set is never empty
	mu.Mul(p.sig, selectRows(p.h, p.act))
	return mu
}

// stats returns s and Σₖqₖ² of (P12) for active position i, without its
// own terms.
func (p *spProblem) stats(i int) (sv, q2 float64) {
	r := p.at2[p.act[i]]
	a := p.alpha[i]
	f := a / (a - p.ss[r])
	for _, v := range p.qq.RawRowView(r) {
		q2 += f * f * v * v
	}
	return f * p.ss[r], q2
}

// rankOne applies Σ ← Σ − κσᵢσᵢᵀ to Σ, E, S and Q.
func (p *spProblem) rankOne(i int, kappa float64) {
	m := len(p.act)
	nr, _ := p.e.Dims()
	si := mat.Col(nil, i, p.sig)
	ei := mat.Col(nil, i, p.e)
	sh := make([]float64, p.k) // σᵢᵀH_act
	for r, a := range p.act {
		for k := range p.k {
			sh[k] += si[r] * p.h.At(a, k)
		}
	}
	blas64.Ger(-kappa, blas64.Vector{N: m, Inc: 1, Data: si}, blas64.Vector{N: m, Inc: 1, Data: si}, p.sig.RawMatrix())
	blas64.Ger(-kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: m, Inc: 1, Data: si}, p.e.RawMatrix())
	blas64.Ger(kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: p.k, Inc: 1, Data: sh}, p.qq.RawMatrix())
	for r, v := range ei {
		p.ss[r] += kappa * v * v
	}
}

func (p *spProblem) setAlpha(i int, a float64) {
	d := a - p.alpha[i]
	if d == 0 {
		return
	}
	sii := p.sig.At(i, i)
	p.rankOne(i, d/(1+d*sii))
	p.logDet -= math.Log1p(d * sii)
	p.alpha[i] = a
}

func (p *spProblem) remove(i int) {
	sii := p.sig.At(i, i)
	p.rankOne(i, 1/sii)
	p.logDet -= math.Log(sii)
	keep := make([]int, 0, len(p.act)-1)
	for j := range p.act {
		if j != i {
			keep = append(keep, j)
		}
	}
	p.del[p.act[i]]++
	p.sig = selectCols(selectRows(p.sig, keep), keep)
	p.e = selectCols(p.e, keep)
	p.c = selectCols(p.c, keep)
	p.act = selectInts(p.act, keep)
	p.alpha = selectVec(p.alpha, keep)
}

// add puts candidate j into the active set with ⟨α⟩ = a (every
// candidate's statistics must be held).
func (p *spProblem) add(j int, a float64) {
	_, np := p.phi.Dims()
	m := len(p.act)
	col := mat.Col(nil, j, p.phi)
	cn := make([]float64, np)
	gemvT(cn, p.phi, col) // Φᵀφⱼ
	sb := make([]float64, m)
	bj := make([]float64, m)
	for i := range m {
		sb[i] = p.e.At(j, i)
		bj[i] = p.c.At(j, i)
	}
	sigma := 1 / (a + p.ss[j])
	u := make([]float64, np)
	if m > 0 {
		blas64.Gemv(blas.NoTrans, 1, p.e.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: bj}, 0, blas64.Vector{N: np, Inc: 1, Data: u})
	}
	delta := make([]float64, np)
	for r := range np {
		delta[r] = cn[r] - u[r]
	}
	qj := append([]float64(nil), p.qq.RawRowView(j)...)
	ns := mat.NewDense(m+1, m+1, nil)
	for r := range m {
		for s := range m {
			ns.Set(r, s, p.sig.At(r, s)+sigma*sb[r]*sb[s])
		}
		ns.Set(r, m, -sigma*sb[r])
		ns.Set(m, r, -sigma*sb[r])
	}
	ns.Set(m, m, sigma)
	p.sig = ns
	p.logDet += math.Log(sigma)
	ne := mat.NewDense(np, m+1, nil)
	nc := mat.NewDense(np, m+1, nil)
	for r := range np {
		er, dst := p.e.RawRowView(r), ne.RawRowView(r)
		for s := range m {
			dst[s] = er[s] - sigma*delta[r]*sb[s]
		}
		dst[m] = sigma * delta[r]
		copy(nc.RawRowView(r), p.c.RawRowView(r))
		nc.Set(r, m, cn[r])
	}
	p.e, p.c = ne, nc
	blas64.Ger(-sigma, blas64.Vector{N: np, Inc: 1, Data: delta}, blas64.Vector{N: p.k, Inc: 1, Data: qj}, p.qq.RawMatrix())
	for r, v := range delta {
		p.ss[r] -= sigma * v * v
	}
	p.act = append(p.act, j)
	p.alpha = append(p.alpha, a)
}

// bestAddition returns the excluded function with the largest gain (P13)
// among those whose optimal ⟨α⟩ is below thr/2, with that ⟨α⟩, or −1.
func (p *spProblem) bestAddition() (int, float64) {
	in := make([]bool, len(p.dAll))
	for _, a := range p.act {
		in[a] = true
	}
	ka, kb := p.kPrior()
	kk := float64(p.k)
	best, bestA, bestGain := -1, 0.0, 0.0
	for r, j := range p.rows {
		if in[j] || p.del[j] >= mcMaxDeletions || p.ss[r] <= 0 {
			continue
		}
		var q2 float64
		for _, v := range p.qq.RawRowView(r) {
			q2 += v * v
		}
		a := alphaRoot(ka, kb, p.ss[r], q2/kk)
		if a > p.thr/2 {
			continue
		}
		d := math.Max(p.dAll[j], 0)
		a0 := alphaRoot(ka, kb, d, 0)
		gain := fval(ka, kb, a, p.ss[r], q2/kk) - fval(ka, kb, a0, d, 0) // (P13), divided by K
		if gain > bestGain {
			best, bestA, bestGain = j, a, gain
		}
	}
	return best, bestA
}

// moments returns ȳ = Φ_act μ (N × K) and the variances vₙ = φₙᵀΣφₙ,
// the same for every class, as an N × K matrix.
func (p *spProblem) moments() (ybar, v *mat.Dense, mu *mat.Dense) {
	n, _ := p.phi.Dims()
	ybar, v = mat.NewDense(n, p.k, nil), mat.NewDense(n, p.k, nil)
	mu = p.mean()
	m := len(p.act)
	if m == 0 {
		return ybar, v, mu
	}
	phiA := selectCols(p.phi, p.act)
	ybar.Mul(phiA, mu)
	var ps mat.Dense
	ps.Mul(phiA, p.sig)
	for i := range n {
		vi := math.Max(0, dot(ps.RawRowView(i), phiA.RawRowView(i)))
		for k := range p.k {
			v.Set(i, k, vi)
		}
	}
	return ybar, v, mu
}

// bound returns L: Σₙ(P6) plus the weight terms with shared α (P11) and
// the excluded functions' terms.
func (p *spProblem) bound() float64 {
	ybar, v, mu := p.moments()
	l := p.mc.probitLik(ybar, v) // (P6)
	m := len(p.act)
	kk := float64(p.k)
	psi := mathext.Digamma(p.at)
	lgA, _ := math.Lgamma(p.prior.A)
	lgAt, _ := math.Lgamma(p.at)
	lnB := math.Log(p.prior.B)
	for i, a := range p.alpha {
		bt := p.at / a
		lnA := psi - math.Log(bt)
		var w2 float64
		for k := range p.k {
			w2 += mu.At(i, k)*mu.At(i, k) + p.sig.At(i, i)
		}
		l += -kk/2*ln2Pi + kk/2*lnA - 0.5*a*w2                     // (P11) ⟨ln p(wₘ|αₘ)⟩
		l += p.prior.A*lnB - lgA + (p.prior.A-1)*lnA - p.prior.B*a // ⟨ln p(αₘ)⟩
		l += lgAt - (p.at-1)*psi - math.Log(bt) + p.at             // H[Q(αₘ)]
	}
	l += kk * (float64(m)/2*(1+ln2Pi) + p.logDet/2) // H[Q(W)]
	in := make([]bool, len(p.dAll))
	for _, a := range p.act {
		in[a] = true
	}
	for j, s := range p.dAll {
		if !in[j] {
			l += p.excludedTerm(math.Max(s, 0))
		}
	}
	return l
}

// excludedTerm is excludedTerm for K outputs with shared α (P13):
// −ã ln(ã/α) − bα − (K/2)ln(α + s) + a ln b − ln Γ(a) + ln Γ(ã) + ã, α the
// maximiser of ã ln α − bα − (K/2)ln(α + s).
func (p *spProblem) excludedTerm(s float64) float64 {
	ka, kb := p.kPrior()
	a := alphaRoot(ka, kb, s, 0)
	lgA, _ := math.Lgamma(p.prior.A)
	lgAt, _ := math.Lgamma(p.at)
	return -p.at*math.Log(p.at/a) - p.prior.B*a - float64(p.k)/2*math.Log(a+s) + p.prior.A*math.Log(p.prior.B) - lgA + lgAt + p.at
}

func (p *spProblem) step(name string) {
	if p.hook != nil {
		p.hook(name, p.bound)
	}
}

// solve runs the sequential solver or the paper's schedule for the
// shared-α probit; the structure is mcProblem.solve's with one set of
// functions for all classes.
func (p *spProblem) solve(ctx context.Context) (*mcSolution, error) {
	_, np := p.phi.Dims()
	paper := p.set.solver == PaperSchedule
	p.thr = p.set.pruneAt
	switch {
	case paper || !p.set.prune:
		p.act = seq(np)
	case p.set.bias:
		p.act = []int{0}
	default:
		h := mat.NewDense(np, p.k, nil)
		h.Mul(p.phi.T(), p.mc.ytil)
		best, bestV := 0, -1.0
		for j := range np {
			if d := p.dAll[j]; d > 0 {
				v := mat.Norm(h.RowView(j), 2)
				if v*v/d > bestV {
					best, bestV = j, v*v/d
				}
			}
		}
		p.act = []int{best}
	}
	p.alpha = constant(len(p.act), p.set.alpha0)
	if err := p.fresh(0, !paper && p.set.prune); err != nil {
		return nil, err
	}
	trace := []float64{p.bound()}
	status := IterationLimit
	iters := 0
	pending := false
	ka, kb := p.kPrior()
	for it := 1; it <= p.set.maxIter; it++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = it
		changed := false
		full := !paper && p.set.prune && (pending || it%mcbFullEvery == 1)
		if err := p.fresh(it, full); err != nil {
			return nil, err
		}
		p.step("w")
		prev := append([]float64(nil), p.alpha...)
		var dAlpha float64
		if paper {
			mu := p.mean()
			for i := range p.act { // (P11)
				var w2 float64
				for k := range p.k {
					w2 += mu.At(i, k)*mu.At(i, k) + p.sig.At(i, i)
				}
				p.alpha[i] = p.at / (p.prior.B + 0.5*w2)
			}
			dAlpha = maxRelChange(prev, p.alpha)
			p.step("alpha")
		} else {
			moved := false
			for i := 0; i < len(p.act); i++ {
				sv, q2 := p.stats(i)
				a := alphaRoot(ka, kb, sv, q2/float64(p.k)) // (P12)
				if p.set.prune && a > p.thr && len(p.act) > 1 {
					p.remove(i)
					i--
					moved = true
					p.step("remove")
					continue
				}
				p.setAlpha(i, a)
				p.step("alpha")
			}
			if full {
				for range mcAddBatch {
					j, a := p.bestAddition()
					if j < 0 {
						break
					}
					p.add(j, a)
					moved = true
					p.step("add")
				}
			}
			if moved {
				changed = true
			} else {
				dAlpha = maxRelChange(prev, p.alpha)
			}
		}
		rounds := mcMeanMax
		if paper {
			rounds = mcPaperMeanMax
		}
		dxi := p.solveMean(rounds) // (P8)
		if !paper {
			if err := p.fresh(it, false); err != nil {
				return nil, err
			}
		}
		p.step("psi")
		if paper && p.set.prune {
			keep, did := pruneSet(p.alpha, p.set.pruneAt)
			if did && len(keep) > 0 {
				changed = true
				p.act, p.alpha = selectInts(p.act, keep), selectVec(p.alpha, keep)
				p.sig = selectCols(selectRows(p.sig, keep), keep)
				if p.fixed != nil {
					p.fixed = selectRows(p.fixed, keep)
				}
			}
		}
		if paper {
			if err := p.fresh(it, false); err != nil {
				return nil, err
			}
			p.step("w")
		}
		l := p.bound()
		change := relChange(trace[len(trace)-1], l)
		trace = append(trace, l)
		if p.set.monitor != nil && p.set.monitor(Progress{Iteration: it, Bound: l, Change: change, Active: len(p.act)}) {
			status = Stopped
			break
		}
		pending = false
		if !changed && change <= p.set.tol && dAlpha <= p.set.paramTol && dxi <= p.set.paramTol {
			if paper || !p.set.prune || full {
				status = Converged
				break
			}
			pending = true
		}
	}
	return p.solution(trace, iters, status), stopped(ctx, iters)
}

// solveMean is (P8): the means' joint Newton steps with the design Φ_act
// and precisions ⟨α⟩.
func (p *spProblem) solveMean(rounds int) float64 {
	mu := p.mean()
	dpsi := p.mc.newtonMeans(selectCols(p.phi, p.act), p.alpha, mu, rounds)
	p.fixed = mu
	return dpsi
}

// solution returns the fit over the active functions in basis order,
// each class with the shared Σ.
func (p *spProblem) solution(trace []float64, iters int, status Status) *mcSolution {
	order := make([]int, len(p.act))
	for i := range order {
		order[i] = i
	}
	sortByKey(order, p.act)
	m := len(p.act)
	mu := p.mean()
	sol := &mcSolution{cols: make([]int, m), mu: mat.NewDense(m, p.k, nil), trace: trace, iters: iters, status: status}
	s := mat.NewSymDense(m, nil)
	sol.alphaK = mat.NewDense(m, p.k, nil)
	for a, i := range order {
		sol.cols[a] = p.act[i]
		sol.mu.SetRow(a, mu.RawRowView(i))
		for k := range p.k {
			sol.alphaK.Set(a, k, p.alpha[i])
		}
		for b, j := range order {
			if a <= b {
				s.SetSym(a, b, 0.5*(p.sig.At(i, j)+p.sig.At(j, i)))
			}
		}
	}
	for range p.k {
		sol.sigmas = append(sol.sigmas, s)
	}
	return sol
}

// sortByKey sorts idx by key[idx[i]].
func sortByKey(idx, key []int) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && key[idx[j]] < key[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}
