package vrvm

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// woodQ is Q_w = N(μ, Σ) (20) for a Gaussian likelihood written in the
// factored design Φ = U Bᵀ: precision Σ⁻¹ = A + BΩBᵀ with A = diag⟨α⟩ and
// linear term h = Bη, where Ω and η live in the r-dimensional column space
// of U. Regression (23)–(24) has Ω = ⟨τ⟩I, η = ⟨τ⟩Uᵀt; classification
// (54)–(55) with ξ fixed has Ω = 2UᵀΛ(ξ)U, η = Uᵀ(t − ½). By the Woodbury
// identity, with K = Ω⁻¹ + BᵀA⁻¹B (r × r, positive definite),
//
//	Σ = A⁻¹ − A⁻¹BK⁻¹BᵀA⁻¹,       μ = A⁻¹BK⁻¹Ω⁻¹η,
//	BᵀΣB = Ω⁻¹ − Ω⁻¹K⁻¹Ω⁻¹,       ln|Σ| = −Σₘ ln αₘ − ln|Ω| − ln|K|.
//
// Solving costs O(M r²) instead of the O(M³) of a dense Cholesky.
type woodQ struct {
	alpha []float64
	chol  mat.Cholesky // K = UᵀU (gonum's upper factor)
	v     []float64    // K⁻¹Ω⁻¹η
	mu    []float64
	diag  []float64 // diag Σ
	z     []float64 // Bᵀμ
	y     *mat.SymDense
	x     *mat.Dense // A^(−1/2) B U_K⁻¹: Σ = A⁻¹ − A^(−1/2) X Xᵀ A^(−1/2)
	ld    float64    // ln|Σ|
	xs    *mat.Dense // scratch of x's shape
	tau   []float64
	work  []float64
}

