package vrvm

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The two solvers of the multi-class model: the paper's schedule (every
// factor in turn, (M4), (M6), (M8)) and the sequential solver (one ⟨αₘ⟩
// at a time at the maximiser of (M14), additions by the gain (M16)). Both
// work on the full N × P design Φ; the sequential solver keeps the P × M
// products Φᵀφⱼ of the M active functions only.

// mcProblem is one multi-class fit.
type mcProblem struct {
	phi   *mat.Dense // N × P design of every candidate function
	y     []int      // class of each row
	k     int        // number of classes
	set   settings
	prior Prior
	at    float64   // ã = a + K/2 (M6)
	diagG []float64 // φₘᵀφₘ
	excl  []float64 // (M15) of each function, computed on first use
	hook  func(step string, bound func() float64)
}

// mcSolution is a solver's result, over the active functions cols in
// basis order.
type mcSolution struct {
	cols   []int
	mu     *mat.Dense
	sigma  *mat.SymDense
	alpha  []float64
	trace  []float64
	iters  int
	status Status
	// The per-class model: ⟨αₘₖ⟩ (0 where m is not active in class k)
	// and each class's Σₖ over cols (zero rows and columns there).
	alphaK *mat.Dense
	sigmas []*mat.SymDense
}

func newMCProblem(phi *mat.Dense, y []int, k int, s settings) *mcProblem {
	n, p := phi.Dims()
	pr := &mcProblem{phi: phi, y: y, k: k, set: s, prior: s.prior, at: s.prior.A + float64(k)/2, diagG: make([]float64, p)}
	for i := range n {
		for j, v := range phi.RawRowView(i) {
			pr.diagG[j] += v * v
		}
	}
	return pr
}

// excluded returns the sum of (M15) over the functions not in act.
func (p *mcProblem) excluded(act []int) float64 {
	if p.excl == nil {
		p.excl = make([]float64, len(p.diagG))
		for m, g := range p.diagG {
			p.excl[m] = mcExcludedTerm(p.prior, p.k, g/2)
		}
	}
	in := make([]bool, len(p.diagG))
	for _, a := range act {
		in[a] = true
	}
	var s float64
	for m, v := range p.excl {
		if !in[m] {
			s += v
		}
	}
	return s
}

// residual returns R, rₙ = tₙ − g(ψₙ) + Aψₙ (M4), the data of the
// weights' mean; every row sums to zero.
func (p *mcProblem) residual(psi *mat.Dense) *mat.Dense {
	n, k := psi.Dims()
	r := mat.NewDense(n, k, nil)
	kk := float64(k)
	for i := range n {
		ps, row := psi.RawRowView(i), r.RawRowView(i)
		softmaxTo(row, ps)
		mean := sum(ps) / kk
		for j := range k {
			row[j] = 0.5*(ps[j]-mean) - row[j] // Aψₙ − gₙ
		}
		row[p.y[i]]++ // + tₙ
	}
	return r
}

// bound returns L (M9)–(M13) + (M15) for the active functions act with
// means mu (M × K) and mean activations ybar = Φ_act μ, the expansion
// points psi, the Q_w precision's ⟨α⟩ d0, Q_α's rates bt and the
// contrast covariance's diagonal and log-determinant.
func (p *mcProblem) bound(act []int, mu, ybar, psi *mat.Dense, d0, bt, diag []float64, logDet float64) float64 {
	kk := float64(p.k)
	w2 := make([]float64, len(act))
	for m := range w2 {
		var s float64
		for _, v := range mu.RawRowView(m) {
			s += v * v
		}
		w2[m] = s + (kk-1)*diag[m] + 1/d0[m] // (M7)
	}
	t := mcTerms{k: p.k, at: p.at, bt: bt, d0: d0, w2: w2, logDet: logDet, sumVar: uniformSumVar(d0, diag, 0.5)}
	return mcLikelihood(p.y, ybar, psi, t.sumVar) + mcWeightTerms(p.prior, &t) + p.excluded(act)
}

// psiChange is the largest change of ψ relative to max(1, |ψ|).
func psiChange(old, new *mat.Dense) float64 {
	var c float64
	a, b := old.RawMatrix().Data, new.RawMatrix().Data
	for i, v := range b {
		c = math.Max(c, math.Abs(v-a[i])/math.Max(1, math.Abs(v)))
	}
	return c
}

