package vrvm

import lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"

// gaussLik is the Gaussian likelihood of regression (2) with its factor
// Q_τ = Γ(τ | c̃, d̃) (21).
type gaussLik = lh.Gauss

// newGaussLik starts Q_τ at ⟨τ⟩ = tau0 with c̃ = c + N/2 (26, settled).
func newGaussLik(t []float64, p Prior, tau0 float64) *gaussLik {
	return newGaussLikRows(t, len(t), p, tau0)
}

// newGaussLikRows is newGaussLik for n rows whose targets t may be nil
// (a fit from sufficient statistics, whose solver observes SqResid).
func newGaussLikRows(t []float64, n int, p Prior, tau0 float64) *gaussLik {
	return lh.NewGauss(t, n, p.C, p.D, tau0)
}
