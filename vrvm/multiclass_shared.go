package vrvm

import (
	"context"
	"fmt"
	"math"

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
	aTil      float64   // ã = a + K/2 (P11)
	dAll      []float64 // φₘᵀφₘ
	// Q(Y): means ψ (N × K), ⟨y⟩ and ln Zₙ (P4)–(P5), as in mcProblem.
	mc *mcProblem
	// Q(W), Q_α: the active functions, ⟨α⟩, Σ and the statistics of the
	// candidates, Sₘ and Qₘₖ of (P12) (K outputs sharing Σ; h = Φᵀỹ).
	mcActive
	fixed *mat.Dense // M × K means set by the Newton step, or nil
	del   map[int]int
	thr   float64
	hook  func(step string, bound func() float64)
}

// newSPProblem sets up a fit with Q(Y) at ψ = 0.
func newSPProblem(phi *mat.Dense, y []int, k int, s settings) *spProblem {
	mc := newMCProblem(phi, y, k, s, true)
	return &spProblem{phi: phi, phi2: mc.phi2, y: y, k: k, set: s, prior: s.prior, aTil: s.prior.A + 0.5*float64(k),
		dAll: mc.dAll, mc: mc, mcActive: mcActive{del: map[int]int{}}}
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
	phiA := selectCols(p.phi, p.act)
	p.hold(p.phi, phiA, phiA, all)
	_, np := p.phi.Dims()
	p.h = mat.NewDense(np, p.k, nil)
	p.h.Mul(p.phi.T(), p.mc.ytil)
	p.fixed = nil
	return p.factor(iter, p.dAll)
}

// mean returns the M × K means ΣΦ_actᵀỹ (P3), or those of the Newton
// step.
func (p *spProblem) mean() *mat.Dense {
	if p.fixed != nil {
		return mat.DenseCopyOf(p.fixed)
	}
	return p.meanAct() // the active set is never empty
}

// add puts candidate j into the active set with ⟨α⟩ = a (every
// candidate's statistics must be held).
func (p *spProblem) add(j int, a float64) {
	_, np := p.phi.Dims()
	cn := make([]float64, np)
	gemvT(cn, p.phi, mat.Col(nil, j, p.phi)) // Φᵀφⱼ
	p.mcActive.add(j, a, cn)
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
		q2 := p.qsq(r)
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
	psi := mathext.Digamma(p.aTil)
	lgA, _ := math.Lgamma(p.prior.A)
	lgAt, _ := math.Lgamma(p.aTil)
	lnB := math.Log(p.prior.B)
	for i, a := range p.alpha {
		bt := p.aTil / a
		lnA := psi - math.Log(bt)
		var w2 float64
		for k := range p.k {
			w2 += mu.At(i, k)*mu.At(i, k) + p.sig.At(i, i)
		}
		l += -kk/2*ln2Pi + kk/2*lnA - 0.5*a*w2                     // (P11) ⟨ln p(wₘ|αₘ)⟩
		l += p.prior.A*lnB - lgA + (p.prior.A-1)*lnA - p.prior.B*a // ⟨ln p(αₘ)⟩
		l += lgAt - (p.aTil-1)*psi - math.Log(bt) + p.aTil         // H[Q(αₘ)]
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
	lgAt, _ := math.Lgamma(p.aTil)
	return -p.aTil*math.Log(p.aTil/a) - p.prior.B*a - float64(p.k)/2*math.Log(a+s) + p.prior.A*math.Log(p.prior.B) - lgA + lgAt + p.aTil
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
				p.alpha[i] = p.aTil / (p.prior.B + 0.5*w2)
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
		if math.IsNaN(l) {
			return p.solution(append(trace, l), it, IterationLimit), fmt.Errorf("%w (iteration %d)", errBoundNaN, it)
		}
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
