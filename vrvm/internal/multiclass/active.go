package multiclass

import (
	"math"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// mcBlock is one Q(W) block: its active functions with ⟨αₘ⟩, Σ over them
// and, for every candidate m, the statistics of the collapsed bound (S1),
// (P12) computed without the active functions' own terms (Tipping & Faul
// 2003), with the likelihood's curvatures Bₙ and targets z:
//
//	Sₘ = dₘ − cₘᵀΣcₘ,  Qₘ = hₘ − cₘᵀΣh_act,  dₘ = φₘᵀBφₘ,  cₘ = Φ_actᵀBφₘ,  h = Φᵀz.
//
// A block holds one class of the softmax model (q = 1, its own αₘₖ (M2)),
// or every class of the probit (q = K outputs sharing αₘ and Σ (P2)).
type mcBlock struct {
	mcActive
	q int       // outputs that share the block's Σ and ⟨α⟩
	d []float64 // φₘᵀBφₘ of every function
	// fixed, if not nil, is the mean (M × q) set by the likelihood's
	// step on the means, in place of Σh_act until the next fresh.
	fixed *mat.Dense
}

// mean returns the means (M × q) of the block's active weights, Σh_act
// (M4), (P3), or those set by the step on the means.
func (c *mcBlock) mean() *mat.Dense {
	if c.fixed != nil {
		return mat.DenseCopyOf(c.fixed)
	}
	return c.meanAct()
}

// vec returns the means of a one-output block as a vector.
func (c *mcBlock) vec() []float64 {
	if c.fixed != nil {
		return mat.Col(nil, 0, c.fixed)
	}
	return mat.Col(nil, 0, c.meanAct())[:len(c.act)]
}

// setVec sets the means of a one-output block to mu.
func (c *mcBlock) setVec(mu []float64) {
	c.fixed = nil
	if len(mu) > 0 {
		c.fixed = mat.NewDense(len(mu), 1, mu)
	}
}

// mcActive is one Q(W) block of the sequential multi-class solvers: its
// active functions, their ⟨α⟩ and Σ, and the statistics (M14) or (P12)
// of the candidates it holds, for q outputs that share Σ (one, a class
// of the softmax model; K, the shared-α probit: mcBlock).
// The updates below are exact: rank-one changes of Σ for a changed ⟨α⟩
// or a removal, a bordered Σ for an addition.
type mcActive struct {
	act    []int
	alpha  []float64
	sig    *mat.Dense // Σ (M × M)
	logDet float64
	rows   []int      // the functions whose statistics are held: all, or the active ones
	at     []int      // each function's position in rows, or −1
	c      *mat.Dense // R × M: Φ_rowsᵀBΦ_act
	e      *mat.Dense // R × M: CΣ
	ss     []float64  // Sₘ of the rows
	qq     *mat.Dense // R × q: Qₘ of the rows, one column per output
	h      *mat.Dense // P × q: Φᵀz of every function, one column per output
	del    map[int]int
}

// hold sets the rows whose statistics are held (every function with
// all, else the active ones) and C = Φ_rowsᵀBΦ_act from phiA = Φ_act and
// bphiA = BΦ_act.
func (s *mcActive) hold(phi, phiA, bphiA *mat.Dense, all bool) {
	_, np := phi.Dims()
	m := len(s.act)
	s.at = make([]int, np)
	for j := range s.at {
		s.at[j] = -1
	}
	if all {
		s.rows = subset.Seq(np)
		s.c = mat.NewDense(np, m, nil)
		dense.Mul(s.c, phi.T(), bphiA)
	} else {
		s.rows = append([]int(nil), s.act...)
		s.c = mat.NewDense(m, m, nil)
		dense.Mul(s.c, phiA.T(), bphiA)
	}
	for r, j := range s.rows {
		s.at[j] = r
	}
}

// factor sets Σ = (Φ_actᵀBΦ_act + diag⟨α⟩)⁻¹ from C (hold), and from
// it E = CΣ and the statistics Sₘ = dₘ − CₘΣCₘᵀ, Qₘ = hₘ − CₘΣh_act of
// the held rows, with d (φₘᵀBφₘ of every function) and h set.
func (s *mcActive) factor(iter int, d []float64) error {
	m := len(s.act)
	prec := mat.NewSymDense(m, nil)
	for i, a := range s.act {
		for j := i; j < m; j++ {
			prec.SetSym(i, j, s.c.At(s.at[a], j))
		}
		prec.SetSym(i, i, prec.At(i, i)+s.alpha[i])
	}
	var q posterior.Gauss
	if err := q.Factor(prec, iter); err != nil {
		return err
	}
	s.sig = mat.DenseCopyOf(q.Sigma())
	s.logDet = q.LogDet
	nr := len(s.rows)
	_, nq := s.h.Dims()
	s.e = mat.NewDense(nr, m, nil)
	s.qq = mat.NewDense(nr, nq, nil)
	if m > 0 {
		dense.Mul(s.e, s.c, s.sig)
		dense.Mul(s.qq, s.e, subset.Rows(s.h, s.act))
	}
	s.ss = make([]float64, nr)
	for r, j := range s.rows {
		s.ss[r] = d[j] - vec.Dot(s.c.RawRowView(r), s.e.RawRowView(r))
		qr := s.qq.RawRowView(r)
		for k := range qr {
			qr[k] = s.h.At(j, k) - qr[k]
		}
	}
	return nil
}

// meanAct returns Σh_act, the means (M × q) of the active weights.
func (s *mcActive) meanAct() *mat.Dense {
	m := len(s.act)
	_, nq := s.h.Dims()
	mu := mat.NewDense(max(m, 1), nq, nil)
	if m == 0 {
		return mu
	}
	dense.Mul(mu, s.sig, subset.Rows(s.h, s.act))
	return mu
}

// qsq returns Σₖ Qₘₖ² of held row r.
func (s *mcActive) qsq(r int) float64 {
	var q2 float64
	for _, v := range s.qq.RawRowView(r) {
		q2 += v * v
	}
	return q2
}

// stats returns s and Σₖqₖ² of (S1), (P12) for active position i,
// without its own terms.
func (s *mcActive) stats(i int) (sv, q2 float64) {
	r := s.at[s.act[i]]
	a := s.alpha[i]
	if den := a - s.ss[r]; den > mcStatsCut*a {
		f := a / den
		return f * s.ss[r], f * f * s.qsq(r)
	}
	// With its own terms, Sᵢ = αs/(α + s) ≈ α − α²/s when ⟨α⟩ is far
	// below s (the bias held by (M24)), and α − Sᵢ has lost its digits:
	// then s = 1/Σᵢᵢ − α and qₖ = μᵢₖ/Σᵢᵢ, μ = Σh_act.
	sii := s.sig.At(i, i)
	sv = math.Max(0, 1/sii-a)
	_, nq := s.h.Dims()
	si := s.sig.RawRowView(i)
	for k := range nq {
		var mu float64
		for j, m := range s.act {
			mu += si[j] * s.h.At(m, k)
		}
		q2 += (mu / sii) * (mu / sii)
	}
	return sv, q2
}

// mcStatsCut is the smallest (α − Sᵢ)/α for which stats uses Sᵢ and Qᵢ:
// α above 10⁻⁴ s, where α − Sᵢ keeps all but about 8 of its digits.
const mcStatsCut = 1e-4

// rankOne applies Σ ← Σ − κσᵢσᵢᵀ to Σ, E, S and Q.
func (s *mcActive) rankOne(i int, kappa float64) {
	m := len(s.act)
	nr, _ := s.e.Dims()
	_, nq := s.h.Dims()
	si := mat.Col(nil, i, s.sig)
	ei := mat.Col(nil, i, s.e)
	sh := make([]float64, nq) // σᵢᵀh_act
	for r, a := range s.act {
		for k, v := range s.h.RawRowView(a) {
			sh[k] += si[r] * v
		}
	}
	blas64.Ger(-kappa, blas64.Vector{N: m, Inc: 1, Data: si}, blas64.Vector{N: m, Inc: 1, Data: si}, s.sig.RawMatrix())
	blas64.Ger(-kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: m, Inc: 1, Data: si}, s.e.RawMatrix())
	blas64.Ger(kappa, blas64.Vector{N: nr, Inc: 1, Data: ei}, blas64.Vector{N: nq, Inc: 1, Data: sh}, s.qq.RawMatrix())
	for r, v := range ei {
		s.ss[r] += kappa * v * v
	}
}