// solve computes Q_w for prior precisions alpha, Ω⁻¹ (omegaInv) given with
// a factor F, FᵀF = Ω⁻¹ (omegaInvF), ln|Ω| and Ω⁻¹η (etaP). It reports
// false if K is singular to working precision.
//
// K is factorised by Cholesky from its normal equations when its condition
// number is below 1e8, and otherwise as the R of the QR factorisation of
// the stacked matrix [A^(−1/2)B; F] (factorQR), which does not square the
// condition number; K is ill-conditioned when ⟨τ⟩ or some 1/⟨αₘ⟩ is large
// (near-noiseless data, well-determined weights).
func (w *woodQ) solve(b *mat.Dense, alpha []float64, omegaInv *mat.SymDense, omegaInvF *mat.Dense, logDetOmega float64, etaP []float64) bool {
	m, r := b.Dims()
	w.alpha = alpha
	if w.x == nil {
		w.x = mat.NewDense(max(m, 1), max(r, 1), nil)
	}
	if rm, rc := w.x.Dims(); rm != m || rc != r {
		w.x = mat.NewDense(m, r, nil)
	}
	for i := range m {
		f := 1 / math.Sqrt(alpha[i])
		src, dst := b.RawRowView(i), w.x.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	// K = Ω⁻¹ + BᵀA⁻¹B by its normal equations if that is accurate
	// enough, else by QR.
	k := mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, w.x.RawMatrix(), 0, k.RawSymmetric())
	k.AddSym(k, omegaInv)
	w.chol.Reset()
	ok := w.chol.Factorize(k)
	if ok {
		// The normal equations lose about log10 κ(K) digits.
		if c := w.chol.Cond(); c > 1e8 || math.IsNaN(c) {
			ok = false
		}
	}
	if !ok && !w.factorQR(m, r, omegaInvF) {
		return false
	}
	var uk mat.TriDense
	w.chol.UTo(&uk)
	w.v = resize(w.v, r)
	if err := w.chol.SolveVecTo(mat.NewVecDense(r, w.v), mat.NewVecDense(r, etaP)); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return false
		}
	}
	w.mu = resize(w.mu, m)
	blas64.Gemv(blas.NoTrans, 1, b.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: w.v}, 0, blas64.Vector{N: m, Inc: 1, Data: w.mu})
	for i := range m {
		w.mu[i] /= alpha[i]
	}
	w.z = resize(w.z, r)
	blas64.Gemv(blas.Trans, 1, b.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: w.mu}, 0, blas64.Vector{N: r, Inc: 1, Data: w.z})
	// X = A^(−1/2) B U_K⁻¹ and Σₘₘ = (1 − ‖xₘ‖²)/αₘ.
	var ukInv mat.TriDense
	if err := ukInv.InverseTri(&uk); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return false
		}
	}
	ui := mat.NewDense(r, r, nil)
	ui.Copy(&ukInv)
	if w.xs == nil {
		w.xs = mat.NewDense(m, r, nil)
	} else if rm, rc := w.xs.Dims(); rm != m || rc != r {
		w.xs = mat.NewDense(m, r, nil)
	}
	w.xs.Mul(w.x, ui)
	w.x, w.xs = w.xs, w.x
	w.diag = resize(w.diag, m)
	var sumLogA float64
	for i := range m {
		row := w.x.RawRowView(i)
		s := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: row}, blas64.Vector{N: r, Inc: 1, Data: row})
		w.diag[i] = math.Max(0, 1-s) / alpha[i]
		sumLogA += math.Log(alpha[i])
	}
	// BᵀΣB = Ω⁻¹ − ZᵀZ with Z = U_K⁻ᵀ Ω⁻¹.
	zm := mat.NewDense(r, r, nil)
	zm.Copy(omegaInv)
	blas64.Trsm(blas.Left, blas.Trans, 1, uk.RawTriangular(), zm.RawMatrix())
	if w.y == nil || w.y.SymmetricDim() != r {
		w.y = mat.NewSymDense(r, nil)
	}
	blas64.Syrk(blas.Trans, -1, zm.RawMatrix(), 0, w.y.RawSymmetric())
	w.y.AddSym(w.y, omegaInv)
	w.ld = -sumLogA - logDetOmega - w.chol.LogDet()
	return !math.IsNaN(w.ld) && !math.IsInf(w.ld, 0)
}

// gauss returns a gaussQ carrying μ, diag Σ and ln|Σ| for the bound terms.
func (w *woodQ) gauss() *gaussQ { return &gaussQ{mu: w.mu, diag: w.diag, logDet: w.ld} }

// sigma returns Σ = A⁻¹ − A^(−1/2) X Xᵀ A^(−1/2) explicitly.
func (w *woodQ) sigma() *mat.SymDense {
	m, _ := w.x.Dims()
	s := mat.NewSymDense(m, nil)
	blas64.Syrk(blas.NoTrans, -1, w.x.RawMatrix(), 0, s.RawSymmetric())
	raw := s.RawSymmetric()
	for i := range m {
		fi := 1 / math.Sqrt(w.alpha[i])
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		for j := i; j < m; j++ {
			row[j] *= fi / math.Sqrt(w.alpha[j])
		}
		row[i] += 1 / w.alpha[i]
	}
	return s
}

// fastModel is a model fitted by the fast solver. Its variational
// parameters are the vector x of logarithms: ln⟨αₘ⟩ for the active
// functions, then ln⟨τ⟩ (regression) or ln ξₙ (classification).
type fastModel interface {
	// eval sets the state to x with Q_w at its optimum (23)–(24) or
	// (54)–(55), and returns the bound F(x) there and the parameters
	// T(x) one iteration of the paper's schedule moves to from it.
	eval(x []float64) (next []float64, f float64, ok bool)
	// params returns the current x.
	params() []float64
	// keep restricts the active set to the listed positions.
	keep(keep []int)
	active() int
	// excluded returns the bound contribution of the functions outside
	// the active set (0 when all are active).
	excluded() float64
	// newton returns the gradient and the Hessian of F at the current
	// state, or false if the problem is too large for a dense Hessian.
	newton() (g []float64, h *mat.SymDense, ok bool)
}

