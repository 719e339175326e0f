package vrvm

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/engine"
)

// The sequential algorithm of Tipping & Faul (2003), "Fast marginal
// likelihood maximisation for sparse Bayesian models", for the type-II
// maximum likelihood RVM (Sequential); equations (R1)–(R5) in docs/design.md.
// Each iteration computes sₘ and qₘ (R2) for every candidate function by
// (R5), takes the move with the largest gain (R4) (the gains are those
// of SparseBayes), and re-estimates β (Tipping 2001, eq. 47). (R5) needs
// φₘᵀφⱼ for every candidate and active pair: SparseBayes keeps ΦᵀΦ
// (N × N for a kernel design) or recomputes columns; here they come from
// the factorisation Φ = U Bᵀ of the design that the variational
// Sequential solver uses (factor.go: pivoted Cholesky of the kernel
// matrix, rank r, tens for a smooth kernel), so that ΦᵀΦ = BBᵀ and
// Φᵀt = B Uᵀt, and all the sₘ, qₘ cost O(M r k) per iteration for k
// active functions. Memory is O((N + M) r), no N × N matrix.

// rvmState is the state of the sequential algorithm for regression: the
// factorisation of the candidates, the active set with its αₘ, β, and
// the posterior over the active weights.
type rvmState struct {
	f      *designFactor
	n      int       // training rows
	z      []float64 // Uᵀt
	tt, zz float64   // ‖t‖², ‖Uᵀt‖²
	diag   []float64 // φₘᵀφₘ = ‖Bₘ‖² for every candidate

	active []int     // candidate indices, in the order added
	alpha  []float64 // αₘ of the active functions
	beta   float64
	// betaMax caps β (rvmBetaMax for regression; +∞ for classification,
	// which has no β).
	betaMax float64
	q       gaussQ
	ba      *mat.Dense // rows of B of the active functions
	// gram holds, for each active function j (in the order of active),
	// Φᵀφⱼ = B Bⱼᵀ over every candidate: computed once when j is added
	// (O(M r)), so that neither ΦᵀΦ_A (R5) nor Φ_AᵀΦ_A (eq. 45) is
	// recomputed by iteration.
	gram   [][]float64
	gramOf []int   // the candidates of gram's columns
	rss    float64 // ‖t − Φμ‖²

	// logit, for classification, holds the labels and the Laplace
	// approximation's state; nil for regression.
	logit *rvmLogit
}

// rvmLogit is the classification part of rvmState: the posterior over the
// active weights is Laplace's approximation at the mode (laplaceMode),
// whose Gaussian with the effective targets t̂ = Φμ + W⁻¹(t − y),
// W = diag(yₙ(1 − yₙ)), makes (R1)–(R5) hold with β replaced by W
// (Tipping & Faul 2003, section 5):
//
//	Sₘ = φₘᵀWφₘ − φₘᵀWΦΣΦᵀWφₘ,   Qₘ = φₘᵀ(t − y).
type rvmLogit struct {
	t  []float64
	w  []float64 // the mode of the active weights, the next search's start
	y  []float64 // σ(Φμ) at the mode
	ev float64   // Laplace's approximation of the log evidence
}

// posterior sets Σ = (A + βΦᵀΦ)⁻¹ and μ = βΣΦᵀt for the active set
// (Tipping 2001, eq. 45) and the residual ‖t − Φμ‖².
func (st *rvmState) posterior(iter int) error {
	k := len(st.active)
	_, r := st.f.b.Dims()
	st.ba = selectRows(st.f.b, st.active)
	if st.logit != nil {
		return st.laplace(iter)
	}
	st.syncGram()
	a := mat.NewSymDense(k, nil)
	for i, c := range st.active {
		for j := i; j < k; j++ {
			a.SetSym(i, j, st.beta*st.gram[j][c])
		}
		a.SetSym(i, i, a.At(i, i)+st.alpha[i])
	}
	if err := st.q.factor(a, iter); err != nil {
		return err
	}
	h := make([]float64, k)
	blas64.Gemv(blas.NoTrans, st.beta, st.ba.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: st.z}, 0, blas64.Vector{N: k, Inc: 1, Data: h})
	if err := st.q.solveMean(h); err != nil {
		return err
	}
	// ‖t − Φμ‖² = ‖t‖² − ‖Uᵀt‖² + ‖Uᵀt − Bᵀμ‖² (t outside U's span, then inside).
	e := st.residual()
	st.rss = math.Max(0, st.tt-st.zz) + blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: e}, blas64.Vector{N: r, Inc: 1, Data: e})
	return nil
}