// setAlpha sets ⟨α⟩ of active position i to a.
func (s *mcActive) setAlpha(i int, a float64) {
	d := a - s.alpha[i]
	if d == 0 {
		return
	}
	sii := s.sig.At(i, i)
	s.rankOne(i, d/(1+d*sii))
	s.logDet -= math.Log1p(d * sii)
	s.alpha[i] = a
}

// remove takes active position i out of the active set.
func (s *mcActive) remove(i int) {
	sii := s.sig.At(i, i)
	s.rankOne(i, 1/sii)
	s.logDet -= math.Log(sii)
	keep := make([]int, 0, len(s.act)-1)
	for j := range s.act {
		if j != i {
			keep = append(keep, j)
		}
	}
	s.del[s.act[i]]++
	s.sig = subset.Cols(subset.Rows(s.sig, keep), keep)
	s.e = subset.Cols(s.e, keep)
	s.c = subset.Cols(s.c, keep)
	s.act = subset.Ints(s.act, keep)
	s.alpha = subset.Vec(s.alpha, keep)
}

// add puts candidate j into the active set with ⟨α⟩ = a, given
// cn = ΦᵀBφⱼ; the statistics of every candidate must be held.
func (s *mcActive) add(j int, a float64, cn []float64) {
	np := len(cn)
	if len(s.rows) != np {
		panic("multiclass: mcActive.add without every candidate's statistics")
	}
	m := len(s.act)
	_, nq := s.h.Dims()
	sb := make([]float64, m)
	bj := make([]float64, m)
	for i := range m {
		sb[i] = s.e.At(j, i) // Σb, b = C[j, :]
		bj[i] = s.c.At(j, i)
	}
	sigma := 1 / (a + s.ss[j])
	u := make([]float64, np) // E b
	if m > 0 {
		blas64.Gemv(blas.NoTrans, 1, s.e.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: bj}, 0, blas64.Vector{N: np, Inc: 1, Data: u})
	}
	delta := make([]float64, np)
	for r := range np {
		delta[r] = cn[r] - u[r]
	}
	qj := append([]float64(nil), s.qq.RawRowView(j)...)
	ns := mat.NewDense(m+1, m+1, nil)
	for r := range m {
		for c := range m {
			ns.Set(r, c, s.sig.At(r, c)+sigma*sb[r]*sb[c])
		}
		ns.Set(r, m, -sigma*sb[r])
		ns.Set(m, r, -sigma*sb[r])
	}
	ns.Set(m, m, sigma)
	s.sig = ns
	s.logDet += math.Log(sigma)
	ne := mat.NewDense(np, m+1, nil)
	nc := mat.NewDense(np, m+1, nil)
	for r := range np {
		er, dst := s.e.RawRowView(r), ne.RawRowView(r)
		for c := range m {
			dst[c] = er[c] - sigma*delta[r]*sb[c]
		}
		dst[m] = sigma * delta[r]
		copy(nc.RawRowView(r), s.c.RawRowView(r))
		nc.Set(r, m, cn[r])
	}
	s.e, s.c = ne, nc
	blas64.Ger(-sigma, blas64.Vector{N: np, Inc: 1, Data: delta}, blas64.Vector{N: nq, Inc: 1, Data: qj}, s.qq.RawMatrix())
	for r, v := range delta {
		s.ss[r] -= sigma * v * v
	}
	s.act = append(s.act, j)
	s.alpha = append(s.alpha, a)
}
