package multiclass

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// Likelihood selects the likelihood of the multi-class model.
type Likelihood int

const (
	// Softmax (the zero value) is the softmax likelihood (M1) under
	// Böhning's bound (M3), with the means at the posterior mode (M18).
	Softmax Likelihood = iota
	// Probit is the multinomial probit with auxiliary variables (P1),
	// one precision per function shared by the classes (P2).
	Probit
	// Adaptive is the softmax likelihood (M1) under the adaptive-curvature
	// bound of Jebara & Choromanska (M19).
	Adaptive
)

// ErrBoundNaN is the error of a fit whose bound became NaN (Fit wraps it
// with the iteration).
var ErrBoundNaN = errors.New("vrvm: the multi-class lower bound became NaN (a numerical failure; a wider kernel may help)")

// Settings are the controls of a fit, resolved by the caller: the numeric
// fields have no default here; the zero value of every boolean is the
// default behaviour.
type Settings struct {
	// Prior is the Gamma prior of every weight precision αₘₖ (M2).
	Prior bound.Prior
	// Bias marks the design's first column as the bias function (the
	// start of the sequential solver and of (M24)).
	Bias bool
	// NoPrune keeps every function to the end: the paper's schedule and
	// the sequential solver start from all and remove none.
	NoPrune bool
	// Paper selects the paper's schedule, (M6), (P11), in place of the
	// sequential solver, (S1), (P12), (M16), (P13).
	Paper bool
	// PruneAt is the threshold on ⟨αₘₖ⟩ above which a function is
	// removed; Alpha0 the initial ⟨αₘₖ⟩.
	PruneAt, Alpha0 float64
	// MaxIter is the largest number of iterations.
	MaxIter int
	// Tol bounds the relative change of the bound, ParamTol that of ⟨α⟩
	// and of the likelihood's variational parameters, at convergence.
	Tol, ParamTol float64
	// Monitor, if not nil, is called after every iteration with the
	// full-model bound; returning true ends the fit (engine.Stopped).
	Monitor func(engine.Progress) bool
	// Hook, if not nil, is called after every factor update with the
	// step's name and a function returning the bound (tests).
	Hook func(step string, bound func() float64)
	// ProbitBlockStep makes (P8) step with each class's block of the
	// Hessian at any size, never the joint MK × MK step.
	ProbitBlockStep bool
	// NoHeldRestart turns off the restart from the held bias (M24).
	NoHeldRestart bool
}

// Result is a fit's outcome over the active functions Cols (indices into
// the design's columns, in increasing order): the means Mu (M × K), the
// precisions AlphaK (M × K, 0 where a function is not active in a class)
// and each class's covariance Sigmas[k] (zero rows and columns there).
type Result struct {
	Cols   []int
	Mu     *mat.Dense
	AlphaK *mat.Dense
	Sigmas []*mat.SymDense
	// Trace holds the full-model bound of every iteration, the first
	// before the first iteration; its last entry is the fit's bound.
	Trace  []float64
	Iters  int
	Status engine.Status
	// Interrupted reports that the context was done when the first
	// solve ended (the caller's error).
	Interrupted bool
	// Held is the fitted Q held fixed for kernel learning (K9), set by
	// Fit with hold (also when it returns an error with a Result).
	Held *Held
}

// Held is a fitted multi-class Q held fixed while the kernel parameters
// move (K9)–(K10): what the terms of the full-model bound that depend on
// the design need.
type Held struct {
	// Y are the training rows' classes; Probit marks the probit's Q.
	Y      []int
	Probit bool
	// C is the curvature of each class's activation: Böhning's
	// c₀ = ½(1 − 1/K) (M4), or 1 for the probit (P3).
	C float64
	// Psi are the expansion points ψ (N × K); for the probit Ytil and
	// LnZ are Q(Y)'s means ỹ and normalisers (P4)–(P5) at ψ.
	Psi, Ytil *mat.Dense
	LnZ       []float64
	// Curv, for the bound (M19), holds the curvatures Aₙ at ψ
	// (N × K × K), in place of C.
	Curv    []float64
	Classes []HeldClass
}

