package vrvm

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// The factors of the variational posterior over the weights and their
// precisions. Q_w is held in one of two forms: gaussQ (here), the Cholesky
// factor of its M × M precision, used by the paper's schedule, the
// sequential solver and the type-II RVM; and woodQ (woodbury.go), its
// low-rank Woodbury form on the factored design, used by the Newton
// solver.

// gaussQ is the Gaussian factor Q_w(w) = N(w | μ, Σ) (20), held through the
// Cholesky factor of its precision Σ⁻¹ = UᵀU: a posterior.Gauss
// (vrvm/internal/posterior, shared with the internal solvers), whose
// Factor, SolveMean and Sigma it calls (and the sequential solver its
// FactorInv, SolveMeanInv and SigmaTo). Σ itself is not formed by factor:
// diag Σ comes from U⁻¹ (Σ = U⁻¹U⁻ᵀ).
type gaussQ struct {
	posterior.Gauss
}

// blockedMin and blockSize are posterior.BlockedMin and
// posterior.BlockSize: the size from which the factorisation works in
// blocks, checking q.ctx between them, and the blocks' size.
const (
	blockedMin = posterior.BlockedMin
	blockSize  = posterior.BlockSize
)

// factor factorises the precision a (which it may modify by adding jitter)
// and computes ln|Σ|, U⁻¹ and diag Σ, by posterior.Gauss.Factor. iter is
// used in error messages.
func (q *gaussQ) factor(a *mat.SymDense, iter int) error {
	return notPD(q.Factor(a, iter))
}

// notPD returns a *posterior.NotPDError as a *NotPositiveDefiniteError,
// and any other error as it is.
func notPD(err error) error {
	var e *posterior.NotPDError
	if errors.As(err, &e) {
		return &NotPositiveDefiniteError{Iteration: e.Iteration, Jitter: e.Jitter}
	}
	return err
}

// solveMean sets μ = Σ h.
func (q *gaussQ) solveMean(h []float64) error { return q.SolveMean(h) }

// sigma returns Σ = U⁻¹U⁻ᵀ (posterior.Gauss.Sigma).
func (q *gaussQ) sigma() *mat.SymDense { return q.Sigma() }

// gammaQ is a product of Gamma factors Q_α(α) = ∏ₘ Γ(αₘ | ã, b̃ₘ) (22), (56).
type gammaQ struct {
	at float64   // ãₘ = a + ½ for every m (25), (57)
	bt []float64 // b̃ₘ
}

// gammaOf returns the Q_α with ã = a + ½ and means ⟨αₘ⟩ = alpha[m].
func gammaOf(p Prior, alpha []float64) gammaQ {
	g := gammaQ{at: p.A + 0.5, bt: make([]float64, len(alpha))}
	for i, a := range alpha {
		g.bt[i] = g.at / a
	}
	return g
}

// mean returns ⟨αₘ⟩ = ã/b̃ₘ.
func (g *gammaQ) mean(m int) float64 { return g.at / g.bt[m] }

// means returns every ⟨αₘ⟩.
func (g *gammaQ) means() []float64 {
	a := make([]float64, len(g.bt))
	for i := range a {
		a[i] = g.mean(i)
	}
	return a
}

// update applies (25)/(57): ã = a + ½, b̃ₘ = b + ⟨wₘ²⟩/2.
func (g *gammaQ) update(p Prior, q *gaussQ) {
	g.at = p.A + 0.5
	for m := range g.bt {
		g.bt[m] = p.B + q.SecondMoment(m)/2
	}
}

// bound returns L for Q_α = g, Q_w = q and the likelihood's terms lik.
func (g *gammaQ) bound(p Prior, q *gaussQ, lik [3]float64) float64 {
	return bound(p, g.at, g.bt, q.SecondMoments(), q.LogDet, lik)
}
