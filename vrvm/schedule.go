package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
)

// schedule is the paper's schedule (Bishop & Tipping 2000, sections 4 and
// 5): each iteration updates Q_w (23)–(24) or (54)–(55), then every Q_αₘ
// (25)/(57), then the likelihood's factor, Q_τ (26)–(27) or ξ (58), and
// evaluates the bound; with pruning, the functions whose ⟨αₘ⟩ exceeds
// PruneAlpha leave the active set before the next Q_w update.
type schedule struct{}

// scheduleState is the state of the iteration over the active set, on the
// explicit N × M design.
type scheduleState struct {
	lik   likelihood
	prior Prior
	full  *mat.Dense    // design of every candidate function; nil from statistics
	phi   *mat.Dense    // N × M design of the active functions; nil from statistics
	gram  *mat.SymDense // ΦᵀΦ, kept when the likelihood's precisions are uniform
	phiD  []float64     // Φᵀd for the likelihood's fixed data vector d
	cols  []int         // active functions, indices into the full basis
	// A fit from sufficient statistics (stats.go) has no rows: dd = tᵀt,
	// and fullDiag holds diag ΦᵀΦ of every candidate function.
	dd       float64
	fullDiag []float64
	// signedResid keeps statsResid's value below 0: a classifier's pass
	// statistics (statscls.go) have no tᵀt, and the value is then
	// μᵀAμ − 2μᵀb.
	signedResid bool

	q      gaussQ // Q_w (20)
	alpha  gammaQ // Q_α (22)
	alphaW []float64
	lat    latent
	work   *mat.SymDense
	wphi   *mat.Dense
	qwork  *mat.Dense
}

func newScheduleState(phi *mat.Dense, lik likelihood, p Prior, alpha0 float64) *scheduleState {
	s, _ := newScheduleStateContext(context.Background(), phi, lik, p, alpha0)
	return s
}

// newScheduleStateContext is newScheduleState, checking ctx between the
// row blocks of ΦᵀΦ (O(N M²)) for a large design.
func newScheduleStateContext(ctx context.Context, phi *mat.Dense, lik likelihood, p Prior, alpha0 float64) (*scheduleState, error) {
	n, m := phi.Dims()
	s := &scheduleState{lik: lik, prior: p, full: phi, phi: phi, cols: seq(m)}
	s.q.Ctx = ctx
	if beta, _ := lik.Weights(); beta == nil {
		s.gram = mat.NewSymDense(m, nil)
		if n < blockedMin {
			s.gram.SymOuterK(1, phi.T())
		} else {
			raw := phi.RawMatrix()
			for r0 := 0; r0 < n; r0 += blockSize {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r1 := min(r0+blockSize, n)
				rows := blas64.General{Rows: r1 - r0, Cols: m, Stride: raw.Stride, Data: raw.Data[r0*raw.Stride:]}
				blas64.Syrk(blas.Trans, 1, rows, 1, s.gram.RawSymmetric())
			}
		}
	}
	d, _ := lik.Data()
	s.phiD = make([]float64, m)
	mat.NewVecDense(m, s.phiD).MulVec(phi.T(), mat.NewVecDense(n, d))
	// Initialisation: ⟨αₘ⟩ = alpha0 with ãₘ = a + ½.
	s.alpha = gammaOf(p, constant(m, alpha0))
	s.lat.Mean = make([]float64, n)
	if lik.RowVariances() {
		s.lat.Vars = make([]float64, n)
	}
	return s, nil
}

