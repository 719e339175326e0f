package rvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// scheduleModel is what the re-estimation algorithm (Schedule) needs of
// a likelihood: the posterior over the active weights given α, its
// noise re-estimate, and the selection of its own per-function state.
type scheduleModel interface {
	// size is the number of candidate functions.
	size() int
	// posterior sets q to the posterior (regression) or its Laplace
	// approximation (classification) for precisions alpha and returns
	// the log evidence (or its Laplace approximation).
	posterior(q *posterior.Gauss, alpha []float64, iter int) (float64, error)
	// reestimateNoise re-estimates the noise given Σγₘ and returns
	// |Δ ln β| (0 without a noise parameter).
	reestimateNoise(gammaSum float64) float64
	// keep restricts the model to the functions at positions keep; q
	// holds the last posterior.
	keep(keep []int, q *posterior.Gauss)
	// carry prepares the next iteration without pruning.
	carry(q *posterior.Gauss)
}

// reestimate runs the re-estimation of Tipping (2001) from all functions,
// each αₘ = set.Alpha0: every iteration computes the posterior, records
// the evidence, re-estimates every αₘ ← γₘ/μₘ², γₘ = 1 − αₘΣₘₘ (eq. 46),
// and the noise (eq. 47), and removes the functions whose αₘ exceeds
// set.PruneAt. It converges when no ln αₘ (nor ln β) changes by more than
// set.Tol. q is left with the posterior of the final active set.
func reestimate(ctx context.Context, set Settings, model scheduleModel, q *posterior.Gauss) (Result, error) {
	m := model.size()
	res := Result{Cols: subset.Seq(m), Alpha: constant(m, set.Alpha0), Status: engine.IterationLimit}
	for k := 1; k <= set.MaxIter; k++ {
		if ctx.Err() != nil {
			res.Status = engine.Canceled
			break
		}
		res.Iters = k
		ev, err := model.posterior(q, res.Alpha, k)
		if err != nil {
			if ctx.Err() != nil {
				res.Status, res.Iters = engine.Canceled, k-1
				break
			}
			return res, err
		}
		res.Trace = append(res.Trace, ev)
		change, gammaSum := reestimateAlpha(res.Alpha, q.Diag, q.Mu)
		change = math.Max(change, model.reestimateNoise(gammaSum))
		if set.Monitor != nil && set.Monitor(engine.Progress{Iteration: k, Bound: ev, Change: change, Active: len(res.Cols)}) {
			res.Status = engine.Stopped
			break
		}
		if keep, pruned := engine.Prune(res.Alpha, set.PruneAt); pruned {
			model.keep(keep, q)
			res.Alpha = subset.Vec(res.Alpha, keep)
			res.Cols = subset.Ints(res.Cols, keep)
			continue
		}
		model.carry(q)
		if change <= set.Tol {
			res.Status = engine.Done
			break
		}
	}
	if q.Mu == nil || len(q.Mu) != len(res.Cols) {
		// The last iteration pruned (or the fit was cancelled before the
		// first one): refresh the posterior for the final active set, in
		// one piece (the context may be cancelled already).
		q.Ctx = nil
		if _, err := model.posterior(q, res.Alpha, res.Iters); err != nil {
			return res, err
		}
	}
	return res, nil
}

// reestimateAlpha sets every αₘ ← γₘ/μₘ², γₘ = 1 − αₘΣₘₘ (Tipping 2001,
// eq. 46), ∞ where that is not positive and finite, and returns the
// largest |Δ ln αₘ| and Σγₘ.
func reestimateAlpha(alpha, diag, mu []float64) (change, gammaSum float64) {
	for i, a := range alpha {
		g := 1 - a*diag[i]
		gammaSum += g
		na := g / (mu[i] * mu[i])
		if !(na > 0) || math.IsInf(na, 0) {
			na = math.Inf(1)
		}
		change = math.Max(change, math.Abs(math.Log(na/a)))
		alpha[i] = na
	}
	return change, gammaSum
}

// gaussModel is the Gaussian likelihood of the re-estimation algorithm:
// the design of the active functions, its Gram matrix ΦᵀΦ and Φᵀt, and β.
type gaussModel struct {
	phi  *mat.Dense
	gram *mat.SymDense
	phiT []float64
	t    []float64
	beta float64
	// betaMax caps β (betaCap).
	betaMax float64
	resid   []float64
	rss     float64
}

func (g *gaussModel) size() int { _, m := g.phi.Dims(); return m }