// syncGram makes gram hold Φᵀφⱼ for the active functions, in the order
// of active, keeping the columns already computed: O(M r) per function
// added since the last call.
func (st *rvmState) syncGram() {
	have := make(map[int][]float64, len(st.gram))
	for j, g := range st.gram {
		if j < len(st.gramOf) {
			have[st.gramOf[j]] = g
		}
	}
	m, r := st.f.b.Dims()
	gram := make([][]float64, len(st.active))
	for j, c := range st.active {
		if g, ok := have[c]; ok {
			gram[j] = g
			continue
		}
		g := make([]float64, m)
		blas64.Gemv(blas.NoTrans, 1, st.f.b.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: st.f.b.RawRowView(c)}, 0, blas64.Vector{N: m, Inc: 1, Data: g})
		gram[j] = g
	}
	st.gram, st.gramOf = gram, append(st.gramOf[:0], st.active...)
}

// laplace sets q to Laplace's approximation of the posterior for
// classification, at the mode found by IRLS from the last one, and the
// approximation of the log evidence, ln p(t|w*) − ½w*ᵀAw* + ½Σ ln αₘ
// + ½ln|Σ|.
func (st *rvmState) laplace(iter int) error {
	n := st.n
	k := len(st.active)
	phi := mat.NewDense(n, k, nil)
	if st.f.ident {
		phi.Copy(st.ba.T()) // Φ_A = B_Aᵀ
	} else {
		mul(phi, st.f.u, st.ba.T()) // Φ_A = U B_Aᵀ
	}
	lg := st.logit
	logp, err := laplaceMode(phi, lg.t, st.alpha, lg.w, &st.q, iter)
	if err != nil {
		return err
	}
	var sumLnA float64
	for _, a := range st.alpha {
		sumLnA += math.Log(a)
	}
	lg.ev = logp + 0.5*sumLnA + 0.5*st.q.logDet
	copy(lg.w, st.q.mu)
	lg.y = resize(lg.y, n)
	blas64.Gemv(blas.NoTrans, 1, phi.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: st.q.mu}, 0, blas64.Vector{N: n, Inc: 1, Data: lg.y})
	for i, a := range lg.y {
		lg.y[i] = Sigmoid(a)
	}
	return nil
}

// residual returns Uᵀt − B_Aᵀμ, the residual t − Φμ in U's coordinates.
func (st *rvmState) residual() []float64 {
	k := len(st.active)
	_, r := st.f.b.Dims()
	e := append([]float64(nil), st.z...)
	blas64.Gemv(blas.Trans, -1, st.ba.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: st.q.mu}, 1, blas64.Vector{N: r, Inc: 1, Data: e})
	return e
}

// logEvidence returns ln p(t | α, β) at the current posterior
// (rvmLogEvidence).
func (st *rvmState) logEvidence() float64 {
	if st.logit != nil {
		return st.logit.ev
	}
	return rvmLogEvidence(st.n, st.beta, st.alpha, st.q.mu, st.q.logDet, st.rss)
}