// HeldClass is class k's Q(wₖ): its active columns of the design, its
// means, its covariance Σₖ with ln|Σₖ|, and the precisions ⟨α⟩ of its
// active functions (the probit's classes share Act, Sig and Alpha).
type HeldClass struct {
	Act    []int
	Mu     []float64
	Sig    *mat.Dense
	LogDet float64
	Alpha  []float64
}

// Fit fits the multi-class model to the design phi (N × P, every
// candidate function) and the classes y (0 … k−1) by the sequential
// solver or the paper's schedule, with the restart from the held bias
// (M24) where the first fit kept the bias alone in some class; with
// hold, the Result holds its Q fixed (Held). The error wraps ErrBoundNaN
// (with a Result) or is a *posterior.NotPDError (without one).
func Fit(ctx context.Context, phi *mat.Dense, y []int, k int, set Settings, lik Likelihood, hold bool) (*Result, error) {
	p := newMCProblem(phi, y, k, set, lik)
	sol, err := p.solve(ctx)
	if err == nil && !sol.Interrupted && p.biasOnly() {
		if p2, alt := heldRestart(ctx, phi, y, k, set, lik, sol); alt != nil {
			p, sol = p2, alt
			sol.Interrupted = false
		}
	}
	if sol != nil && hold {
		sol.Held = p.lik.hold()
	}
	return sol, err
}

// held returns the softmax problem's Q held fixed, with the curvature c
// (Böhning's c₀) or, if curv is not nil, the curvatures Aₙ of the bound
// (M19).
func (p *mcProblem) held(c float64, curv []float64) *Held {
	h := &Held{Y: p.y, C: c, Psi: mat.DenseCopyOf(p.psi), Curv: curv}
	for _, b := range p.cls {
		h.Classes = append(h.Classes, HeldClass{Act: append([]int(nil), b.act...), Mu: b.vec(), Sig: mat.DenseCopyOf(b.sig),
			LogDet: b.logDet, Alpha: append([]float64(nil), b.alpha...)})
	}
	return h
}

// Bound returns the full-model bound L of the held Q on the design phi
// (N × P: the same functions, at other kernel parameters), with the prior
// pr: the solver's L ((M9)–(M15), (M20), (P6), (P11), (P13)) with every
// factor held, of which F of (K9) is the part that depends on the design.
func (h *Held) Bound(phi *mat.Dense, pr bound.Prior) float64 {
	k := len(h.Classes)
	p := &mcProblem{y: h.Y, k: k, prior: pr, psi: mat.DenseCopyOf(h.Psi)}
	p.setDesign(phi)
	switch {
	case h.Probit:
		p.lik = &probitLik{p: p, ytil: h.Ytil, lnZ: h.LnZ}
		c := h.Classes[0]
		mu := mat.NewDense(max(len(c.Act), 1), k, nil)
		for j, hc := range h.Classes {
			for i, v := range hc.Mu {
				mu.Set(i, j, v)
			}
		}
		b := &mcBlock{mcActive: mcActive{act: c.Act, alpha: c.Alpha, sig: c.Sig, logDet: c.LogDet}, q: k, fixed: mu}
		p.cls = []*mcBlock{b}
		return p.bound()
	case h.Curv != nil:
		p.lik = &jcLik{p: p, curv: h.Curv}
	default:
		p.lik = newBohningLik(p)
	}
	for _, c := range h.Classes {
		b := &mcBlock{mcActive: mcActive{act: c.Act, alpha: c.Alpha, sig: c.Sig, logDet: c.LogDet}, q: 1}
		b.setVec(c.Mu)
		if b.fixed == nil {
			b.fixed = mat.NewDense(1, 1, nil) // no active function
		}
		p.cls = append(p.cls, b)
	}
	return p.bound()
}
