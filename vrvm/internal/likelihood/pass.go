package likelihood

import "gonum.org/v1/gonum/mat"

// Pass is the likelihood of a fit at fixed ξ from a pass's statistics:
// uniform precision 1 on A in place of ΦᵀΦ, b in place of Φᵀd, and (60)
// from K, ‖·‖ = μᵀAμ − 2μᵀb (unclamped) and tr(AΣ).
type Pass struct{ k, resid, sumVar float64 }

// SetK sets the constant K of (60) from the pass's statistics.
func (l *Pass) SetK(k float64) { l.k = k }

func (l *Pass) Weights() ([]float64, float64) { return nil, 1 }
func (l *Pass) Data() ([]float64, float64)    { return nil, 1 }
func (l *Pass) RowVariances() bool            { return false }
func (l *Pass) Observe(q *Latent)             { l.resid, l.sumVar = q.SqResid, q.SumVar }
func (l *Pass) Update() float64               { return 0 } // ξ is fixed between passes

// Terms returns (60), K + μᵀb − ½(μᵀAμ + tr(AΣ)).
func (l *Pass) Terms() [3]float64                 { return [3]float64{0, 0, l.k - (l.resid+l.sumVar)/2} }
func (l *Pass) Params(dst []float64) []float64    { return dst }
func (l *Pass) LogParams(dst []float64) []float64 { return dst }
func (l *Pass) SetLogParams([]float64)            {}

// A pass's fit keeps its ξ, takes no second start and gives the Newton
// solver no derivatives.
func (l *Pass) Factor(dst []float64) []float64 { return dst }
func (l *Pass) SetFactor([]float64)            {}
func (l *Pass) Start() Likelihood              { return nil }
func (l *Pass) GammaRows() int                 { return 0 }
func (l *Pass) Labels() []float64              { return nil }
func (l *Pass) TakesBiasStart(bool) bool       { return true }
func (l *Pass) NewtonCopy() Likelihood         { return nil }

func (l *Pass) CountRows([]int, []int, []float64) (Likelihood, func()) { return nil, nil }
func (l *Pass) Hessian(*Collapsed, *mat.SymDense, []float64, *mat.SymDense) bool {
	return false
}