// rvmLogEvidence is ln p(t | α, β) = ln N(t | 0, β⁻¹I + ΦA⁻¹Φᵀ) written
// with the posterior's quantities: −½{N ln 2π − N ln β − Σ ln αₘ − ln|Σ|
// + β‖t − Φμ‖² + μᵀAμ}.
func rvmLogEvidence(n int, beta float64, alpha, mu []float64, logDetSigma, rss float64) float64 {
	var sumLnA, muAmu float64
	for i, a := range alpha {
		sumLnA += math.Log(a)
		muAmu += a * mu[i] * mu[i]
	}
	return -0.5 * (float64(n)*ln2Pi - float64(n)*math.Log(beta) - sumLnA - logDetSigma + beta*rss + muAmu)
}

// factors returns sₘ and qₘ (R2) for every candidate by (R5), and the
// positions of the active functions in the candidate list (−1 for
// inactive). A candidate whose Sₘ is lost to rounding beside βφₘᵀφₘ (it
// lies in the span of the active functions) gets sₘ = NaN: it cannot be
// added.
func (st *rvmState) factors() (s, q []float64, pos []int) {
	m, r := st.f.b.Dims()
	k := len(st.active)
	// φₘᵀφⱼ for the active j: for the alignment test, and (times β) the
	// φₘᵀWΦ_A of regression.
	st.syncGram()
	cross := mat.NewDense(m, k, nil)
	for j, g := range st.gram {
		blas64.Copy(blas64.Vector{N: m, Inc: 1, Data: g}, blas64.Vector{N: m, Inc: k, Data: cross.RawMatrix().Data[j:]})
	}
	// wDiag = φₘᵀWφₘ, x = φₘᵀWΦ_A and qv = Uᵀ(t − y) (classification) or
	// βUᵀ(t − Φμ) (regression), for W = βI or diag(yₙ(1 − yₙ)).
	var wDiag []float64
	var x *mat.Dense
	var qv []float64
	if lg := st.logit; lg != nil && st.f.ident {
		wDiag, x, qv = st.explicitFactors(lg, k)
	} else if lg != nil {
		n, _ := st.f.u.Dims()
		wu := mat.NewDense(n, r, nil)
		e := make([]float64, n)
		for i, y := range lg.y {
			w := y * (1 - y)
			for j, v := range st.f.u.RawRowView(i) {
				wu.Set(i, j, w*v)
			}
			e[i] = lg.t[i] - y
		}
		var kw, bk mat.Dense
		mul(&kw, st.f.u.T(), wu) // UᵀWU
		mul(&bk, st.f.b, &kw)
		wDiag = make([]float64, m)
		for i := range m {
			wDiag[i] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: bk.RawRowView(i)}, blas64.Vector{N: r, Inc: 1, Data: st.f.b.RawRowView(i)})
		}
		x = mat.NewDense(m, k, nil)
		mul(x, &bk, st.ba.T())
		qv = make([]float64, r)
		blas64.Gemv(blas.Trans, 1, st.f.u.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: e}, 0, blas64.Vector{N: r, Inc: 1, Data: qv})
	} else {
		wDiag = make([]float64, m)
		for i, d := range st.diag {
			wDiag[i] = st.beta * d
		}
		x = mat.NewDense(m, k, nil)
		x.Scale(st.beta, cross)
		qv = st.residual()
		for i := range qv {
			qv[i] *= st.beta
		}
	}
	// ‖x Σ^½‖²: x U⁻¹ row by row, Σ = U⁻¹U⁻ᵀ.
	h := mat.DenseCopyOf(x)
	blas64.Trmm(blas.Right, blas.NoTrans, 1, st.q.uinv.RawTriangular(), h.RawMatrix())
	s, q = make([]float64, m), make([]float64, m)
	blas64.Gemv(blas.NoTrans, 1, st.f.b.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: qv}, 0, blas64.Vector{N: m, Inc: 1, Data: q})
	const lost = 1e-10 // relative size of Sₘ below which it is rounding
	for i := range m {
		hi := h.RawRowView(i)
		b := wDiag[i]
		s[i] = b - blas64.Dot(blas64.Vector{N: k, Inc: 1, Data: hi}, blas64.Vector{N: k, Inc: 1, Data: hi})
		if !(s[i] > lost*b) {
			s[i] = math.NaN()
			continue
		}
		for j, c := range cross.RawRowView(i) {
			if a := st.active[j]; a != i && c*c > maxAlignment*maxAlignment*st.diag[i]*st.diag[a] {
				s[i] = math.NaN()
				break
			}
		}
	}
	pos = make([]int, m)
	for i := range pos {
		pos[i] = -1
	}
	for j, c := range st.active {
		pos[c] = j
		d := st.q.diag[j]
		s[c] = 1/d - st.alpha[j]
		q[c] = st.q.mu[j] / d
	}
	return s, q, pos
}