// schedule is the paper-style solver: from every function with ⟨αₘ⟩ =
// Alpha0 and ψ = 0, each iteration updates Q_α (M6), ψ (M8), removes the
// functions whose ⟨αₘ⟩ exceeds PruneAlpha (unless NoPrune), and updates
// Q_W (M4)–(M5). Each update is the exact optimum of its factor given the
// others, so L never decreases except at a removal, which replaces the
// function's factors by those of (M15).
func (p *mcProblem) schedule(ctx context.Context) (*mcSolution, error) {
	n, np := p.phi.Dims()
	k := p.k
	kk := float64(k)
	cols := seq(np)
	gram := mat.NewSymDense(np, nil)
	blas64.Syrk(blas.Trans, 1, p.phi.RawMatrix(), 0, gram.RawSymmetric())
	phiS := p.phi
	bt := constant(np, p.at/p.set.alpha0)
	psi := mat.NewDense(n, k, nil)
	q := gaussQ{ctx: ctx}
	var mu, ybar *mat.Dense
	var d0 []float64
	updateW := func(iter int) error { // (M4), (M5)
		m := len(cols)
		d0 = make([]float64, m)
		prec := mat.NewSymDense(m, nil)
		prec.ScaleSym(0.5, gram)
		for i := range m {
			d0[i] = p.at / bt[i]
			prec.SetSym(i, i, prec.At(i, i)+d0[i])
		}
		if err := q.factor(prec, iter); err != nil {
			return err
		}
		h := mat.NewDense(m, k, nil)
		h.Mul(phiS.T(), p.residual(psi))
		mu = mat.NewDense(m, k, nil)
		if err := conditionOK(q.chol.SolveTo(mu, h)); err != nil {
			return err
		}
		ybar = mat.NewDense(n, k, nil)
		ybar.Mul(phiS, mu)
		return nil
	}
	boundNow := func() float64 { return p.bound(cols, mu, ybar, psi, d0, bt, q.diag, q.logDet) }
	hook := func(step string) {
		if p.hook != nil {
			p.hook(step, boundNow)
		}
	}
	if err := updateW(0); err != nil {
		return nil, err
	}
	trace := []float64{boundNow()}
	status := IterationLimit
	iters := 0
	for it := 1; it <= p.set.maxIter; it++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = it
		prevAlpha := make([]float64, len(bt))
		for m := range bt {
			prevAlpha[m] = p.at / bt[m]
		}
		for m := range bt { // (M6): b̃ₘ = b + ½ Σₖ⟨wₘₖ²⟩ (M7)
			var s float64
			for _, v := range mu.RawRowView(m) {
				s += v * v
			}
			bt[m] = p.prior.B + 0.5*(s+(kk-1)*q.diag[m]+1/d0[m])
		}
		hook("alpha")
		oldPsi := mat.DenseCopyOf(psi)
		psi.Copy(ybar) // (M8)
		dpsi := psiChange(oldPsi, psi)
		hook("psi")
		alpha := make([]float64, len(bt))
		for m := range bt {
			alpha[m] = p.at / bt[m]
		}
		pruned := false
		if p.set.prune {
			keep, did := pruneSet(alpha, p.set.pruneAt)
			if did {
				pruned = true
				cols = selectInts(cols, keep)
				bt = selectVec(bt, keep)
				prevAlpha = selectVec(prevAlpha, keep)
				alpha = selectVec(alpha, keep)
				phiS = selectCols(phiS, keep)
				gram = selectSym(gram, keep)
			}
		}
		if err := updateW(it); err != nil {
			if ctx.Err() != nil {
				status, iters = Canceled, it-1
				break
			}
			return nil, err
		}
		hook("w")
		l := boundNow()
		change := relChange(trace[len(trace)-1], l)
		trace = append(trace, l)
		if p.set.monitor != nil && p.set.monitor(Progress{Iteration: it, Bound: l, Change: change, Active: len(cols)}) {
			status = Stopped
			break
		}
		if !pruned && change <= p.set.tol && maxRelChange(prevAlpha, alpha) <= p.set.paramTol && dpsi <= p.set.paramTol {
			status = Converged
			break
		}
	}
	if len(mu.RawMatrix().Data) != len(cols)*k {
		q.ctx = nil
		if err := updateW(iters); err != nil {
			return nil, err
		}
	}
	sol := &mcSolution{cols: cols, mu: mu, sigma: q.sigma(), alpha: make([]float64, len(cols)), trace: trace, iters: iters, status: status}
	for m := range cols {
		sol.alpha[m] = p.at / bt[m]
	}
	if status == Canceled {
		return sol, stopped(ctx, iters)
	}
	return sol, nil
}

