// Package rvm is the solver of the type-II maximum likelihood relevance
// vector machine (Tipping 2001) for regression and binary classification:
// point estimates of the weight precisions αₘ (and of the noise
// precision β) that maximise the evidence, and the Gaussian posterior
// over the weights given them, by the sequential algorithm of Tipping &
// Faul (2003) through engine.Run (Sequential) or by the re-estimation of
// Tipping (2001) from every function (Schedule). Equations (R1)–(R9)
// are those of the library's design notes (docs/design.md).
//
// The facade (package vrvm, whose RVMRegressor and RVMClassifier call
// it) builds the inputs, a Design or the full design matrix, a
// Likelihood and Settings, and reads back a Result. The package imports
// nothing of the library it serves.
package rvm

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// ErrZeroBasis is returned by Sequential when every candidate function is
// zero at the training inputs: there is nothing to fit.
var ErrZeroBasis = errors.New("every basis function is zero at the training inputs")

// Settings are the controls of a fit, resolved by the caller (no field has
// a default here).
type Settings struct {
	// Alpha0 is the initial αₘ of every function for Schedule, and of the
	// first function for Sequential when the evidence has no finite
	// optimum for it.
	Alpha0 float64
	// PruneAt is the threshold on αₘ above which a function is removed
	// (Schedule) or counts as deleted, αₘ = ∞ (Sequential).
	PruneAt float64
	// MaxIter is the largest number of iterations.
	MaxIter int
	// Tol is the largest change of any ln αₘ, and of ln β, at convergence.
	Tol float64
	// GammaLimit, if positive, stops a Sequential fit (engine.Stopped)
	// once both its active functions and its effective parameters
	// γ = Σₘ(1 − αₘΣₘₘ) exceed it ((W5), (R6)): the caller fits again at
	// twice the width.
	GammaLimit float64
	// Monitor, if not nil, is called after every iteration with the log
	// evidence (or Laplace's approximation of it) as Bound; returning
	// true ends the fit with engine.Stopped.
	Monitor func(engine.Progress) bool
}

// Likelihood is the likelihood of the targets T: Gaussian noise of
// precision β (regression) or, if Logistic, the logistic likelihood of
// labels in {0, 1} (classification), whose posterior over the weights is
// approximated by Laplace's method at its mode.
type Likelihood struct {
	T        []float64
	Logistic bool
	// Beta0 is regression's initial β (positive).
	Beta0 float64
}

// Design is the factorisation Φ = U Bᵀ, UᵀU = I, of the design of the
// candidate functions at the N training inputs (the facade's factor.go,
// (R9)): ΦᵀΦ = BBᵀ and Φᵀt = BUᵀt.
type Design struct {
	// U is N × r with orthonormal columns; nil if Explicit.
	U *mat.Dense
	// B is M × r, one row per candidate function.
	B *mat.Dense
	// Cols are the candidates' indices into the full basis.
	Cols []int
	// Explicit marks the explicit design: U = I (not stored), B = Φᵀ.
	Explicit bool
}

// Result is the outcome of a fit: the posterior N(Mu, Sigma) over the
// weights of the active functions Cols (indices into the full basis, in
// increasing order), their precisions Alpha, and the noise precision Beta
// (regression; 0 for classification).
type Result struct {
	Cols  []int
	Alpha []float64
	Mu    []float64
	Sigma *mat.SymDense
	Beta  float64
	// Trace holds the log evidence (or Laplace's approximation) of every
	// iteration; it is empty if the fit ended before its first.
	Trace  []float64
	Iters  int
	Status engine.Status
}

// finish sets res's posterior from q, once the fit is over.
func (res *Result) finish(q *posterior.Gauss, beta float64) {
	res.Mu = append([]float64(nil), q.Mu...)
	res.Sigma = q.Sigma()
	res.Beta = beta
}