// maxAlignment is the largest cosine φₘᵀφⱼ/(‖φₘ‖‖φⱼ‖) between a
// candidate and an active function for which the candidate may be added
// (SparseBayes's AlignmentMax): a function (nearly) parallel to one in the
// model adds (almost) nothing but rounding, and dense inputs have many.
const maxAlignment = 1 - 1e-4

// bestMove returns the move with the largest gain (R4), the largest
// change |Δ ln αₘ| a re-estimate would make, and whether any function is
// to be added or deleted. Deletion of the last active
// function, and addition or re-estimation to an αₘ above prune, are not
// considered (an αₘ above prune counts as ∞: the function is deleted).
func bestMove(s, q []float64, pos []int, alpha []float64, prune float64) (best engine.Move, change float64, structural bool) {
	nActive := len(alpha)
	for c := range s {
		sc, qc := s[c], q[c]
		if math.IsNaN(sc) {
			continue
		}
		theta := qc*qc - sc
		newAlpha := math.Inf(1)
		if theta > 0 {
			newAlpha = sc * sc / theta // (R3)
		}
		if newAlpha > prune {
			newAlpha = math.Inf(1)
		}
		var mv engine.Move
		switch j := pos[c]; {
		case j < 0 && !math.IsInf(newAlpha, 1):
			r := qc * qc / sc
			mv = engine.Move{Kind: engine.Add, Index: c, Alpha: newAlpha, Gain: 0.5 * (r - 1 - math.Log(r))}
			structural = true
		case j >= 0 && !math.IsInf(newAlpha, 1):
			// The gain in terms of Sₘ = αsₘ/(α + sₘ), Qₘ = αqₘ/(α + sₘ).
			a := alpha[j]
			bigS, bigQ := a*sc/(a+sc), a*qc/(a+sc)
			d := 1/newAlpha - 1/a
			change = math.Max(change, math.Abs(math.Log(newAlpha/a)))
			mv = engine.Move{Kind: engine.Reestimate, Index: c, Alpha: newAlpha, Gain: 0.5 * (d*bigQ*bigQ/(d*bigS+1) - math.Log1p(bigS*d))}
		case j >= 0 && nActive > 1:
			structural = true
			a := alpha[j]
			mv = engine.Move{Kind: engine.Delete, Index: c, Gain: -0.5 * (qc*qc/(sc+a) - math.Log1p(sc/a))}
		default:
			continue
		}
		if mv.Gain > best.Gain || best.Kind == engine.None {
			best = mv
		}
	}
	return best, change, structural
}

// rvmStall and rvmStallTol define the end of a classifier's fit by (R8):
// rvmStall iterations whose Laplace evidence does not pass the best by
// rvmStallTol·(1 + |best|) (engine.Controls.Stall).
const (
	rvmStall    = 200 // (R8)
	rvmStallTol = 1e-9
)

// rvmSnapshot is a classifier's state at the start of an iteration: the
// active set, its αₘ and Laplace's mode (R8).
type rvmSnapshot struct {
	iter   int
	active []int
	alpha  []float64
	w      []float64
}