// excludedTerm returns the bound terms of a basis function held
// outside the active set with the factor Q(wₘ) = N(0, vₘ), independent of
// the other weights, and Q_αₘ, both at their optimum: with
// s = φₘᵀ(likelihood precision)φₘ and α the maximiser of
// ã ln α − bα − ½ ln(α + s) (alphaRoot with q = 0), vₘ = 1/(α + s) and
//
//	−ã ln(ã/α) − bα − ½ ln(α + s) + a ln b − ln Γ(a) + ln Γ(ã) + ã,
//
// the sum of the terms (41*), (42), (44) and (45*) of m and of the
// likelihood term −½ s vₘ. Any such factor keeps L a lower bound on the
// log evidence of the full model.
func excludedTerm(p Prior, s float64) float64 {
	at := p.A + 0.5
	a := alphaRoot(p.A, p.B, s, 0)
	lgA, _ := math.Lgamma(p.A)
	lgAt, _ := math.Lgamma(at)
	return -at*math.Log(at/a) - p.B*a - 0.5*math.Log(a+s) + p.A*math.Log(p.B) - lgA + lgAt + at
}

// clampLog keeps the logarithm of a precision inside the range in which
// the updates are defined: ⟨αₘ⟩ ≤ ã/b always holds after an update (25).
func clampLog(v, hi float64) float64 {
	const lo = -40
	switch {
	case math.IsNaN(v):
		return 0
	case v < lo:
		return lo
	case v > hi:
		return hi
	}
	return v
}

// fastReg is the regression model of the fast solver.
type fastReg struct {
	f     *designFactor
	t     []float64
	prior Prior
	yt    []float64 // Uᵀt
	tt    float64   // ‖t − UUᵀt‖²
	w     woodQ
	alpha []float64
	beta  float64
	ew    float64
	ct    float64
	norms []float64 // ‖φₘ‖² of every candidate function
	inAct []bool
	oinv  *mat.SymDense
	oinvF *mat.Dense
}

func newFastReg(f *designFactor, t []float64, p Prior) *fastReg {
	s := &fastReg{f: f, t: t, prior: p, ct: p.C + float64(len(t))/2}
	s.project()
	m, _ := f.bFull.Dims()
	s.norms = make([]float64, m)
	for i := range m {
		row := f.bFull.RawRowView(i)
		s.norms[i] = blas64.Dot(blas64.Vector{N: len(row), Inc: 1, Data: row}, blas64.Vector{N: len(row), Inc: 1, Data: row})
	}
	s.inAct = make([]bool, m)
	for _, c := range f.cols {
		s.inAct[c] = true
	}
	return s
}

// project computes Uᵀt and the part of ‖t‖² outside the span of U.
func (s *fastReg) project() {
	n, r := s.f.u.Dims()
	s.yt = make([]float64, r)
	blas64.Gemv(blas.Trans, 1, s.f.u.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: s.t}, 0, blas64.Vector{N: r, Inc: 1, Data: s.yt})
	res := append([]float64(nil), s.t...)
	blas64.Gemv(blas.NoTrans, -1, s.f.u.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.yt}, 1, blas64.Vector{N: n, Inc: 1, Data: res})
	s.tt = blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: res}, blas64.Vector{N: n, Inc: 1, Data: res})
}

func (s *fastReg) active() int { return len(s.f.cols) }

func (s *fastReg) params() []float64 {
	x := make([]float64, len(s.alpha)+1)
	for i, a := range s.alpha {
		x[i] = math.Log(a)
	}
	x[len(s.alpha)] = math.Log(s.beta)
	return x
}

