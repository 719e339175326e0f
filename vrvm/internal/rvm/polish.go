package rvm

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// maxPolish bounds the joint re-estimation steps of one polish.
const maxPolish = 1000

// polish converges the active αₘ and β jointly with the active set fixed,
// for the functions whose optimum (R3) given the others is finite and at
// most prune (the others keep their αₘ; the next iteration deletes them
// or re-estimates them one at a time). One re-estimate (R3) per iteration
// costs every candidate's factors, O(M k²) for k active functions, and
// converges slowly: β couples every αₘ, so that each change of β moves
// every optimum and single re-estimates sweep the active set many times
// (docs/benchmarks.md, "Measurements behind choices in the code"). A polish step costs
// one posterior, O(k³): Newton's method on the evidence in ln αₘ and
// ln β (newtonStep), which converges quadratically where the αₘ are
// coupled, or, if that fails, the fixed-point step αₘ ← γₘ/μₘ², β by
// eq. 47 (Tipping 2001, eqs. 46–47). Classification has its own polish
// (polishLaplace). A step that would lower the evidence is
// halved in ln αₘ and ln β, up to maxHalvings times, and otherwise ends
// the polish. The polish ends when no ln αₘ nor ln β changes by more than
// tol, or after maxPolish steps. It returns the number of steps taken and
// the last |Δ ln β|.
func (st *state) polish(iter int, tol, prune float64) (steps int, betaChange float64, err error) {
	if st.logit != nil {
		return st.polishLaplace(iter, tol, prune)
	}
	const (
		maxHalvings = 10
		maxStep     = 2.0 // largest change of one ln αₘ or ln β per step
	)
	cur := st.logEvidence()
	for ; steps < maxPolish; steps++ {
		oldAlpha, oldBeta := append([]float64(nil), st.alpha...), st.beta
		// The functions with a finite optimum (R3), from sₘ = 1/Σₘₘ − αₘ,
		// qₘ = μₘ/Σₘₘ (R5).
		var free []int
		for j, a := range st.alpha {
			d := st.q.Diag[j]
			s, q := 1/d-a, st.q.Mu[j]/d
			if theta := q*q - s; theta > 0 && s > 0 && s*s/theta <= prune {
				free = append(free, j)
			}
		}
		if len(free) == 0 {
			return steps, betaChange, nil
		}
		// The step in ln αₘ (free) and, last, ln β.
		dir, ok := st.newtonStep(free, st.atBetaCap())
		if !ok {
			dir = make([]float64, len(free)+1)
			for i, j := range free {
				a := st.alpha[j]
				dir[i] = math.Log((1 - a*st.q.Diag[j]) / (st.q.Mu[j] * st.q.Mu[j]) / a) // eq. 46
			}
			if st.updateBetaWith(oldAlpha) > 0 { // eq. 47
				dir[len(free)] = math.Log(st.beta / oldBeta)
				st.beta = oldBeta
			}
		}
		var change float64
		for _, v := range dir {
			change = math.Max(change, math.Abs(v))
		}
		if change > maxStep {
			for i := range dir {
				dir[i] *= maxStep / change
			}
			change = maxStep
		}
		accepted := false
		for h, f := 0, 1.0; h <= maxHalvings; h, f = h+1, f/2 {
			for i, j := range free {
				st.alpha[j] = oldAlpha[j] * math.Exp(f*dir[i])
			}
			st.beta = math.Min(oldBeta*math.Exp(f*dir[len(free)]), st.betaMax)
			if err := st.posterior(iter); err != nil {
				return steps, betaChange, err
			}
			if l := st.logEvidence(); l >= cur-1e-12*math.Abs(cur) {
				cur, accepted = l, true
				change *= f
				betaChange = math.Abs(math.Log(st.beta / oldBeta))
				break
			}
		}
		if !accepted {
			copy(st.alpha, oldAlpha)
			st.beta = oldBeta
			return steps, betaChange, st.posterior(iter)
		}
		if change <= tol {
			return steps + 1, betaChange, nil
		}
	}
	return steps, betaChange, nil
}

// polishLaplace is the polish for classification: every active
// αₘ ← γₘ/μₘ² jointly (Tipping 2001, eq. 46) with the active set fixed,
// until no ln αₘ changes by more than tol, an αₘ exceeds prune (the
// function is to be deleted, which the next iteration does), or maxPolish
// steps. Each step costs a search for the mode (laplaceMode), so a step
// that would lower the evidence is not halved, as in polish: it is undone
// and ends the polish. It returns the number of steps taken and 0.
func (st *state) polishLaplace(iter int, tol, prune float64) (steps int, betaChange float64, err error) {
	cur := st.logEvidence()
	for ; steps < maxPolish; steps++ {
		oldAlpha, oldBeta := append([]float64(nil), st.alpha...), st.beta
		var oldW []float64
		if st.logit != nil {
			oldW = append(oldW, st.logit.w...)
		}
		var change float64
		for j, a := range st.alpha {
			g := 1 - a*st.q.Diag[j]
			na := g / (st.q.Mu[j] * st.q.Mu[j])
			if !(na > 0) || na > prune {
				copy(st.alpha, oldAlpha)
				return steps, betaChange, nil
			}
			change = math.Max(change, math.Abs(math.Log(na/a)))
			st.alpha[j] = na
		}
		bc := st.updateBetaWith(oldAlpha)
		if err := st.posterior(iter); err != nil {
			return steps, betaChange, err
		}
		l := st.logEvidence()
		if l < cur-1e-12*math.Abs(cur) {
			copy(st.alpha, oldAlpha)
			st.beta = oldBeta
			if oldW != nil {
				copy(st.logit.w, oldW)
			}
			return steps, betaChange, st.posterior(iter)
		}
		cur, betaChange = l, bc
		if change <= tol && betaChange <= tol {
			return steps + 1, betaChange, nil
		}
	}
	return steps, betaChange, nil
}