func (st *rvmState) snapshot(iter int) *rvmSnapshot {
	return &rvmSnapshot{iter: iter, active: append([]int(nil), st.active...),
		alpha: append([]float64(nil), st.alpha...), w: append([]float64(nil), st.logit.w...)}
}

// restore returns to the state of s and computes its posterior.
func (st *rvmState) restore(s *rvmSnapshot) error {
	st.active = append(st.active[:0], s.active...)
	st.alpha = append(st.alpha[:0], s.alpha...)
	st.logit.w = append(st.logit.w[:0], s.w...)
	return st.posterior(s.iter)
}

// apply makes the move m on the active set.
func (st *rvmState) apply(mv engine.Move, pos []int) {
	switch mv.Kind {
	case engine.Add:
		st.active = append(st.active, mv.Index)
		st.alpha = append(st.alpha, mv.Alpha)
		if st.logit != nil {
			st.logit.w = append(st.logit.w, 0)
		}
	case engine.Reestimate:
		st.alpha[pos[mv.Index]] = mv.Alpha
	case engine.Delete:
		j := pos[mv.Index]
		st.active = append(st.active[:j], st.active[j+1:]...)
		st.alpha = append(st.alpha[:j], st.alpha[j+1:]...)
		if st.logit != nil {
			st.logit.w = append(st.logit.w[:j], st.logit.w[j+1:]...)
		}
	}
}

// updateBeta re-estimates β = (N − Σγₘ)/‖t − Φμ‖², γₘ = 1 − αₘΣₘₘ
// (Tipping 2001, eq. 47), and returns |Δ ln β| (0 if the estimate is not
// positive and finite, when β is kept).
func (st *rvmState) updateBeta() float64 { return st.updateBetaWith(st.alpha) }

// updateBetaWith is updateBeta with the γₘ of the posterior's αₘ, alpha
// (when st.alpha has been re-estimated since).
func (st *rvmState) updateBetaWith(alpha []float64) float64 {
	if st.logit != nil {
		return 0 // no noise parameter
	}
	var gamma float64
	for j, a := range alpha {
		gamma += 1 - a*st.q.diag[j]
	}
	var d float64
	st.beta, d = reestimateBeta(st.n, gamma, st.rss, st.beta, st.betaMax)
	return d
}

// atBetaCap reports whether β is held at betaMax with the evidence rising
// in β there, ∂L/∂ln β = ½(N − Σγₘ − β rss) > 0 (rvmNewton): the polish
// then leaves ln β out of its step.
func (st *rvmState) atBetaCap() bool {
	if st.beta < st.betaMax {
		return false
	}
	var gamma float64
	for j, a := range st.alpha {
		gamma += 1 - a*st.q.diag[j]
	}
	return float64(st.n)-gamma-st.beta*st.rss > 0
}

// fitSequential fits the regression RVM by the sequential algorithm.
func (r *RVMRegressor) fitSequential(ctx context.Context, set settings, b basis, x mat.Matrix, t []float64, beta float64) error {
	st, proj, err := newRVMState(ctx, b, x, t)
	if err != nil {
		return err
	}
	st.beta, st.betaMax = beta, rvmBetaMax(t)
	// Start from the function most aligned with t, |φₘᵀt|/‖φₘ‖, with αₘ
	// at its optimum (R3) for C = β⁻¹I, or Alpha0 if it has none
	// (Tipping & Faul, section 4; SparseBayes).
	first := st.mostAligned(proj)
	if first < 0 {
		return ErrZeroBasis
	}
	s0, q0 := beta*st.diag[first], beta*proj[first]
	a0 := set.alpha0
	if theta := q0*q0 - s0; theta > 0 {
		a0 = s0 * s0 / theta
	}
	st.active, st.alpha = []int{first}, []float64{a0}
	res, err := st.run(ctx, set)
	if err != nil {
		return err
	}
	r.noise = 1 / st.beta
	return r.recordRVM(ctx, b, res, &st.q)
}