// Constants of the sequential solver.
const (
	// mcAddBatch is the largest number of functions added in one
	// iteration, each the best by (M16) after the previous one.
	mcAddBatch = 8
	// mcMaxDeletions is the number of times a function may leave the
	// active set before it is no longer added (against cycling).
	mcMaxDeletions = 2
	// The pruning threshold is annealed from mcAnnealStart·PruneAlpha
	// down to PruneAlpha, divided by mcAnnealStep whenever the fit has
	// converged at the current threshold: greedy additions at the final
	// threshold alone end in sparser, worse optima (as for the binary
	// classifier, see sequential.go).
	mcAnnealStart = 100
	mcAnnealStep  = 10
)

// mcSeq is the state of the sequential solver: the active functions with
// their ⟨αₘ⟩, Σ of (M4) over them, and for every candidate m the
// statistics of (M14) computed without the active functions' own terms:
//
//	Sₘ = ½φₘᵀφₘ − ¼ cₘᵀΣcₘ,   Qₘ = hₘ − ½ cₘᵀΣH_act,
//
// with cₘ = Φ_actᵀφₘ, H = ΦᵀR (M4) and, for an active m,
// sₘ = αₘSₘ/(αₘ − Sₘ), qₘ = αₘQₘ/(αₘ − Sₘ) (Tipping & Faul 2003).
type mcSeq struct {
	p      *mcProblem
	act    []int
	alpha  []float64
	sig    *mat.Dense // Σ (M × M)
	logDet float64
	c      *mat.Dense // P × M: column j is Φᵀφ_act[j]
	e      *mat.Dense // P × M: CΣ
	ss     []float64  // Sₘ
	qq     *mat.Dense // P × K: Qₘ
	h      *mat.Dense // P × K: ΦᵀR
	psi    *mat.Dense
	del    map[int]int
	thr    float64 // the current pruning threshold (annealed to PruneAlpha)
}

// fresh recomputes Σ, C, E, S, Q from the active set, ⟨α⟩ and ψ: the
// update of Q_W (M4) for the current ⟨α⟩ and ψ.
func (s *mcSeq) fresh(iter int) error {
	p := s.p
	n, np := p.phi.Dims()
	m := len(s.act)
	if s.c == nil || s.c.RawMatrix().Cols != m {
		s.c = mat.NewDense(np, m, nil)
		phiA := selectCols(p.phi, s.act)
		s.c.Mul(p.phi.T(), phiA)
	}
	prec := mat.NewSymDense(m, nil)
	for i, a := range s.act {
		for j := i; j < m; j++ {
			prec.SetSym(i, j, 0.5*s.c.At(a, j))
		}
		prec.SetSym(i, i, prec.At(i, i)+s.alpha[i])
	}
	var q gaussQ
	if err := q.factor(prec, iter); err != nil {
		return err
	}
	sym := q.sigma()
	s.sig = mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			s.sig.Set(i, j, sym.At(i, j))
		}
	}
	s.logDet = q.logDet
	s.h = mat.NewDense(np, p.k, nil)
	s.h.Mul(p.phi.T(), p.residual(s.psi))
	_ = n
	s.e = mat.NewDense(np, m, nil)
	s.e.Mul(s.c, s.sig)
	s.ss = make([]float64, np)
	for j := range np {
		s.ss[j] = 0.5*p.diagG[j] - 0.25*blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: s.c.RawRowView(j)}, blas64.Vector{N: m, Inc: 1, Data: s.e.RawRowView(j)})
	}
	hs := selectRows(s.h, s.act)
	s.qq = mat.DenseCopyOf(s.h)
	var eh mat.Dense
	eh.Mul(s.e, hs)
	s.qq.Sub(s.qq, scaled(0.5, &eh))
	return nil
}

func scaled(f float64, a *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(f, a)
	return &out
}

// stats returns s, q² of (M14) for the function at position i of the
// active set, without its own terms.
func (s *mcSeq) stats(i int) (sv, q2 float64) {
	j := s.act[i]
	a := s.alpha[i]
	d := a - s.ss[j]
	f := a / d
	for _, v := range s.qq.RawRowView(j) {
		q2 += v * v
	}
	return f * s.ss[j], f * f * q2
}

