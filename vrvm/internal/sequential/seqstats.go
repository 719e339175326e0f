package sequential

import (
	"math"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// uniform reports whether the likelihood's precisions are all equal,
// B = βI. It selects what can be computed, never how the fit proceeds
// (that is the schedule's, seqSchedule): with B = βI, dⱼ = β‖bⱼ‖² and
// no W̃ = UᵀWU is formed, the Gram matrix G = B_A B_Aᵀ, B_A Uᵀd and the
// rows of B_A Bᵀ are kept by add and remove (and B_A is not kept when
// rowsShared), Σ and μ follow additions and removals by the partitioned
// inverse, a rejected extrapolation restores the kept Q_w (keepQ), the
// excluded terms of the trace reduce to exSum, and (S14) has the kept Σ
// and rows of B_A Bᵀ it needs; otherwise the active design Φ_A is
// formed (setPhiA) and everything goes through it.
func (s *seqFit) uniform() bool { b, _ := s.lik.Weights(); return b == nil }

// weighted returns dⱼ = φⱼᵀBφⱼ for every candidate function and Uᵀy.
// This is the O(P r²) part of the candidate statistics (O(P N) for the
// explicit design); it changes only with the likelihood's factor. With
// uniform precisions dⱼ = β‖bⱼ‖². B W̃ is not formed: candidateStats
// forms what it needs of it (activeCross, explicitCross).
//
// With non-uniform precisions (classification) the O(N r²) of W̃ = UᵀWU
// is spent only when some βₙ has moved by more than tol relative since
// the last computation (seqWeightTol, ParamTol in the rounds that can end
// the fit, 0 for the final bound); otherwise the kept dⱼ are returned.
// fresh reports whether they were computed now.
func (s *seqFit) weighted(tol float64) (yv, dv []float64, fresh bool) {
	yv, dv = s.weightedNow(tol)
	return yv, dv, s.wFresh
}

func (s *seqFit) weightedNow(tol float64) (yv, dv []float64) {
	_, scale := s.lik.Data()
	s.wFresh = true
	yv = make([]float64, len(s.ud))
	for i, v := range s.ud {
		yv[i] = scale * v
	}
	if beta, uni := s.lik.Weights(); beta == nil {
		// dv is used by the caller before the next call (the round, the
		// bound), so that its storage is kept.
		s.dvBuf = vec.Resize(s.dvBuf, len(s.bnorm))
		dv = s.dvBuf
		for j, v := range s.bnorm {
			dv[j] = uni * v
		}
		return yv, dv
	}
	beta, _ := s.lik.Weights()
	if !s.f.Ident && s.wBeta != nil && !moved(s.wBeta, beta, tol) {
		s.wFresh = false
		return yv, s.wDV
	}
	// candidateStats forms cⱼ from Φ_A (activeCross) or from blocks of
	// B W̃ (explicitCross).
	dv = s.f.WeightedDiag(s.lik)
	s.wBeta = append(s.wBeta[:0], beta...)
	s.wDV = dv
	return yv, dv
}

// An addition round on the explicit design with non-uniform precisions
// (a classifier whose kernel has a large numerical rank) needs dⱼ =
// φⱼᵀBφⱼ only for the candidates it ranks, a shortlist in most rounds,
// and for every function only when it holds the excluded factors
// (holdExcluded). Computing every dⱼ at each round streamed the P × N
// design once more per round (docs/benchmarks.md, "Measurements behind choices in the code"). The round therefore
// starts from pendingDiag and fills dⱼ where it needs them, with the
// same products (explicitCross, fillDiag), so the fit is unchanged to
// the bit.

// lazyDiag reports whether addition rounds compute dⱼ on demand.
func (s *seqFit) lazyDiag() bool {
	beta, _ := s.lik.Weights()
	return s.f.Ident && beta != nil
}

// pendingDiag returns P values of dⱼ, each NaN (still to be computed).
func (s *seqFit) pendingDiag() []float64 {
	p, _ := s.f.BFull.Dims()
	dv := make([]float64, p)
	for j := range dv {
		dv[j] = math.NaN()
	}
	return dv
}

// fillDiag computes the dⱼ still pending in dv for the candidates idx
// (every one if idx is nil), as explicitDiag does.
func (s *seqFit) fillDiag(dv []float64, idx []int) {
	if !s.lazyDiag() {
		return
	}
	beta, _ := s.lik.Weights()
	bf := s.f.BFull
	_, n := bf.Dims()
	var row []float64
	one := func(c int) {
		if !math.IsNaN(dv[c]) {
			return
		}
		if row == nil {
			row = make([]float64, n)
		}
		dv[c] = design.WeightedSquare(row, beta, bf.RawRowView(c))
	}
	if idx == nil {
		for c := range dv {
			one(c)
		}
		return
	}
	for _, c := range idx {
		one(c)
	}
}

// moved reports whether some b[n] differs from a[n] by more than tol
// relative (any difference if tol is 0).
func moved(a, b []float64, tol float64) bool {
	for n, v := range a {
		if math.Abs(b[n]-v) > tol*math.Abs(v) {
			return true
		}
	}
	return false
}

// seqWeightTol is the largest relative change of any likelihood
// precision βₙ = 2λ(ξₙ) (classification) for which an addition round
// reuses dⱼ = φⱼᵀWφⱼ from an earlier round instead of recomputing them,
// O(N r² + P r²) (weighted). The statistics sⱼ and qⱼ
// of (S1) then use the current Σ and μ but precisions within this
// tolerance of the current ones, for ranking and adding candidates; the
// rounds that can end the fit (an iteration whose changes are within
// ParamTol) use ParamTol instead, and the reported FullModelBound exact
// precisions. Recomputing every round made the N r² products most of the
// time of large classification fits (docs/benchmarks.md, "Measurements behind choices in the code").
const seqWeightTol = 1e-2

// candidateStats returns, for the candidate functions idx (every
// candidate if idx is nil), sⱼ and qⱼ of (S1) computed without j (for an
// active j the values include j; they are not used), from the output of
// weighted: with cⱼ = Φ_AᵀBφⱼ, sⱼ = dⱼ − cⱼᵀΣcⱼ and qⱼ = φⱼᵀy − cⱼᵀμ,
// where φⱼᵀy = scale·bⱼᵀUᵀd is kept from the start (bud0). With uniform
// precisions cⱼ = β(B_A bⱼ), kept by add and remove in cross, so that a
// round costs O(|idx| M²); otherwise C = B W̃ B_Aᵀ costs O(|idx| r M).
func (s *seqFit) candidateStats(dv []float64, idx []int) (sv, qv []float64) {
	_, scale := s.lik.Data()
	p := len(dv)
	if idx != nil {
		p = len(idx)
	}
	at := func(j int) int {
		if idx == nil {
			return j
		}
		return idx[j]
	}
	m := len(s.act)
	// sv and qv are overwritten by the next call (bestAddition's).
	s.svBuf, s.qvBuf = vec.Resize(s.svBuf, p), vec.Resize(s.qvBuf, p)
	sv, qv = s.svBuf, s.qvBuf
	init := func() {
		for j := range p {
			sv[j], qv[j] = dv[at(j)], scale*s.bud0[at(j)]
		}
	}
	if p == 0 || m == 0 {
		s.fillDiag(dv, idx)
		init()
		return sv, qv
	}
	if s.uniform() && m < posterior.QuadGemmMin {
		s.fillDiag(dv, idx)
		init()
		if idx == nil {
			s.completeCross()
		}
		quad := vec.Resize(s.csBuf, p)
		s.csBuf = quad
		s.uniformStats(idx, qv, quad)
		return s.clampStats(sv, qv, quad)
	}
	// ct holds cⱼ as its column j (M × p); cs = Σ ct.
	ct := vec.WorkDense(&s.ctBuf, m, p)
	// With uniform precisions qⱼ's products cᵢⱼμᵢ are taken as cⱼ is
	// formed (fused, one pass over C), in the same order.
	fused := s.uniform()
	if fused {
		s.fillDiag(dv, idx)
		init()
	}
	switch {
	case s.uniform() && idx == nil:
		s.completeCross()
		_, uni := s.lik.Weights()
		for i := range m {
			src, dst, mu := s.cross[i], ct.RawRowView(i)[:len(qv)], s.q.Mu[i]
			for j, v := range src[:len(dst)] {
				dst[j] = uni * v
				qv[j] -= dst[j] * mu
			}
		}
	case s.uniform():
		_, uni := s.lik.Weights()
		for i := range m {
			src, dst, mu := s.cross[i], ct.RawRowView(i), s.q.Mu[i]
			for j, c := range idx {
				dst[j] = uni * src[c]
				qv[j] -= dst[j] * mu
			}
		}
	case !s.f.Ident:
		// C = (Φ_AᵀWU) Bᵀ at the current precisions, O(N M r + |idx| r M),
		// whether or not dⱼ were kept from an earlier round (weighted);
		// rows kept while the precisions are unchanged (activeCross).
		beta, _ := s.lik.Weights()
		ct = s.activeCross(beta, idx)
	default:
		beta, _ := s.lik.Weights()
		s.explicitCross(beta, idx, p, ct, dv)
	}
	if !fused {
		s.fillDiag(dv, idx)
		init()
	}
	// cⱼᵀΣcⱼ from the upper triangle of Σ (quadForms).
	quad := vec.Resize(s.csBuf, p)
	s.csBuf = quad
	posterior.QuadForms(s.sig.RawSymmetric(), ct, quad, &s.quadBuf)
	if !fused {
		for i := range m {
			cr, mu := ct.RawRowView(i), s.q.Mu[i]
			for j := range p {
				qv[j] -= cr[j] * mu
			}
		}
	}
	return s.clampStats(sv, qv, quad)
}

// clampStats subtracts quad (cⱼᵀΣcⱼ) from sv (dⱼ), keeps the result in
// svRaw and returns sv clamped at 0, with qv.
func (s *seqFit) clampStats(sv, qv, quad []float64) ([]float64, []float64) {
	for j, v := range quad {
		sv[j] -= v
	}
	s.svRaw = append(s.svRaw[:0], sv...)
	for j := range sv {
		sv[j] = math.Max(sv[j], 0)
	}
	return sv, qv
}