// fitSequential fits the classification RVM by the sequential algorithm.
func (c *RVMClassifier) fitSequential(ctx context.Context, set settings, b basis, x mat.Matrix, t []float64) error {
	pm := make([]float64, len(t)) // 2t − 1
	for i, v := range t {
		pm[i] = 2*v - 1
	}
	st, proj, err := newRVMState(ctx, b, x, pm)
	if err != nil {
		return err
	}
	st.logit = &rvmLogit{t: t}
	// Start from the function most aligned with 2t − 1, with αₘ = 1/w²
	// for the least-squares weight w of the logits ±ln 9 (probabilities
	// 0.9 and 0.1) on it, within [10⁻³, 10³] (as SparseBayes).
	first := st.mostAligned(proj)
	if first < 0 {
		return ErrZeroBasis
	}
	a0 := set.alpha0
	if w := math.Log(9) * proj[first] / st.diag[first]; w != 0 {
		a0 = math.Min(1e3, math.Max(1e-3, 1/(w*w)))
	}
	st.active, st.alpha, st.logit.w = []int{first}, []float64{a0}, []float64{0}
	res, err := st.run(ctx, set)
	if err != nil {
		return err
	}
	return c.recordRVM(ctx, b, res, &st.q)
}

// explicitFactors returns, for classification with the explicit design
// (B = Φᵀ, U = I), wDiag = φₘᵀWφₘ and x = ΦᵀWΦ_A for every candidate and
// qv = t − y, W = diag(yₙ(1 − yₙ)): O(P N k) for k active functions,
// where the factored design's UᵀWU costs O(N r²) with r = N.
func (st *rvmState) explicitFactors(lg *rvmLogit, k int) (wDiag []float64, x *mat.Dense, qv []float64) {
	b := st.f.b
	m, n := b.Dims()
	w := make([]float64, n)
	qv = make([]float64, n)
	for i, y := range lg.y {
		w[i] = y * (1 - y)
		qv[i] = lg.t[i] - y
	}
	wDiag = make([]float64, m)
	for i := range m {
		wDiag[i] = weightedSquares(w, b.RawRowView(i))
	}
	baw := mat.NewDense(k, n, nil) // B_A W
	for i := range k {
		scaleBy(baw.RawRowView(i), w, st.ba.RawRowView(i))
	}
	x = mat.NewDense(m, k, nil)
	mul(x, b, baw.T())
	return wDiag, x, qv
}

// weightedSquares returns Σₙ wₙvₙ², in four running sums (a single sum
// waits on the latency of each addition).
func weightedSquares(w, v []float64) float64 {
	w = w[:len(v)]
	var s0, s1, s2, s3 float64
	n := len(v) &^ 3
	for i := 0; i < n; i += 4 {
		s0 += w[i] * v[i] * v[i]
		s1 += w[i+1] * v[i+1] * v[i+1]
		s2 += w[i+2] * v[i+2] * v[i+2]
		s3 += w[i+3] * v[i+3] * v[i+3]
	}
	for i := n; i < len(v); i++ {
		s0 += w[i] * v[i] * v[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// newRVMState takes the design of basis b at x as the Sequential solver
// does (R9) and returns the state of the sequential algorithm with
// nothing active, and φₘᵀt for every candidate.
func newRVMState(ctx context.Context, b basis, x mat.Matrix, t []float64) (*rvmState, []float64, error) {
	f, err := newSeqDesign(ctx, b, x) // (R9)
	if err != nil {
		return nil, nil, err
	}
	n := len(t)
	m, rank := f.b.Dims()
	st := &rvmState{f: f, n: n, q: gaussQ{ctx: ctx}, betaMax: math.Inf(1)}
	if f.ident {
		st.z = append([]float64(nil), t...) // U = I
	} else {
		st.z = make([]float64, rank)
		blas64.Gemv(blas.Trans, 1, f.u.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: t}, 0, blas64.Vector{N: rank, Inc: 1, Data: st.z})
	}
	st.tt = blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: t}, blas64.Vector{N: n, Inc: 1, Data: t})
	st.zz = blas64.Dot(blas64.Vector{N: rank, Inc: 1, Data: st.z}, blas64.Vector{N: rank, Inc: 1, Data: st.z})
	st.diag = make([]float64, m)
	proj := make([]float64, m) // φₘᵀt = Bₘ·Uᵀt
	blas64.Gemv(blas.NoTrans, 1, f.b.RawMatrix(), blas64.Vector{N: rank, Inc: 1, Data: st.z}, 0, blas64.Vector{N: m, Inc: 1, Data: proj})
	for i := range m {
		row := f.b.RawRowView(i)
		st.diag[i] = blas64.Dot(blas64.Vector{N: rank, Inc: 1, Data: row}, blas64.Vector{N: rank, Inc: 1, Data: row})
	}
	return st, proj, nil
}