// Schedule fits by the re-estimation of Tipping (2001) from all the
// functions of the full design phi (N × M), each αₘ = set.Alpha0
// (reestimate). A *posterior.NotPDError reports a posterior precision
// that could not be factorised.
func Schedule(ctx context.Context, phi *mat.Dense, lik Likelihood, set Settings) (Result, error) {
	n, m := phi.Dims()
	if lik.Logistic {
		var q posterior.Gauss
		res, err := reestimate(ctx, set, &logisticModel{phi: phi, t: lik.T, w: make([]float64, m)}, &q)
		if err != nil {
			return res, err
		}
		res.finish(&q, 0)
		return res, nil
	}
	g := &gaussModel{phi: phi, t: lik.T, beta: lik.Beta0, betaMax: betaCap(lik.T), resid: make([]float64, n)}
	g.gram = mat.NewSymDense(m, nil)
	g.gram.SymOuterK(1, phi.T())
	g.phiT = make([]float64, m)
	mat.NewVecDense(m, g.phiT).MulVec(phi.T(), mat.NewVecDense(n, lik.T))
	if ctx.Err() != nil {
		return Result{Beta: lik.Beta0, Status: engine.Canceled}, nil
	}
	q := posterior.Gauss{Ctx: ctx}
	res, err := reestimate(ctx, set, g, &q)
	if err != nil {
		return res, err
	}
	res.finish(&q, g.beta)
	return res, nil
}

// Sequential fits by the sequential algorithm of Tipping & Faul (2003)
// on the factored design d, from the one function most aligned with the
// targets (run).
func Sequential(ctx context.Context, d *Design, lik Likelihood, set Settings) (Result, error) {
	t := lik.T
	if lik.Logistic {
		t = make([]float64, len(lik.T)) // 2t − 1
		for i, v := range lik.T {
			t[i] = 2*v - 1
		}
	}
	st, proj := newState(ctx, d, t)
	first := st.mostAligned(proj)
	if first < 0 {
		return Result{}, ErrZeroBasis
	}
	a0 := set.Alpha0
	if lik.Logistic {
		st.logit = &logitState{t: lik.T}
		// Start from the function most aligned with 2t − 1, with
		// αₘ = 1/w² for the least-squares weight w of the logits ±ln 9
		// (probabilities 0.9 and 0.1) on it, within [10⁻³, 10³] (as
		// SparseBayes).
		if w := math.Log(9) * proj[first] / st.diag[first]; w != 0 {
			a0 = math.Min(1e3, math.Max(1e-3, 1/(w*w)))
		}
		st.logit.w = []float64{0}
	} else {
		st.beta, st.betaMax = lik.Beta0, betaCap(t)
		// Start from the function most aligned with t, |φₘᵀt|/‖φₘ‖, with
		// αₘ at its optimum (R3) for C = β⁻¹I, or Alpha0 if it has none
		// (Tipping & Faul, section 4; SparseBayes).
		s0, q0 := st.beta*st.diag[first], st.beta*proj[first]
		if theta := q0*q0 - s0; theta > 0 {
			a0 = s0 * s0 / theta
		}
	}
	st.active, st.alpha = []int{first}, []float64{a0}
	res, err := st.run(ctx, set)
	if err != nil {
		return res, err
	}
	res.finish(&st.q, st.beta)
	return res, nil
}

// newState returns the state of the sequential algorithm on the design d
// with nothing active, and φₘᵀt for every candidate.
func newState(ctx context.Context, d *Design, t []float64) (*state, []float64) {
	n := len(t)
	m, rank := d.B.Dims()
	st := &state{d: d, n: n, q: posterior.Gauss{Ctx: ctx}, betaMax: math.Inf(1)}
	if d.Explicit {
		st.z = append([]float64(nil), t...) // U = I
	} else {
		st.z = make([]float64, rank)
		blas64.Gemv(blas.Trans, 1, d.U.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: t}, 0, blas64.Vector{N: rank, Inc: 1, Data: st.z})
	}
	st.tt = blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: t}, blas64.Vector{N: n, Inc: 1, Data: t})
	st.zz = blas64.Dot(blas64.Vector{N: rank, Inc: 1, Data: st.z}, blas64.Vector{N: rank, Inc: 1, Data: st.z})
	st.diag = make([]float64, m)
	proj := make([]float64, m) // φₘᵀt = Bₘ·Uᵀt
	blas64.Gemv(blas.NoTrans, 1, d.B.RawMatrix(), blas64.Vector{N: rank, Inc: 1, Data: st.z}, 0, blas64.Vector{N: m, Inc: 1, Data: proj})
	for i := range m {
		row := d.B.RawRowView(i)
		st.diag[i] = blas64.Dot(blas64.Vector{N: rank, Inc: 1, Data: row}, blas64.Vector{N: rank, Inc: 1, Data: row})
	}
	return st, proj
}
