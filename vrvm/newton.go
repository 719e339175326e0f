package vrvm

import "context"

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