// mostAligned returns the candidate with the largest |φₘᵀt|/‖φₘ‖ for
// proj = Φᵀt, or −1 if every candidate is zero.
func (st *rvmState) mostAligned(proj []float64) int {
	first := -1
	for i, d := range st.diag {
		if d > 0 && (first < 0 || proj[i]*proj[i]/d > proj[first]*proj[first]/st.diag[first]) {
			first = i
		}
	}
	return first
}

// effective returns γ = Σₘ(1 − αₘΣₘₘ) over the active functions, from
// the last posterior computed (which the re-estimate of β after a move
// leaves one β behind).
func (st *rvmState) effective() float64 {
	if len(st.q.diag) != len(st.alpha) {
		return 0
	}
	g := float64(len(st.alpha))
	for m, a := range st.alpha {
		g -= a * st.q.diag[m]
	}
	return g
}

// run iterates the sequential algorithm from the state's active set
// through engine.Run (rvmLoop) and leaves in q the posterior of the final
// active set, ordered by candidate (bias first, kernel functions in
// training order).
func (st *rvmState) run(ctx context.Context, set settings) (rvmResult, error) {
	lp := &rvmLoop{st: st, set: set, betaChange: math.Inf(1)}
	c := engine.Controls{MaxIter: set.maxIter, RecordFirst: true, Monitor: engineMonitor(set.monitor)}
	if st.logit != nil {
		// (R8) Laplace's evidence at the new mode need not rise with a
		// move: stop where it has not passed its best for rvmStall
		// iterations, with the best state.
		c.Stall, c.StallTol = rvmStall, rvmStallTol
	}
	res, err := engine.Run(ctx, lp, c)
	status := engineStatus(res.Status)
	if err != nil {
		if ctx.Err() == nil {
			return rvmResult{}, err
		}
		status = Canceled
	}
	// The posterior of the final α and β, bias first and the kernel
	// functions in training order, in one piece (the context may be
	// cancelled already).
	order := seq(len(st.active))
	sort.Slice(order, func(i, j int) bool { return st.active[order[i]] < st.active[order[j]] })
	st.active, st.alpha = selectInts(st.active, order), selectVec(st.alpha, order)
	if st.logit != nil {
		st.logit.w = selectVec(st.logit.w, order)
	}
	st.q.ctx = nil
	if err := st.posterior(res.Iters); err != nil {
		return rvmResult{}, err
	}
	cols := make([]int, len(st.active))
	for i, c := range st.active {
		cols[i] = st.f.cols[c]
	}
	return rvmResult{cols: cols, alpha: st.alpha, trace: res.Trace, iters: res.Iters, status: status}, nil
}