// mean returns μ = ΣH_act (M5) and ȳ = Φ_act μ.
func (s *mcSeq) mean() (mu, ybar *mat.Dense) {
	n, _ := s.p.phi.Dims()
	mu = mat.NewDense(len(s.act), s.p.k, nil)
	mu.Mul(s.sig, selectRows(s.h, s.act))
	ybar = mat.NewDense(n, s.p.k, nil)
	ybar.Mul(selectCols(s.p.phi, s.act), mu)
	return mu, ybar
}

// bound evaluates L for the current state.
func (s *mcSeq) bound() float64 {
	mu, ybar := s.mean()
	m := len(s.act)
	bt, diag := make([]float64, m), make([]float64, m)
	for i, a := range s.alpha {
		bt[i] = s.p.at / a
		diag[i] = s.sig.At(i, i)
	}
	return s.p.bound(s.act, mu, ybar, s.psi, s.alpha, bt, diag, s.logDet)
}

func (s *mcSeq) hook(step string) {
	if s.p.hook != nil {
		s.p.hook(step, s.bound)
	}
}

// rankOne applies Σ ← Σ − κσᵢσᵢᵀ to Σ, E, S and Q, where σᵢ is column i
// of Σ (an α change of function i, or its removal with κ = 1/Σᵢᵢ).
func (s *mcSeq) rankOne(i int, kappa float64) {
	m := len(s.act)
	np, _ := s.e.Dims()
	si := make([]float64, m)
	for r := range m {
		si[r] = s.sig.At(r, i)
	}
	ei := make([]float64, np)
	for r := range np {
		ei[r] = s.e.At(r, i)
	}
	sh := make([]float64, s.p.k)
	gemvT(sh, selectRows(s.h, s.act), si) // σᵢᵀH_act
	blas64.Ger(-kappa, blas64.Vector{N: m, Inc: 1, Data: si}, blas64.Vector{N: m, Inc: 1, Data: si}, s.sig.RawMatrix())
	blas64.Ger(-kappa, blas64.Vector{N: np, Inc: 1, Data: ei}, blas64.Vector{N: m, Inc: 1, Data: si}, s.e.RawMatrix())
	blas64.Ger(0.5*kappa, blas64.Vector{N: np, Inc: 1, Data: ei}, blas64.Vector{N: s.p.k, Inc: 1, Data: sh}, s.qq.RawMatrix())
	for r, v := range ei {
		s.ss[r] += 0.25 * kappa * v * v
	}
}

// setAlpha sets ⟨α⟩ of active position i to a (the maximiser of (M14)).
func (s *mcSeq) setAlpha(i int, a float64) {
	d := a - s.alpha[i]
	if d == 0 {
		return
	}
	sii := s.sig.At(i, i)
	s.rankOne(i, d/(1+d*sii))
	s.logDet -= math.Log1p(d * sii)
	s.alpha[i] = a
}

// remove takes active position i out of the active set.
func (s *mcSeq) remove(i int) {
	sii := s.sig.At(i, i)
	s.rankOne(i, 1/sii)
	s.logDet -= math.Log(sii)
	keep := make([]int, 0, len(s.act)-1)
	for j := range s.act {
		if j != i {
			keep = append(keep, j)
		}
	}
	s.del[s.act[i]]++
	s.sig = selectCols(selectRows(s.sig, keep), keep)
	s.e = selectCols(s.e, keep)
	s.c = selectCols(s.c, keep)
	s.act = selectInts(s.act, keep)
	s.alpha = selectVec(s.alpha, keep)
}