// updateW sets Q_w to its optimum given Q_α and the likelihood's factor,
// Σ = (diag⟨αₘ⟩ + ΦᵀBΦ)⁻¹, μ = ΣΦᵀy ((23)–(24) or (54)–(55)), and passes
// its moments at the training inputs to the likelihood.
func (s *scheduleState) updateW(iter int) error {
	m := len(s.cols)
	beta, uni := s.lik.Weights()
	if s.work == nil || s.work.SymmetricDim() != m {
		s.work = mat.NewSymDense(m, nil)
	}
	if beta == nil {
		s.work.ScaleSym(uni, s.gram)
	} else {
		n, _ := s.phi.Dims()
		if r, c := dims(s.wphi); r != n || c != m {
			s.wphi = mat.NewDense(n, m, nil)
		}
		for i := range n {
			f := math.Sqrt(beta[i])
			src, dst := s.phi.RawRowView(i), s.wphi.RawRowView(i)
			for j, v := range src {
				dst[j] = f * v
			}
		}
		blas64.Syrk(blas.Trans, 1, s.wphi.RawMatrix(), 0, s.work.RawSymmetric())
	}
	s.alphaW = resize(s.alphaW, m)
	for i := range m {
		s.alphaW[i] = s.alpha.mean(i)
		s.work.SetSym(i, i, s.work.At(i, i)+s.alphaW[i])
	}
	if err := s.q.factor(s.work, iter); err != nil {
		return err
	}
	for i := range m {
		s.alphaW[i] += s.q.Jitter
	}
	_, scale := s.lik.Data()
	h := make([]float64, m)
	for i, v := range s.phiD {
		h[i] = scale * v
	}
	if err := s.q.solveMean(h); err != nil {
		return err
	}
	if s.phi == nil {
		s.lat.SqResid = s.statsResid()
	} else {
		n, _ := s.phi.Dims()
		blas64.Gemv(blas.NoTrans, 1, s.phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}, 0, blas64.Vector{N: n, Inc: 1, Data: s.lat.Mean})
	}
	if s.lat.Vars != nil {
		s.qwork = s.q.QuadForms(s.lat.Vars, s.phi, s.qwork)
		s.lat.SumVar = sum(s.lat.Vars)
	} else {
		s.lat.SumVar = lh.UniformSumVar(s.alphaW, s.q.Diag, uni)
	}
	s.lik.Observe(&s.lat)
	return nil
}

// updateAlpha applies (25)/(57).
func (s *scheduleState) updateAlpha() { s.alpha.update(s.prior, &s.q) }

// bound returns L of the active model.
func (s *scheduleState) bound() float64 { return s.alpha.bound(s.prior, &s.q, s.lik.Terms()) }

// params lists the monitored parameters: ⟨αₘ⟩ of the active set, then
// the likelihood's.
func (s *scheduleState) params(dst []float64) []float64 {
	return s.lik.Params(append(dst[:0], s.alpha.means()...))
}

// prune removes the basis functions whose ⟨αₘ⟩ exceeds threshold.
func (s *scheduleState) prune(threshold float64) bool {
	keep, pruned := pruneSet(s.alpha.means(), threshold)
	if !pruned {
		return false
	}
	if s.phi != nil {
		s.phi = selectCols(s.phi, keep)
	}
	if s.gram != nil {
		s.gram = selectSym(s.gram, keep)
	}
	s.phiD = selectVec(s.phiD, keep)
	s.alpha.bt = selectVec(s.alpha.bt, keep)
	s.cols = selectInts(s.cols, keep)
	return true
}

// fit runs the paper's schedule on the full design.
func (schedule) fit(ctx context.Context, p *problem) (*solution, error) {
	phi, err := p.basis.fullCtx(ctx, p.x)
	if err != nil {
		return nil, err
	}
	s, err := newScheduleStateContext(ctx, phi, p.lik, p.set.prior, p.set.alpha0)
	if err != nil {
		return nil, stopped(ctx, 0)
	}
	trace, iters, status, err := s.run(ctx, p.set)
	if status == NotFitted {
		return nil, err
	}
	return s.solution(trace, iters, status), err
}

// run iterates in the paper's order (paperLoop).
func (s *scheduleState) run(ctx context.Context, c settings) (trace []float64, iters int, status Status, err error) {
	return paperLoop(ctx, c, s)
}

// hyper is the update of iteration k after Q_w: Q_α (25), (57), then
// the likelihood's factor, Q_τ (26)–(27) or ξ (58).
func (s *scheduleState) hyper(int, float64) error {
	s.updateAlpha()
	s.lik.Update()
	return nil
}

// active returns the number of active functions.
func (s *scheduleState) active() int { return len(s.cols) }