// rvmLoop is the sequential type-II algorithm as an engine.Problem: each
// iteration computes the posterior (Tipping 2001, eq. 45) and the
// evidence, every candidate's factors (R2), (R5), takes the move of the
// largest gain (R4), or the polish of the active set's αₘ and β where
// that move is a re-estimate, and re-estimates β (eq. 47).
type rvmLoop struct {
	st  *rvmState
	set settings

	pos        []int   // the candidates' positions in the active set (factors)
	change     float64 // the largest |Δ ln αₘ| a re-estimate would make
	betaChange float64 // the last |Δ ln β|
	polished   int     // the polish steps of this iteration's move
	best       *rvmSnapshot
}

// Statistics computes the posterior of the current α and β (eq. 45) or
// Laplace's approximation at the mode.
func (lp *rvmLoop) Statistics(k int) error { return lp.st.posterior(k) }

// Objective is the log evidence at the start of the iteration: at
// convergence, that of the final α and β.
func (lp *rvmLoop) Objective() (float64, error) { return lp.st.logEvidence(), nil }

// Decide computes sₘ, qₘ (R2) for every candidate by (R5) and takes the
// move of the largest gain (R4); the fit has converged when no function
// is to be added or deleted and no ln αₘ nor ln β would change by more
// than Tol.
func (lp *rvmLoop) Decide(int) (engine.Move, bool, error) {
	s, q, pos := lp.st.factors()
	mv, change, structural := bestMove(s, q, pos, lp.st.alpha, lp.set.pruneAt)
	lp.pos, lp.change = pos, change
	return mv, !structural && change <= lp.set.tol && lp.betaChange <= lp.set.tol, nil
}

// Act makes the move. When it is a re-estimate, the active set's α and β
// are converged jointly (polish) rather than one αₘ per iteration; if
// that cannot make a step, the move is made.
func (lp *rvmLoop) Act(k int, mv engine.Move) error {
	lp.polished = 0
	if mv.Kind == engine.Reestimate {
		var err error
		lp.polished, lp.betaChange, err = lp.st.polish(k, lp.set.tol, lp.set.pruneAt)
		if err != nil {
			return err
		}
	}
	if lp.polished == 0 {
		lp.st.apply(mv, lp.pos)
	}
	return nil
}

// Likelihood re-estimates β (Tipping 2001, eq. 47) at the posterior after
// a single move (the polish has re-estimated it with the αₘ).
func (lp *rvmLoop) Likelihood(k int) error {
	if lp.polished > 0 {
		return nil
	}
	if err := lp.st.posterior(k); err != nil {
		return err
	}
	lp.betaChange = lp.st.updateBeta()
	return nil
}

// Candidates does nothing: every candidate's move is in Decide's choice.
func (lp *rvmLoop) Candidates(int) error { return nil }

// Change is the largest change of ln αₘ or ln β the iteration made.
func (lp *rvmLoop) Change(float64) float64 { return math.Max(lp.change, lp.betaChange) }

// Active is the number of active functions.
func (lp *rvmLoop) Active() int { return len(lp.st.active) }

// Limit stops a crowded fit ((W5), (R6)): the caller fits again at twice
// the width.
func (lp *rvmLoop) Limit() bool {
	return crowded(lp.set.gammaLimit, len(lp.st.active), lp.st.effective)
}

// Settle goes on: the algorithm ends in Decide, or at (R8).
func (lp *rvmLoop) Settle(int, []float64) (engine.Verdict, error) { return engine.Continue, nil }

// Polish does nothing: the polish of the active set is a move (Act).
func (lp *rvmLoop) Polish(int) (bool, error) { return false, nil }

// Keep saves the classifier's state of iteration k (R8).
func (lp *rvmLoop) Keep(k int) { lp.best = lp.st.snapshot(k) }

// Restore returns a classifier to its best state (R8).
func (lp *rvmLoop) Restore() (float64, error) {
	if err := lp.st.restore(lp.best); err != nil {
		return 0, err
	}
	return lp.st.logEvidence(), nil
}
