package vrvm

import (
	"context"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// The facade of the multi-class solver (package multiclass,
// vrvm/internal/multiclass: docs/design.md, "Multi-class classification",
// "Multi-class probit"): the likelihood option, the settings it is given,
// the second start's gate (M23) and the exported bounds.

// MultiLikelihood selects the likelihood of a MultiClassifier.
type MultiLikelihood int

const (
	// Softmax (the zero value, the default) is the softmax likelihood
	// (M1) under Böhning's bound (M3), with the means at the posterior
	// mode (M18).
	Softmax MultiLikelihood = iota
	// Probit is the multinomial probit with auxiliary variables (P1):
	// every factor update is closed-form and the bound is exact up to
	// one-dimensional quadrature (P4).
	Probit
	// SoftmaxAdaptive is the softmax likelihood (M1) under the
	// adaptive-curvature bound of Jebara & Choromanska (M19), tight at
	// the expansion points as Böhning's but with a curvature that is
	// small where the softmax is confident, with the means at the
	// posterior mode (M18) when that raises the bound (M21).
	SoftmaxAdaptive
)

// String returns "probit", "softmax" or "softmax-adaptive".
func (l MultiLikelihood) String() string {
	switch l {
	case Probit:
		return "probit"
	case SoftmaxAdaptive:
		return "softmax-adaptive"
	case Softmax:
		return "softmax"
	}
	return "MultiLikelihood(" + strconv.Itoa(int(l)) + ")"
}

// solver returns the solver's likelihood l.
func (l MultiLikelihood) solver() multiclass.Likelihood {
	switch l {
	case Probit:
		return multiclass.Probit
	case SoftmaxAdaptive:
		return multiclass.Adaptive
	}
	return multiclass.Softmax
}

// BohningBound returns the logarithm of Böhning's lower bound (M3) on the
// softmax probability of class k at activations y, expanded at ψ:
//
//	ln softmaxₖ(y) ≥ yₖ − lse(ψ) − g(ψ)ᵀ(y − ψ) − ½(y − ψ)ᵀA(y − ψ),
//	A = ½(I − 11ᵀ/K),
//
// with g the softmax, with equality at y = ψ (and at y = ψ + c1 for any
// scalar c). It panics if the lengths of y and psi differ or k is out of
// range.
func BohningBound(y, psi []float64, k int) float64 {
	if len(y) != len(psi) || k < 0 || k >= len(y) {
		panic("vrvm: BohningBound: bad lengths or class")
	}
	return multiclass.Bohning(make([]float64, len(psi)), y, psi, k)
}

// JCBound returns the logarithm of the adaptive-curvature lower bound
// (M19) on the softmax probability of class k at activations y, expanded
// at ψ (Jebara & Choromanska 2012):
//
//	ln softmaxₖ(y) ≥ yₖ − lse(ψ) − g(ψ)ᵀ(y − ψ) − ½(y − ψ)ᵀA(ψ)(y − ψ)
//
// with A(ψ) the curvature of (M19) (docs/design.md), with equality at
// y = ψ. It panics if the lengths of y and psi differ or k is out of
// range.
func JCBound(y, psi []float64, k int) float64 {
	if len(y) != len(psi) || k < 0 || k >= len(y) {
		panic("vrvm: JCBound: bad lengths or class")
	}
	kk := len(psi)
	return multiclass.JCRow(make([]float64, kk*kk), make([]int, kk), make([]float64, kk), y, psi, k, nil, false)
}

// errBoundNaN is the error of a multi-class fit whose bound became NaN
// (multiclass.ErrBoundNaN).
var errBoundNaN = multiclass.ErrBoundNaN

// mcSettings returns the multi-class solver's settings from the resolved
// settings s, with the step hook (tests; nil for none).
func mcSettings(s settings, hook func(step string, bound func() float64)) multiclass.Settings {
	return multiclass.Settings{Prior: s.prior.weightPrior(), Bias: s.bias, NoPrune: !s.prune, Paper: s.method == (PaperSchedule{}),
		PruneAt: s.pruneAt, Alpha0: s.alpha0, MaxIter: s.maxIter, Tol: s.tol, ParamTol: s.paramTol,
		Monitor: engineMonitor(s.monitor), Hook: hook, ProbitBlockStep: s.probitBlockStep, NoHeldRestart: s.noMCHeldRestart}
}

// solveMulti fits the multi-class model on basis b to inputs x and classes
// y (multiclass.Fit), and returns the solution and, with hold, its Q held
// fixed (for kernel learning). The solver's errors become the facade's
// (*NotPositiveDefiniteError; a done ctx's as stopped).
func solveMulti(ctx context.Context, b *basis, x mat.Matrix, y []int, nk int, s settings, lik MultiLikelihood, hold bool,
	hook func(step string, bound func() float64)) (*multiclass.Result, *mcFixedQ, error) {
	phi, err := b.fullCtx(ctx, x)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, stopped(ctx, 0)
		}
		return nil, nil, err
	}
	sol, err := multiclass.Fit(ctx, phi, y, nk, mcSettings(s, hook), lik.solver(), hold)
	if err != nil {
		err = notPD(err)
	} else if sol.Interrupted {
		err = stopped(ctx, sol.Iters)
	}
	var q *mcFixedQ
	if sol != nil && hold {
		q = newMCFixedQ(b, s.prior, sol.Held)
	}
	return sol, q, err
}

// secondStart returns the second start (M23) of the converged solution
// sol on basis b (multiclass.SecondStart) if it is cheap and ends with a
// higher full-model bound, else sol. It applies to the softmax model under
// Böhning's bound: when multiclass.RestartIter iterations of the schedule
// cost at most sequential.RestartFlops per class (up to about 245 rows). It runs
// once, after the kernel is learned (the width is chosen by the first
// start's bound).
func (c *MultiClassifier) secondStart(ctx context.Context, b *basis, x mat.Matrix, y []int, nk int, s settings, sol *multiclass.Result) (*multiclass.Result, error) {
	if c.Likelihood != Softmax || s.noMCRestart || !s.prune || s.method == (PaperSchedule{}) || sol.Status != engine.Done {
		return sol, nil
	}
	n, _ := x.Dims()
	np := n
	if b.bias {
		np++
	}
	if float64(multiclass.RestartIter)/sequential.RestartIter*sequential.RestartCost(n, np, false) > sequential.RestartFlops {
		return sol, nil
	}
	phi, err := b.fullCtx(ctx, x)
	if err != nil {
		if ctx.Err() != nil {
			return sol, stopped(ctx, sol.Iters)
		}
		return sol, nil
	}
	return multiclass.SecondStart(ctx, phi, y, nk, mcSettings(s, nil), c.Likelihood.solver(), sol), stopped(ctx, sol.Iters)
}