// paperSteps is a solver that iterates in the paper's order, the paper's
// schedule (scheduleState) and the robust regressor's (robustState).
type paperSteps interface {
	// updateW sets Q_w for the current hyperparameters, (23)–(24).
	updateW(iter int) error
	// prune removes the functions whose ⟨αₘ⟩ exceed threshold and
	// reports whether it removed any.
	prune(threshold float64) bool
	// hyper updates the other factors in iteration k; last is the
	// bound's relative change over iteration k − 1 (+Inf for k = 1).
	hyper(k int, last float64) error
	// bound is L of the active model.
	bound() float64
	// params appends to dst[:0] the parameters whose relative change
	// judges convergence (ParamTol).
	params(dst []float64) []float64
	// active is the number of active functions.
	active() int
}

// paperLoop iterates s in the paper's order: trace[0] is the bound after
// the first Q_w update, at the initial hyperparameters; trace[k] the
// bound after iteration k, which prunes (from the second iteration),
// updates Q_w, then the other factors. It converges when an iteration
// prunes nothing and changes L by at most Tol and the parameters by at
// most ParamTol, relative.
func paperLoop(ctx context.Context, c settings, s paperSteps) (trace []float64, iters int, status Status, err error) {
	if err := s.updateW(1); err != nil {
		if ctx.Err() != nil {
			err = stopped(ctx, 0)
		}
		return nil, 0, NotFitted, err
	}
	trace = []float64{s.bound()}
	prev := s.params(nil)
	var cur []float64
	last := math.Inf(1)
	for k := 1; k <= c.maxIter; k++ {
		if err := stopped(ctx, k-1); err != nil {
			return trace, k - 1, Canceled, err
		}
		pruned := false
		if k > 1 {
			if c.prune {
				pruned = s.prune(c.pruneAt)
			}
			if err := s.updateW(k); err != nil {
				if ctx.Err() != nil {
					// Cancelled inside the factorisation: Q_w and the
					// hyperparameters are those of iteration k − 1, whose
					// bound is the last in the trace.
					return trace, k - 1, Canceled, stopped(ctx, k-1)
				}
				return trace, k - 1, NotFitted, err
			}
			// A large Q_w update can take seconds: look again before
			// the next one, so that an interrupt is honoured promptly.
			// The state stays consistent (Q_w is the optimum for the
			// current hyperparameters).
			if err := stopped(ctx, k-1); err != nil {
				return trace, k - 1, Canceled, err
			}
		}
		if err := s.hyper(k, last); err != nil {
			return trace, k - 1, NotFitted, err
		}
		l := s.bound()
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return trace, k, NotFitted, &NotPositiveDefiniteError{Iteration: k}
		}
		change := relChange(trace[len(trace)-1], l)
		last = change
		trace = append(trace, l)
		cur = s.params(cur)
		pc := maxRelChange(prev, cur)
		prev, cur = cur, prev
		if c.monitor != nil && c.monitor(Progress{Iteration: k, Bound: l, Change: change, Active: s.active()}) {
			return trace, k, Stopped, nil
		}
		if !pruned && change <= c.tol && pc <= c.paramTol {
			return trace, k, Converged, nil
		}
	}
	return trace, c.maxIter, IterationLimit, nil
}

// solution records the state with the full-model bound: the bound of the
// active model plus the closed-form terms of the pruned functions.
func (s *scheduleState) solution(trace []float64, iters int, status Status) *solution {
	l := trace[len(trace)-1]
	q := s.q // Σ from this Q_w, when first needed
	var prec []float64
	if s.full != nil {
		prec = likelihoodPrecisions(s.full, s.lik)
	} else {
		_, beta := s.lik.Weights() // sₘ = ⟨τ⟩ φₘᵀφₘ
		prec = make([]float64, len(s.fullDiag))
		for i, v := range s.fullDiag {
			prec[i] = beta * v
		}
	}
	return &solution{cols: s.cols, mu: append([]float64(nil), s.q.Mu...), sigmaOf: q.sigma, alpha: s.alpha.means(),
		trace: trace, iters: iters, status: status,
		full: l + excludedBound(s.prior, prec, s.cols)}
}
