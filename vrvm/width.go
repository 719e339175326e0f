package vrvm

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// The default width of Regressor (a nil Kernel) maximises the evidence of
// the dense model (W1)–(W4), (W6), computed by package kernlearn
// (docs/design.md, "The default width"), and is doubled while the sparse
// fit at it is crowded (W5), fitWidened below.

// widthMaxUp is the number of doublings of the width, at most, of the
// search (W4) and of (W5).
const widthMaxUp = kernlearn.MaxUp

// errFlatTargets is returned by denseWidth for targets without
// variation, which every width explains equally.
var errFlatTargets = kernlearn.ErrFlatTargets

// gaussianAt returns the Gaussian kernel of width r, the kernel of the
// dense model (W1).
func gaussianAt(r float64) kernlearn.Kernel { return Gaussian{Width: r} }

// denseWidth returns the width r of the Gaussian kernel that maximises
// E(r) (W4) on the rows of x, starting from r0 > 0, and the evidence it
// reached; r0 where E is the noise alone's at every width (W6).
func denseWidth(ctx context.Context, x mat.Matrix, t []float64, r0 float64) (float64, float64, error) {
	return kernlearn.DenseWidth(ctx, rowsOf(x), t, r0, gaussianAt)
}

// widthCrowded is the largest effective number of parameters γ, as a
// fraction of the rows, of the fit at the default width (W5).
const widthCrowded = 0.5

// fitWidened fits p, the problem at the default width of (W4), and
// returns its fit unless the fit's effective number of parameters γ
// exceeds widthCrowded times the rows; then it fits again at twice the
// width, up to widthMaxUp times, and keeps the first fit that does not
// (W5), or the last. The sequential solver stops a fit as soon as its γ
// passes the limit, so that a crowded fit costs little; the other
// solvers are judged by their final fit. The Monitor sees every fit, each
// from iteration 1, and a fit it stops is the model. o holds the kernel of p; x and
// t are the training rows; v and newLik are as for fitVariational.
func (f *fitted) fitWidened(ctx context.Context, o options, x mat.Matrix, t []float64, p *problem, v variational,
	newLik func(settings, []float64) (likelihood, error)) (likelihood, error) {
	limit := widthCrowded * float64(len(t))
	userStop := false
	if user := p.set.monitor; user != nil {
		p.set.monitor = func(pr Progress) bool { userStop = user(pr); return userStop }
	}
	for {
		guard := !p.set.noWiden && f.widthDoublings < widthMaxUp
		if guard {
			p.set.gammaLimit = limit
		}
		sol, err := p.set.method.algorithm().fit(ctx, p)
		if !guard || userStop || err != nil || sol == nil || ctx != nil && ctx.Err() != nil ||
			!(effectiveParameters(sol) > limit) {
			return f.finish(p, sol, nil, v, err)
		}
		o.kernel = doubledKernel(o.kernel)
		f.widthDoublings++
		s, b, lik, err := prepareLik(o, x, t, false, newLik)
		if err != nil {
			return nil, err
		}
		s.monitor = p.set.monitor
		p = &problem{basis: b, x: x, lik: lik, set: s}
	}
}

// effectiveParameters returns γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) of the solution sol,
// whose Σ it computes if the solver left it to be computed on use.
func effectiveParameters(sol *solution) float64 {
	if sol.sigma == nil && sol.sigmaOf != nil {
		sol.sigma = sol.sigmaOf() // computed once, and recorded with the fit
	}
	if sol.sigma == nil {
		return 0
	}
	return posterior.EffectiveParams(sol.alpha, sol.sigma)
}