func (s *fastReg) eval(x []float64) ([]float64, float64, bool) {
	m := len(x) - 1
	at := s.prior.A + 0.5
	hi := math.Log(at / s.prior.B)
	s.alpha = resize(s.alpha, m)
	for i := range m {
		x[i] = clampLog(x[i], hi)
		s.alpha[i] = math.Exp(x[i])
	}
	x[m] = clampLog(x[m], 700)
	s.beta = math.Exp(x[m])
	_, r := s.f.b.Dims()
	if s.oinv == nil || s.oinv.SymmetricDim() != r {
		s.oinv = mat.NewSymDense(r, nil)
		s.oinvF = mat.NewDense(r, r, nil)
	}
	for i := range r {
		s.oinv.SetSym(i, i, 1/s.beta)
		s.oinvF.Set(i, i, 1/math.Sqrt(s.beta))
	}
	if !s.w.solve(s.f.b, s.alpha, s.oinv, s.oinvF, float64(r)*x[m], s.yt) {
		return nil, math.NaN(), false
	}
	// Σₙ⟨(tₙ − wᵀφₙ)²⟩ = ‖t − UUᵀt‖² + ‖Uᵀt − Bᵀμ‖² + tr(BᵀΣB), with
	// Uᵀt − Bᵀμ = K⁻¹Uᵀt/⟨τ⟩ (27, settled).
	var tr float64
	yr := s.w.y.RawSymmetric()
	for i := range r {
		tr += yr.Data[i*yr.Stride+i]
	}
	vv := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: s.w.v}, blas64.Vector{N: r, Inc: 1, Data: s.w.v})
	s.ew = s.tt + vv/(s.beta*s.beta) + math.Max(0, tr)
	f := s.bound()
	next := make([]float64, m+1)
	for i := range m {
		w2 := s.w.mu[i]*s.w.mu[i] + s.w.diag[i]
		next[i] = math.Log(at / (s.prior.B + w2/2)) // (25)
	}
	next[m] = math.Log(s.ct / (s.prior.D + s.ew/2)) // (26), (27)
	return next, f, true
}

// state returns the lead's regression state holding the current factors,
// for the bound terms (39)–(46).
func (s *fastReg) state() *regState {
	at := s.prior.A + 0.5
	g := gammaQ{at: at, bt: make([]float64, len(s.alpha))}
	for i, a := range s.alpha {
		g.bt[i] = at / a
	}
	return &regState{t: s.t, prior: s.prior, q: *s.w.gauss(), alpha: g, ct: s.ct, dt: s.ct / s.beta, ew: s.ew}
}

func (s *fastReg) bound() float64 { return s.state().bound() }

func (s *fastReg) keep(keep []int) {
	s.f.keep(keep)
	for i := range s.inAct {
		s.inAct[i] = false
	}
	for _, c := range s.f.cols {
		s.inAct[c] = true
	}
	_, r := s.f.b.Dims()
	s.f.compact()
	if _, r2 := s.f.b.Dims(); r2 != r {
		s.project()
	}
	s.alpha = selectVec(s.alpha, keep)
}

func (s *fastReg) excluded() float64 {
	var sum float64
	for i, in := range s.inAct {
		if !in {
			sum += excludedTerm(s.prior, s.beta*s.norms[i])
		}
	}
	return sum
}

// fastCls is the classification model of the fast solver.
type fastCls struct {
	f     *designFactor
	t     []float64
	prior Prior
	th    []float64 // Uᵀ(t − ½)
	w     woodQ
	alpha []float64
	xi    []float64
	lam   []float64
	e     []float64 // φₙᵀ⟨wwᵀ⟩φₙ
	act   []float64 // μᵀφₙ
	inAct []bool
	uy    *mat.Dense
	sl    *mat.Dense
}

