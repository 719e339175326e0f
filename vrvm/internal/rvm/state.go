package rvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
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
// Sequential solver uses (Design, from the facade's factor.go: pivoted
// Cholesky of the kernel matrix, rank r, tens for a smooth kernel, or
// the explicit design (R9)), so that ΦᵀΦ = BBᵀ and
// Φᵀt = B Uᵀt, and all the sₘ, qₘ cost O(M r k) per iteration for k
// active functions. Memory is O((N + M) r), no N × N matrix.

// state is the state of the sequential algorithm for regression: the
// factorisation of the candidates, the active set with its αₘ, β, and
// the posterior over the active weights.
type state struct {
	d      *Design
	n      int       // training rows
	z      []float64 // Uᵀt
	tt, zz float64   // ‖t‖², ‖Uᵀt‖²
	diag   []float64 // φₘᵀφₘ = ‖Bₘ‖² for every candidate

	active []int     // candidate indices, in the order added
	alpha  []float64 // αₘ of the active functions
	beta   float64
	// betaMax caps β (betaCap for regression; +∞ for classification,
	// which has no β).
	betaMax float64
	q       posterior.Gauss
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
	logit *logitState
}

// logitState is the classification part of state: the posterior over the
// active weights is Laplace's approximation at the mode (laplaceMode),
// whose Gaussian with the effective targets t̂ = Φμ + W⁻¹(t − y),
// W = diag(yₙ(1 − yₙ)), makes (R1)–(R5) hold with β replaced by W
// (Tipping & Faul 2003, section 5):
//
//	Sₘ = φₘᵀWφₘ − φₘᵀWΦΣΦᵀWφₘ,   Qₘ = φₘᵀ(t − y).
type logitState struct {
	t  []float64
	w  []float64 // the mode of the active weights, the next search's start
	y  []float64 // σ(Φμ) at the mode
	ev float64   // Laplace's approximation of the log evidence
}

// posterior sets Σ = (A + βΦᵀΦ)⁻¹ and μ = βΣΦᵀt for the active set
// (Tipping 2001, eq. 45) and the residual ‖t − Φμ‖².
func (st *state) posterior(iter int) error {
	k := len(st.active)
	_, r := st.d.B.Dims()
	st.ba = subset.Rows(st.d.B, st.active)
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
	if err := st.q.Factor(a, iter); err != nil {
		return err
	}
	h := make([]float64, k)
	blas64.Gemv(blas.NoTrans, st.beta, st.ba.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: st.z}, 0, blas64.Vector{N: k, Inc: 1, Data: h})
	if err := st.q.SolveMean(h); err != nil {
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
func (st *state) syncGram() {
	have := make(map[int][]float64, len(st.gram))
	for j, g := range st.gram {
		if j < len(st.gramOf) {
			have[st.gramOf[j]] = g
		}
	}
	m, r := st.d.B.Dims()
	gram := make([][]float64, len(st.active))
	for j, c := range st.active {
		if g, ok := have[c]; ok {
			gram[j] = g
			continue
		}
		g := make([]float64, m)
		blas64.Gemv(blas.NoTrans, 1, st.d.B.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: st.d.B.RawRowView(c)}, 0, blas64.Vector{N: m, Inc: 1, Data: g})
		gram[j] = g
	}
	st.gram, st.gramOf = gram, append(st.gramOf[:0], st.active...)
}

// laplace sets q to Laplace's approximation of the posterior for
// classification, at the mode found by IRLS from the last one, and the
// approximation of the log evidence, ln p(t|w*) − ½w*ᵀAw* + ½Σ ln αₘ
// + ½ln|Σ|.
func (st *state) laplace(iter int) error {
	n := st.n
	k := len(st.active)
	phi := mat.NewDense(n, k, nil)
	if st.d.Explicit {
		phi.Copy(st.ba.T()) // Φ_A = B_Aᵀ
	} else {
		dense.Mul(phi, st.d.U, st.ba.T()) // Φ_A = U B_Aᵀ
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
	lg.ev = logp + 0.5*sumLnA + 0.5*st.q.LogDet
	copy(lg.w, st.q.Mu)
	lg.y = resize(lg.y, n)
	blas64.Gemv(blas.NoTrans, 1, phi.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: st.q.Mu}, 0, blas64.Vector{N: n, Inc: 1, Data: lg.y})
	for i, a := range lg.y {
		lg.y[i] = lh.Sigmoid(a)
	}
	return nil
}

// residual returns Uᵀt − B_Aᵀμ, the residual t − Φμ in U's coordinates.
func (st *state) residual() []float64 {
	k := len(st.active)
	_, r := st.d.B.Dims()
	e := append([]float64(nil), st.z...)
	blas64.Gemv(blas.Trans, -1, st.ba.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: st.q.Mu}, 1, blas64.Vector{N: r, Inc: 1, Data: e})
	return e
}