// posterior sets q to Σ = (A + βΦᵀΦ)⁻¹, μ = βΣΦᵀt (Tipping 2001, eq. 45)
// and returns the log evidence (evidence).
func (g *gaussModel) posterior(q *posterior.Gauss, alpha []float64, iter int) (float64, error) {
	n, m := g.phi.Dims()
	a := mat.NewSymDense(m, nil)
	a.ScaleSym(g.beta, g.gram)
	for i := range m {
		a.SetSym(i, i, a.At(i, i)+alpha[i])
	}
	if err := q.Factor(a, iter); err != nil {
		return 0, err
	}
	h := make([]float64, m)
	for i, v := range g.phiT {
		h[i] = g.beta * v
	}
	if err := q.SolveMean(h); err != nil {
		return 0, err
	}
	copy(g.resid, g.t)
	blas64.Gemv(blas.NoTrans, -1, g.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: q.Mu}, 1, blas64.Vector{N: n, Inc: 1, Data: g.resid})
	g.rss = mat.Dot(mat.NewVecDense(n, g.resid), mat.NewVecDense(n, g.resid))
	return evidence(n, g.beta, alpha, q.Mu, q.LogDet, g.rss), nil
}

// BetaMaxFactor bounds the noise precision of the RVM estimators:
// β ≤ BetaMaxFactor/var(t), a noise variance at least a millionth of
// the targets' (SparseBayes's BetaMaxFactor, its "work-around zero-noise
// issue"). Where the basis can nearly interpolate the targets (a kernel
// far narrower than the inputs' spacing) the evidence keeps rising as
// β → ∞ and the sequential algorithm does not converge (docs/benchmarks.md,
// "Measurements behind choices in the code").
const BetaMaxFactor = 1e6

// betaCap returns BetaMaxFactor/var(t) (+∞ for constant targets,
// which the estimators reject before fitting).
func betaCap(t []float64) float64 {
	if v := variance(t); v > 0 {
		return BetaMaxFactor / v
	}
	return math.Inf(1)
}

// reestimateNoise sets β ← (N − Σγₘ)/‖t − Φμ‖² (Tipping 2001, eq. 47),
// at most betaMax, when that is positive.
func (g *gaussModel) reestimateNoise(gammaSum float64) float64 {
	n, _ := g.phi.Dims()
	var d float64
	g.beta, d = reestimateBeta(n, gammaSum, g.rss, g.beta, g.betaMax)
	return d
}

// reestimateBeta returns β ← (N − γ)/rss (Tipping 2001, eq. 47) for n
// rows, γ = Σγₘ and rss = ‖t − Φμ‖², at most betaMax, and |Δ ln β|; it
// returns beta and 0 when the estimate is not positive.
func reestimateBeta(n int, gamma, rss, beta, betaMax float64) (float64, float64) {
	nb := (float64(n) - gamma) / rss
	if !(nb > 0) || math.IsNaN(nb) {
		return beta, 0
	}
	nb = math.Min(nb, betaMax)
	return nb, math.Abs(math.Log(nb / beta))
}

func (g *gaussModel) keep(keep []int, _ *posterior.Gauss) {
	g.phi = subset.Cols(g.phi, keep)
	g.gram = subset.Sym(g.gram, keep)
	g.phiT = subset.Vec(g.phiT, keep)
}

func (g *gaussModel) carry(*posterior.Gauss) {}

// logisticModel is the logistic likelihood of the re-estimation algorithm,
// with the Laplace approximation at the mode w.
type logisticModel struct {
	phi *mat.Dense
	t   []float64
	w   []float64 // the starting point of the next mode search
}

func (l *logisticModel) size() int { _, m := l.phi.Dims(); return m }

// posterior finds the mode by IRLS from w (laplaceMode) and returns
// Laplace's approximation of the log evidence,
// ln p(t|w*) − ½w*ᵀAw* + ½Σ ln αₘ + ½ln|Σ|.
func (l *logisticModel) posterior(q *posterior.Gauss, alpha []float64, iter int) (float64, error) {
	logp, err := laplaceMode(l.phi, l.t, alpha, l.w, q, iter)
	if err != nil {
		return 0, err
	}
	var sumLnA float64
	for _, a := range alpha {
		sumLnA += math.Log(a)
	}
	return logp + 0.5*sumLnA + 0.5*q.LogDet, nil
}

func (l *logisticModel) reestimateNoise(float64) float64 { return 0 }

func (l *logisticModel) keep(keep []int, q *posterior.Gauss) {
	l.phi = subset.Cols(l.phi, keep)
	l.w = subset.Vec(q.Mu, keep)
}

func (l *logisticModel) carry(q *posterior.Gauss) { copy(l.w, q.Mu) }