func newFastCls(f *designFactor, t []float64, p Prior) *fastCls {
	n := len(t)
	s := &fastCls{f: f, t: t, prior: p, xi: make([]float64, n), lam: make([]float64, n), e: make([]float64, n), act: make([]float64, n)}
	s.project()
	m, _ := f.bFull.Dims()
	s.inAct = make([]bool, m)
	for _, c := range f.cols {
		s.inAct[c] = true
	}
	return s
}

func (s *fastCls) project() {
	n, r := s.f.u.Dims()
	half := make([]float64, n)
	for i, v := range s.t {
		half[i] = v - 0.5
	}
	s.th = make([]float64, r)
	blas64.Gemv(blas.Trans, 1, s.f.u.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: half}, 0, blas64.Vector{N: r, Inc: 1, Data: s.th})
}

func (s *fastCls) active() int { return len(s.f.cols) }

func (s *fastCls) params() []float64 {
	m := len(s.alpha)
	x := make([]float64, m+len(s.xi))
	for i, a := range s.alpha {
		x[i] = math.Log(a)
	}
	for i, v := range s.xi {
		x[m+i] = math.Log(v)
	}
	return x
}

// omega returns Ω = 2UᵀΛU for the factorisation u.
func (s *fastCls) omega(u *mat.Dense) *mat.SymDense {
	n, r := u.Dims()
	if s.sl == nil {
		s.sl = mat.NewDense(n, r, nil)
	} else if _, c := s.sl.Dims(); c != r {
		s.sl = mat.NewDense(n, r, nil)
	}
	for i := range n {
		f := math.Sqrt(2 * s.lam[i])
		src, dst := u.RawRowView(i), s.sl.RawRowView(i)
		for j, v := range src {
			dst[j] = f * v
		}
	}
	o := mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, s.sl.RawMatrix(), 0, o.RawSymmetric())
	return o
}

func (s *fastCls) eval(x []float64) ([]float64, float64, bool) {
	n, r := s.f.u.Dims()
	m := len(x) - n
	at := s.prior.A + 0.5
	hi := math.Log(at / s.prior.B)
	s.alpha = resize(s.alpha, m)
	for i := range m {
		x[i] = clampLog(x[i], hi)
		s.alpha[i] = math.Exp(x[i])
	}
	for i := range n {
		x[m+i] = clampLog(x[m+i], 700)
		s.xi[i] = math.Exp(x[m+i])
		s.lam[i] = Lambda(s.xi[i])
	}
	o := s.omega(s.f.u)
	var oc mat.Cholesky
	if !oc.Factorize(o) {
		return nil, math.NaN(), false
	}
	// Ω = UₒᵀUₒ, so Ω⁻¹ = FᵀF with F = Uₒ⁻ᵀ.
	var uo mat.TriDense
	oc.UTo(&uo)
	of := mat.NewDense(r, r, nil)
	for i := range r {
		of.Set(i, i, 1)
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, uo.RawTriangular(), of.RawMatrix())
	oinv := mat.NewSymDense(r, nil)
	blas64.Syrk(blas.Trans, 1, of.RawMatrix(), 0, oinv.RawSymmetric())
	etaP := make([]float64, r)
	mat.NewVecDense(r, etaP).MulVec(oinv, mat.NewVecDense(r, s.th))
	if !s.w.solve(s.f.b, s.alpha, oinv, of, oc.LogDet(), etaP) {
		return nil, math.NaN(), false
	}
	// μᵀφₙ = uₙᵀz and φₙᵀΣφₙ = uₙᵀ(BᵀΣB)uₙ.
	blas64.Gemv(blas.NoTrans, 1, s.f.u.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.w.z}, 0, blas64.Vector{N: n, Inc: 1, Data: s.act})
	if s.uy == nil {
		s.uy = mat.NewDense(n, r, nil)
	} else if _, c := s.uy.Dims(); c != r {
		s.uy = mat.NewDense(n, r, nil)
	}
	blas64.Symm(blas.Right, 1, s.w.y.RawSymmetric(), s.f.u.RawMatrix(), 0, s.uy.RawMatrix())
	for i := range n {
		q := blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: s.uy.RawRowView(i)}, blas64.Vector{N: r, Inc: 1, Data: s.f.u.RawRowView(i)})
		s.e[i] = s.act[i]*s.act[i] + math.Max(0, q)
	}
	f := s.bound()
	next := make([]float64, m+n)
	for i := range m {
		w2 := s.w.mu[i]*s.w.mu[i] + s.w.diag[i]
		next[i] = math.Log(at / (s.prior.B + w2/2)) // (57)
	}
	for i := range n {
		next[m+i] = 0.5 * math.Log(s.e[i]) // (58)
	}
	return next, f, true
}