// add puts candidate j into the active set with ⟨αⱼ⟩ = a.
func (s *mcSeq) add(j int, a float64) {
	p := s.p
	n, np := p.phi.Dims()
	m := len(s.act)
	col := make([]float64, n)
	for r := range n {
		col[r] = p.phi.At(r, j)
	}
	cn := make([]float64, np)
	gemvT(cn, p.phi, col)    // Φᵀφⱼ
	sb := make([]float64, m) // Σb = ½ Σ C[j, :]ᵀ = ½ E[j, :]ᵀ
	for i := range m {
		sb[i] = 0.5 * s.e.At(j, i)
	}
	sigma := 1 / (a + s.ss[j])
	u := make([]float64, np) // u = E b = ½ E C[j, :]ᵀ
	cj := make([]float64, m)
	for i := range m {
		cj[i] = 0.5 * s.c.At(j, i)
	}
	if m > 0 {
		blas64.Gemv(blas.NoTrans, 1, s.e.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: cj}, 0, blas64.Vector{N: np, Inc: 1, Data: u})
	}
	delta := make([]float64, np)
	for r := range np {
		delta[r] = cn[r] - u[r]
	}
	qj := append([]float64(nil), s.qq.RawRowView(j)...)
	// Σ' = [[Σ + σ(Σb)(Σb)ᵀ, −σΣb], [−σ(Σb)ᵀ, σ]]
	ns := mat.NewDense(m+1, m+1, nil)
	for r := range m {
		for c := range m {
			ns.Set(r, c, s.sig.At(r, c)+sigma*sb[r]*sb[c])
		}
		ns.Set(r, m, -sigma*sb[r])
		ns.Set(m, r, -sigma*sb[r])
	}
	ns.Set(m, m, sigma)
	s.sig = ns
	s.logDet += math.Log(sigma)
	// E' = [E − σδ(Σb)ᵀ, σδ]; C' = [C, cₙ]
	ne := mat.NewDense(np, m+1, nil)
	nc := mat.NewDense(np, m+1, nil)
	for r := range np {
		er, dst := s.e.RawRowView(r), ne.RawRowView(r)
		for c := range m {
			dst[c] = er[c] - sigma*delta[r]*sb[c]
		}
		dst[m] = sigma * delta[r]
		copy(nc.RawRowView(r), s.c.RawRowView(r))
		nc.Set(r, m, cn[r])
	}
	s.e, s.c = ne, nc
	blas64.Ger(-0.5*sigma, blas64.Vector{N: np, Inc: 1, Data: delta}, blas64.Vector{N: p.k, Inc: 1, Data: qj}, s.qq.RawMatrix())
	for r, v := range delta {
		s.ss[r] -= 0.25 * sigma * v * v
	}
	s.act = append(s.act, j)
	s.alpha = append(s.alpha, a)
}

// mapObjective returns G(μ) = Σₙ{tₙᵀȳₙ − lse(ȳₙ)} − ½ Σₘ⟨αₘ⟩‖μₘ‖²,
// ȳ = Φ_act μ: the part of L that depends on μ once ψ is at its optimum
// (M8) given μ, concave in μ and maximised by the posterior mode of the
// weights given ⟨α⟩ (M18).
func (s *mcSeq) mapObjective(phiA, mu *mat.Dense) float64 {
	n, _ := phiA.Dims()
	ybar := mat.NewDense(n, s.p.k, nil)
	ybar.Mul(phiA, mu)
	var g float64
	for i := range n {
		row := ybar.RawRowView(i)
		g += row[s.p.y[i]] - logSumExp(row)
	}
	for m, a := range s.alpha {
		for _, v := range mu.RawRowView(m) {
			g -= 0.5 * a * v * v
		}
	}
	return g
}

// mcNewtonMax bounds the Newton steps of solveMean, mcCGMax the
// conjugate-gradient iterations of each.
const (
	mcNewtonMax = 100
	mcCGMax     = 200
)

