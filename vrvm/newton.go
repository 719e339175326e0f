package vrvm

import (
	"context"
	"math"
)

// newton is the Newton solver: the paper's schedule T, extrapolated by
// SQUAREM, then Levenberg–Marquardt steps on the collapsed bound F
// (collapsed.go), all on the factored design Φ = U Bᵀ (factor.go) with Q_w
// in Woodbury form (woodbury.go).
type newton struct{}

func (newton) fit(ctx context.Context, p *problem) (*solution, error) {
	f, err := newDesignFactor(ctx, p.basis, p.x)
	if err != nil {
		return nil, err
	}
	return maximiseCollapsed(ctx, f, p)
}

// maximiseCollapsed maximises the collapsed bound over every function of
// f from ⟨αₘ⟩ = Alpha0 and the likelihood's initial parameters.
func maximiseCollapsed(ctx context.Context, f *designFactor, p *problem) (*solution, error) {
	model := newCollapsed(f, p.lik, p.set.prior)
	m := len(f.cols)
	x0 := make([]float64, m)
	for i := range m {
		x0[i] = math.Log(p.set.alpha0)
	}
	x0 = p.lik.logParams(x0)
	fr, status, err := runNewton(ctx, model, p.set, x0, nil)
	if status == NotFitted {
		return nil, err
	}
	return &solution{cols: f.cols, mu: append([]float64(nil), model.w.mu...), sigma: model.w.sigma(), alpha: append([]float64(nil), model.alpha...),
		trace: fr.trace, iters: fr.iters, status: status, full: fr.f + model.excluded()}, err
}