func (s *fastCls) state() *clsState {
	at := s.prior.A + 0.5
	g := gammaQ{at: at, bt: make([]float64, len(s.alpha))}
	for i, a := range s.alpha {
		g.bt[i] = at / a
	}
	return &clsState{t: s.t, prior: s.prior, q: *s.w.gauss(), alpha: g, xi: s.xi, lam: s.lam, e: s.e, act: s.act}
}

func (s *fastCls) bound() float64 { return s.state().bound() }

func (s *fastCls) keep(keep []int) {
	s.f.keep(keep)
	for i := range s.inAct {
		s.inAct[i] = false
	}
	for _, c := range s.f.cols {
		s.inAct[c] = true
	}
	_, r := s.f.b.Dims()
	s.f.compact()
	if _, r2 := s.f.b.Dims(); r2 != r {
		s.project()
	}
	s.alpha = selectVec(s.alpha, keep)
}

// excluded returns the bound contribution of the excluded functions, with
// sₘ = φₘᵀ 2Λ φₘ = bₘᵀ (2UᵀΛU) bₘ in the factorisation of all candidates.
func (s *fastCls) excluded() float64 {
	var idx []int
	for i, in := range s.inAct {
		if !in {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0
	}
	o := s.omega(s.f.uFull)
	r := o.SymmetricDim()
	ob := make([]float64, r)
	var sum float64
	for _, i := range idx {
		row := s.f.bFull.RawRowView(i)
		blas64.Symv(1, o.RawSymmetric(), blas64.Vector{N: r, Inc: 1, Data: row}, 0, blas64.Vector{N: r, Inc: 1, Data: ob})
		sum += excludedTerm(s.prior, blas64.Dot(blas64.Vector{N: r, Inc: 1, Data: row}, blas64.Vector{N: r, Inc: 1, Data: ob}))
	}
	return sum
}

// factorQR sets w.chol to the factor R of the QR factorisation of the
// stacked matrix [X̂; F], with X̂ = A^(−1/2)B in w.x: K = RᵀR without
// forming X̂ᵀX̂, whose condition number is that of K squared.
func (w *woodQ) factorQR(m, r int, omegaInvF *mat.Dense) bool {
	st := mat.NewDense(m+r, r, nil)
	for i := range m {
		copy(st.RawRowView(i), w.x.RawRowView(i))
	}
	for i := range r {
		copy(st.RawRowView(m+i), omegaInvF.RawRowView(i))
	}
	raw := st.RawMatrix()
	w.tau = resize(w.tau, r)
	work := []float64{0}
	lapack64.Geqrf(raw, w.tau, work, -1)
	w.work = resize(w.work, int(work[0]))
	lapack64.Geqrf(raw, w.tau, w.work, len(w.work))
	uk := mat.NewTriDense(r, mat.Upper, nil)
	for i := range r {
		row := raw.Data[i*raw.Stride : i*raw.Stride+r]
		sign := 1.0
		if row[i] < 0 {
			sign = -1
		}
		if !(math.Abs(row[i]) > 0) {
			return false
		}
		for j := i; j < r; j++ {
			uk.SetTri(i, j, sign*row[j])
		}
	}
	w.chol.Reset()
	w.chol.SetFromU(uk)
	return true
}