// solveMean maximises, with Σ and ⟨α⟩ fixed, L over ψ (M8) and the mean
// of Q_W (M5) jointly: their joint optimum is ψ = Φμ* and μ = μ*, the mode
// of G (mapObjective) (M18). Böhning's iteration μ ← ΣΦᵀR(Φμ), ψ and the
// mean in turn, is gradient ascent preconditioned by Σ and crawls where
// the classes are well separated (hundreds of cycles on iris); here the
// mode is found by Newton's method on G with the Newton systems solved by
// conjugate gradients preconditioned by Σ, and a step is kept only if it
// raises G, so L never decreases. It leaves ψ = Φμ* and H updated, and
// returns the largest relative change of ψ.
func (s *mcSeq) solveMean() float64 {
	p := s.p
	n, _ := p.phi.Dims()
	k := p.k
	phiA := selectCols(p.phi, s.act)
	m := len(s.act)
	mu, _ := s.mean()
	probs := mat.NewDense(n, k, nil)
	act := mat.NewDense(n, k, nil)
	setProbs := func(mu *mat.Dense) {
		act.Mul(phiA, mu)
		for i := range n {
			softmaxTo(probs.RawRowView(i), act.RawRowView(i))
		}
	}
	// hv returns (−∇²G) v = Φᵀ(p∘u − p(pᵀu)) + D v, u = Φv.
	u := mat.NewDense(n, k, nil)
	hv := func(v *mat.Dense) *mat.Dense {
		u.Mul(phiA, v)
		for i := range n {
			pr, ur := probs.RawRowView(i), u.RawRowView(i)
			var pu float64
			for j := range k {
				pu += pr[j] * ur[j]
			}
			for j := range k {
				ur[j] = pr[j] * (ur[j] - pu)
			}
		}
		out := mat.NewDense(m, k, nil)
		out.Mul(phiA.T(), u)
		for r, a := range s.alpha {
			row, vr := out.RawRowView(r), v.RawRowView(r)
			for j := range k {
				row[j] += a * vr[j]
			}
		}
		return out
	}
	dot := func(a, b *mat.Dense) float64 {
		return blas64.Dot(blas64.Vector{N: m * k, Inc: 1, Data: a.RawMatrix().Data}, blas64.Vector{N: m * k, Inc: 1, Data: b.RawMatrix().Data})
	}
	g0 := s.mapObjective(phiA, mu)
	for range mcNewtonMax {
		setProbs(mu)
		// ∇G = Φᵀ(T − P) − Dμ
		resid := mat.NewDense(n, k, nil)
		for i := range n {
			rr, pr := resid.RawRowView(i), probs.RawRowView(i)
			for j := range k {
				rr[j] = -pr[j]
			}
			rr[p.y[i]]++
		}
		grad := mat.NewDense(m, k, nil)
		grad.Mul(phiA.T(), resid)
		for r, a := range s.alpha {
			row, mr := grad.RawRowView(r), mu.RawRowView(r)
			for j := range k {
				row[j] -= a * mr[j]
			}
		}
		// PCG on (−∇²G) δ = ∇G with preconditioner Σ.
		delta := mat.NewDense(m, k, nil)
		res := mat.DenseCopyOf(grad)
		z := mat.NewDense(m, k, nil)
		z.Mul(s.sig, res)
		dir := mat.DenseCopyOf(z)
		rz := dot(res, z)
		rz0 := rz
		for range mcCGMax {
			if rz <= 1e-20*rz0 || rz <= 0 {
				break
			}
			hd := hv(dir)
			dhd := dot(dir, hd)
			if !(dhd > 0) {
				break
			}
			a := rz / dhd
			delta.Add(delta, scaled(a, dir))
			res.Sub(res, scaled(a, hd))
			z.Mul(s.sig, res)
			nrz := dot(res, z)
			dir.Scale(nrz/rz, dir)
			dir.Add(dir, z)
			rz = nrz
		}
		dec := dot(grad, delta) // Newton decrement²
		if !(dec > 0) {
			break
		}
		improved := false
		var trial mat.Dense
		for t := 1.0; t > 1e-10; t /= 2 {
			trial.Add(mu, scaled(t, delta))
			if g := s.mapObjective(phiA, &trial); g >= g0 {
				mu = mat.DenseCopyOf(&trial)
				improved = g > g0
				g0 = g
				break
			}
		}
		if !improved || dec <= 1e-12*math.Max(1, math.Abs(g0)) {
			break
		}
	}
	psi := mat.NewDense(n, k, nil)
	psi.Mul(phiA, mu) // (M8)
	dpsi := psiChange(s.psi, psi)
	s.psi = psi
	// H for the new ψ, so that mean() gives the Q_W mean (M5) for it.
	s.h.Mul(p.phi.T(), p.residual(s.psi))
	return dpsi
}

// bestAddition returns the excluded function with the largest gain (M16)
// among those whose optimal ⟨α⟩ is below PruneAlpha/2, with that ⟨α⟩, or
// −1.
func (s *mcSeq) bestAddition() (int, float64) {
	p := s.p
	in := make([]bool, len(p.diagG))
	for _, a := range s.act {
		in[a] = true
	}
	best, bestA, bestGain := -1, 0.0, 0.0
	for j := range p.diagG {
		if in[j] || s.del[j] >= mcMaxDeletions || s.ss[j] <= 0 {
			continue
		}
		var q2 float64
		for _, v := range s.qq.RawRowView(j) {
			q2 += v * v
		}
		a := mcAlphaRoot(p.prior, p.k, s.ss[j], q2)
		if a > s.thr/2 {
			continue
		}
		a0 := mcAlphaRoot(p.prior, p.k, p.diagG[j]/2, 0)
		gain := mcCollapsed(p.prior, p.k, a, s.ss[j], q2) - mcCollapsed(p.prior, p.k, a0, p.diagG[j]/2, 0) // (M16)
		if gain > bestGain {
			best, bestA, bestGain = j, a, gain
		}
	}
	return best, bestA
}