// newtonStep returns Newton's step for the regression evidence
// ln p(t | α, β) in ln αₘ for the active positions free and, last, ln β,
// with the rest fixed, at the current posterior; ok is false if the
// Hessian is not negative definite. With γₘ = 1 − αₘΣₘₘ, the rss
// ‖t − Φμ‖² and βΣΦᵀΦΣ = Σ − ΣAΣ, the gradient and Hessian are
//
//	∂L/∂ln αᵢ = ½(γᵢ − αᵢμᵢ²),   ∂L/∂ln β = ½(N − Σγₘ − β rss),
//	∂²L/∂ln αᵢ∂ln αⱼ = ½αᵢαⱼ(Σᵢⱼ² + 2μᵢμⱼΣᵢⱼ) − δᵢⱼ ½αᵢ(Σᵢᵢ + μᵢ²),
//	∂²L/∂ln αᵢ∂ln β = ½αᵢ[(Σ − ΣAΣ)ᵢᵢ − 2μᵢ(ΣAμ)ᵢ],
//	∂²L/∂ln β² = ½[2(Aμ)ᵀΣAμ − β rss − Σₘ αₘ(Σ − ΣAΣ)ₘₘ].
//
// With fixBeta the step leaves ln β out (its component is 0).
func (st *state) newtonStep(free []int, fixBeta bool) (dir []float64, ok bool) {
	k := len(st.alpha)
	sig := st.q.Sigma()
	mu, alpha := st.q.Mu, st.alpha
	am := make([]float64, k) // Aμ
	for i := range k {
		am[i] = alpha[i] * mu[i]
	}
	sam := make([]float64, k) // ΣAμ
	blas64.Symv(1, sig.RawSymmetric(), blas64.Vector{N: k, Inc: 1, Data: am}, 0, blas64.Vector{N: k, Inc: 1, Data: sam})
	// (ΣAΣ)ᵢᵢ = Σⱼ αⱼΣᵢⱼ².
	sas := make([]float64, k)
	var gammaSum, amSam float64
	for i := range k {
		for j := range k {
			v := sig.At(i, j)
			sas[i] += alpha[j] * v * v
		}
		gammaSum += 1 - alpha[i]*sig.At(i, i)
		amSam += am[i] * sam[i]
	}
	nf := len(free)
	n := nf + 1
	g := make([]float64, n)
	neg := mat.NewSymDense(n, nil) // −Hessian
	for a, i := range free {
		g[a] = 0.5 * (1 - alpha[i]*sig.At(i, i) - alpha[i]*mu[i]*mu[i])
		for b := a; b < nf; b++ {
			j := free[b]
			v := sig.At(i, j)
			h := 0.5 * alpha[i] * alpha[j] * (v*v + 2*mu[i]*mu[j]*v)
			if a == b {
				h -= 0.5 * alpha[i] * (sig.At(i, i) + mu[i]*mu[i])
			}
			neg.SetSym(a, b, -h)
		}
		neg.SetSym(a, nf, -0.5*alpha[i]*((sig.At(i, i)-sas[i])-2*mu[i]*sam[i]))
	}
	var trB float64
	for i := range k {
		trB += alpha[i] * (sig.At(i, i) - sas[i])
	}
	g[nf] = 0.5 * (float64(st.n) - gammaSum - st.beta*st.rss)
	neg.SetSym(nf, nf, -0.5*(2*amSam-st.beta*st.rss-trB))
	if fixBeta {
		// The leading block, and ln β's component 0 (last, from g).
		g[nf], n = 0, nf
		neg = neg.SliceSym(0, nf).(*mat.SymDense)
	}
	// Far from a maximum the Hessian can be indefinite (the evidence is
	// not concave in ln αₘ where an optimum is near ∞): then the step of
	// Levenberg–Marquardt, −H + λI for the least λ = 10ʲλ₀ that is
	// positive definite.
	var ch mat.Cholesky
	if !ch.Factorize(neg) {
		var scale float64
		for i := range n {
			scale = math.Max(scale, math.Abs(neg.At(i, i)))
		}
		lambda := 1e-6 * scale
		shifted := mat.NewSymDense(n, nil)
		for ok := false; !ok; lambda *= 10 {
			if !(lambda <= 1e6*scale) {
				return nil, false
			}
			shifted.CopySym(neg)
			for i := range n {
				shifted.SetSym(i, i, neg.At(i, i)+lambda)
			}
			ok = ch.Factorize(shifted)
		}
	}
	d := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(d, mat.NewVecDense(n, g[:n])); err != nil {
		return nil, false
	}
	if dir = d.RawVector().Data; fixBeta {
		dir = append(dir, 0)
	}
	return dir, true
}