// logEvidence returns ln p(t | α, β) at the current posterior
// (evidence).
func (st *state) logEvidence() float64 {
	if st.logit != nil {
		return st.logit.ev
	}
	return evidence(st.n, st.beta, st.alpha, st.q.Mu, st.q.LogDet, st.rss)
}

// evidence is ln p(t | α, β) = ln N(t | 0, β⁻¹I + ΦA⁻¹Φᵀ) written
// with the posterior's quantities: −½{N ln 2π − N ln β − Σ ln αₘ − ln|Σ|
// + β‖t − Φμ‖² + μᵀAμ}.
func evidence(n int, beta float64, alpha, mu []float64, logDetSigma, rss float64) float64 {
	var sumLnA, muAmu float64
	for i, a := range alpha {
		sumLnA += math.Log(a)
		muAmu += a * mu[i] * mu[i]
	}
	return -0.5 * (float64(n)*lh.Ln2Pi - float64(n)*math.Log(beta) - sumLnA - logDetSigma + beta*rss + muAmu)
}

// factors returns sₘ and qₘ (R2) for every candidate by (R5), and the
// positions of the active functions in the candidate list (−1 for
// inactive). A candidate whose Sₘ is lost to rounding beside βφₘᵀφₘ (it
// lies in the span of the active functions) gets sₘ = NaN: it cannot be
// added.
func (st *state) factors() (s, q []float64, pos []int) {
	m, r := st.d.B.Dims()
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
	if lg := st.logit; lg != nil && st.d.Explicit {
		wDiag, x, qv = st.explicitFactors(lg, k)
	} else if lg != nil {
		n, _ := st.d.U.Dims()
		wu := mat.NewDense(n, r, nil)
		e := make([]float64, n)
		for i, y := range lg.y {
			w := y * (1 - y)
			for j, v := range st.d.U.RawRowView(i) {
				wu.Set(i, j, w*v)
			}
			e[i] = lg.t[i] - y
		}
		var kw, bk mat.Dense
		dense.Mul(&kw, st.d.U.T(), wu) // UᵀWU
		dense.Mul(&bk, st.d.B, &kw)
		wDiag = make([]float64, m)
		for i := range m {
			wDiag[i] = blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: bk.RawRowView(i)}, blas64.Vector{N: r, Inc: 1, Data: st.d.B.RawRowView(i)})
		}
		x = mat.NewDense(m, k, nil)
		dense.Mul(x, &bk, st.ba.T())
		qv = make([]float64, r)
		blas64.Gemv(blas.Trans, 1, st.d.U.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: e}, 0, blas64.Vector{N: r, Inc: 1, Data: qv})
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
	blas64.Trmm(blas.Right, blas.NoTrans, 1, st.q.Uinv.RawTriangular(), h.RawMatrix())
	s, q = make([]float64, m), make([]float64, m)
	blas64.Gemv(blas.NoTrans, 1, st.d.B.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: qv}, 0, blas64.Vector{N: m, Inc: 1, Data: q})
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
			if a := st.active[j]; a != i && c*c > MaxAlignment*MaxAlignment*st.diag[i]*st.diag[a] {
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
		d := st.q.Diag[j]
		s[c] = 1/d - st.alpha[j]
		q[c] = st.q.Mu[j] / d
	}
	return s, q, pos
}

// MaxAlignment is the largest cosine φₘᵀφⱼ/(‖φₘ‖‖φⱼ‖) between a
// candidate and an active function for which the candidate may be added
// (SparseBayes's AlignmentMax): a function (nearly) parallel to one in the
// model adds (almost) nothing but rounding, and dense inputs have many.
const MaxAlignment = 1 - 1e-4

// explicitFactors returns, for classification with the explicit design
// (B = Φᵀ, U = I), wDiag = φₘᵀWφₘ and x = ΦᵀWΦ_A for every candidate and
// qv = t − y, W = diag(yₙ(1 − yₙ)): O(P N k) for k active functions,
// where the factored design's UᵀWU costs O(N r²) with r = N.
func (st *state) explicitFactors(lg *logitState, k int) (wDiag []float64, x *mat.Dense, qv []float64) {
	b := st.d.B
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
	dense.Mul(x, b, baw.T())
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

// mostAligned returns the candidate with the largest |φₘᵀt|/‖φₘ‖ for
// proj = Φᵀt, or −1 if every candidate is zero.
func (st *state) mostAligned(proj []float64) int {
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
func (st *state) effective() float64 {
	if len(st.q.Diag) != len(st.alpha) {
		return 0
	}
	g := float64(len(st.alpha))
	for m, a := range st.alpha {
		g -= a * st.q.Diag[m]
	}
	return g
}