// sequential is the default solver: it starts from the bias alone (or,
// without a bias, the function with the largest ‖ΦᵀR‖²/φᵀφ; with
// NoPrune from every function) and iterates: Q_W (M4) for the current ⟨α⟩
// and ψ; a sweep setting each active ⟨αₘ⟩ to the maximiser of (M14) by a
// rank-one update, removing a function whose optimum exceeds PruneAlpha;
// up to mcAddBatch additions by the gain (M16); ψ (M8).
func (p *mcProblem) sequential(ctx context.Context) (*mcSolution, error) {
	n, np := p.phi.Dims()
	s := &mcSeq{p: p, psi: mat.NewDense(n, p.k, nil), del: map[int]int{}, thr: p.set.pruneAt * mcAnnealStart}
	switch {
	case !p.set.prune:
		s.act = seq(np)
	case p.set.bias:
		s.act = []int{0}
	default:
		h := mat.NewDense(np, p.k, nil)
		h.Mul(p.phi.T(), p.residual(s.psi))
		best, bestV := 0, -1.0
		for j := range np {
			var v float64
			for _, x := range h.RawRowView(j) {
				v += x * x
			}
			if p.diagG[j] > 0 && v/p.diagG[j] > bestV {
				best, bestV = j, v/p.diagG[j]
			}
		}
		s.act = []int{best}
	}
	s.alpha = constant(len(s.act), p.set.alpha0)
	if err := s.fresh(0); err != nil {
		return nil, err
	}
	trace := []float64{s.bound()}
	status := IterationLimit
	iters := 0
	for it := 1; it <= p.set.maxIter; it++ {
		if ctx.Err() != nil {
			status = Canceled
			break
		}
		iters = it
		if it > 1 {
			if err := s.fresh(it); err != nil {
				return nil, err
			}
			s.hook("w")
		}
		prevAct := append([]int(nil), s.act...)
		prevAlpha := append([]float64(nil), s.alpha...)
		changed := false
		for i := 0; i < len(s.act); i++ {
			sv, q2 := s.stats(i)
			a := mcAlphaRoot(p.prior, p.k, sv, q2) // (M14)
			if p.set.prune && a > s.thr && len(s.act) > 1 {
				s.remove(i)
				i--
				changed = true
				s.hook("remove")
				continue
			}
			s.setAlpha(i, a)
			s.hook("alpha")
		}
		if p.set.prune {
			for range mcAddBatch {
				j, a := s.bestAddition()
				if j < 0 {
					break
				}
				s.add(j, a)
				changed = true
				s.hook("add")
			}
		}
		dpsi := s.solveMean()
		s.hook("psi")
		l := s.bound()
		change := relChange(trace[len(trace)-1], l)
		trace = append(trace, l)
		if p.set.monitor != nil && p.set.monitor(Progress{Iteration: it, Bound: l, Change: change, Active: len(s.act)}) {
			status = Stopped
			break
		}
		if !changed && len(prevAct) == len(s.act) && change <= p.set.tol && maxRelChange(prevAlpha, s.alpha) <= p.set.paramTol && dpsi <= p.set.paramTol {
			if !p.set.prune || s.thr <= p.set.pruneAt {
				status = Converged
				break
			}
			s.thr = math.Max(s.thr/mcAnnealStep, p.set.pruneAt)
		}
	}
	// Order the active functions as the basis.
	order := seq(len(s.act))
	sort.Slice(order, func(a, b int) bool { return s.act[order[a]] < s.act[order[b]] })
	mu, _ := s.mean()
	sol := &mcSolution{cols: selectInts(s.act, order), mu: selectRows(mu, order), alpha: selectVec(s.alpha, order),
		trace: trace, iters: iters, status: status}
	m := len(order)
	sol.sigma = mat.NewSymDense(m, nil)
	for i, a := range order {
		for j := i; j < m; j++ {
			sol.sigma.SetSym(i, j, 0.5*(s.sig.At(a, order[j])+s.sig.At(order[j], a)))
		}
	}
	if status == Canceled {
		return sol, stopped(ctx, iters)
	}
	return sol, nil
}
