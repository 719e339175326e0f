package sequential

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// An addition's sparsity factor as a minimum (S14). With uniform
// precisions addUpdate adds function j by the partitioned inverse, whose
// σ = 1/(⟨αⱼ⟩ + sⱼ) scales the rank-one term σ(Σc)(Σc)ᵀ added to Σ. Its
// plain form sⱼ = dⱼ − cᵀΣc (c = βB_A bⱼ, dⱼ = β‖bⱼ‖²) is a sum of
// products cₐΣₐᵦcᵦ whose rounding is about u·|c|ᵀ|Σ||c| (u = 2⁻⁵³), not
// u·dⱼ as (S11) assumes: under wide kernels on many rows the active
// functions are nearly collinear, their weights' posterior variances
// large and of both signs, and |c|ᵀ|Σ||c| reaches 10¹⁰ dⱼ. sⱼ is then
// mostly rounding even above seqCollinear·dⱼ, Σ' is wrong along Σc, the
// next additions' cᵀΣc inherit the error, and the sweep's sₘ = 1/Σₘₘ − ⟨αₘ⟩
// turns negative: ⟨αₘ⟩ fell to 10⁻⁶⁰, 1 + ΔΣₘₘ below zero made Σ
// indefinite and ln|Σ| NaN, and the fit failed ("posterior precision has
// non-finite or non-positive entries"). Where u·|c|ᵀ|Σ||c| exceeds
// seqRoundS·sⱼ, sⱼ is computed instead as the minimum it is,
//
//	sⱼ = min_x β‖bⱼ − B_Aᵀx‖² + Σₐ ⟨αₐ⟩xₐ²,  attained at x = Σc,        (S14)
//
// a sum of non-negative terms, evaluated at the computed x = Σc: an error
// δ in x changes it by δᵀΣ⁻¹δ only, second order (O(M r) for the one
// candidate added). The candidate is then judged again with it (judge:
// (S11), (S5), and seqLargeGain) and added at its optimal ⟨αⱼ⟩, or not
// added and left out until the active set changes. The minimum is taken
// from a refactorised Σ (rebuild, O(M³/3), when Σ has been updated since
// the last factorisation): the kept Σ after rank-one updates is not
// accurate enough there. The candidates are judged again best first
// (exactBest), in the round itself: judging them after they were chosen
// dropped many, and choosing again from scratch each time was slow. It
// was made for a Friedman #1 fit under a wide kernel that failed with an
// indefinite Σ (the record in docs/benchmarks.md, "Measurements behind
// choices in the code", (S14)).
const seqRoundS = 1e-8

// Settings.NoExact turns the minimum form of (S14) off, for measurements (the
// sweep's refactorisation in place of a clamped sₘ is not switched; it
// alone keeps TestWideKernelManyRows finite). (S14) can stop at a lower
// local maximum than the fit without it reaches, which is not resolved
// (the record in docs/benchmarks.md, (S14) switched off).

// exactCand is a candidate of bestAddition for exactBest: its function
// j, ranking gain g and optimal ⟨αⱼ⟩, and its sⱼ by (S14) once judged
// again (s is NaN before).
type exactCand struct {
	j, pos   int // pos: its index in the round's statistics
	g, alpha float64
	s        float64
	dropped  bool
}

// exactBest returns the candidate of cs with the largest gain, each
// judged again, best first, by exactAddition until the best needs no more
// (S14): one whose plain sⱼ is trusted, or one judged again, its gain
// then that of its sⱼ by (S14), returned as sj (NaN for the plain sⱼ).
// The candidates that no longer qualify are passed over. Those of the
// round whose gains were not computed (lazy, by their bounds (S16)) are
// computed and join cs before a candidate is taken whose gain does not
// exceed their bounds, so that the choice is that among all.
func (s *seqFit) exactBest(cs []exactCand, lazy *lazyRound, iter int) (j int, alpha, sj float64, ok bool, err error) {
	for {
		bi := -1
		for i := range cs {
			if !cs[i].dropped && (bi < 0 || cs[i].g > cs[bi].g) {
				bi = i
			}
		}
		if len(lazy.lazy) > 0 {
			thr := math.Inf(-1)
			if bi >= 0 {
				thr = cs[bi].g
			}
			if !(thr > lazy.maxBound()) {
				cs = s.expand(lazy, cs, thr)
				continue
			}
		}
		if bi < 0 {
			return 0, 0, math.NaN(), false, nil
		}
		c := &cs[bi]
		if !math.IsNaN(c.s) {
			return c.j, c.alpha, c.s, true, nil
		}
		a, se, g, good, checked, err := s.exactAddition(c.j, iter)
		switch {
		case err != nil:
			return 0, 0, math.NaN(), false, err
		case !checked:
			return c.j, c.alpha, math.NaN(), true, nil
		case !good:
			c.dropped = true
		default:
			c.alpha, c.s, c.g = a, se, g
		}
	}
}

// exactAddition checks the plain sⱼ of candidate j (uniform precisions,
// a non-empty active set and Σ kept): checked is false if its rounding
// is at most seqRoundS·sⱼ; otherwise sj is (S14), from Σ refactorised
// first if it has been updated since rebuild, alpha the optimal ⟨αⱼ⟩ for
// it, g its ranking gain and ok whether j still qualifies (judge, and
// seqLargeGain as in bestAddition).
func (s *seqFit) exactAddition(j, iter int) (alpha, sj, g float64, ok, checked bool, err error) {
	plain, abs, c, x := s.plainS(j)
	if 0x1p-53*abs <= seqRoundS*plain {
		return 0, 0, 0, false, false, nil
	}
	if s.sigUpdates > 0 {
		if err := s.rebuild(iter); err != nil {
			return 0, 0, 0, false, true, err
		}
		_, _, c, x = s.plainS(j)
	}
	_, uni := s.lik.Weights()
	_, scale := s.lik.Data()
	bj := s.f.BFull.RawRowView(j)
	_, r := s.f.BFull.Dims()
	res := append([]float64(nil), bj...)
	for a, act := range s.act {
		blas64.Axpy(-x[a], blas64.Vector{N: r, Inc: 1, Data: s.f.BFull.RawRowView(act)}, blas64.Vector{N: r, Inc: 1, Data: res})
	}
	sj = uni * vec.Dot(res, res)
	for a, v := range x {
		sj += s.alpha[a] * v * v
	}
	d := uni * s.bnorm[j]
	qj := scale*s.bud0[j] - vec.Dot(c, s.q.Mu)
	alpha, g, ok = s.judge(sj, qj*qj, d, false)
	if ok && s.largeSet() && !s.annealing && g < seqLargeGain*float64(s.n) {
		ok = false
	}
	return alpha, sj, g, ok, true, nil
}

// plainS returns the plain sⱼ = dⱼ − cᵀΣc of candidate j, |c|ᵀ|Σ||c|,
// c = βB_A bⱼ and x = Σc.
func (s *seqFit) plainS(j int) (plain, abs float64, c, x []float64) {
	m := len(s.act)
	_, uni := s.lik.Weights()
	col := make([]float64, m+1)
	if !s.crossColumn(j, col) {
		s.activeProducts(s.f.BFull.RawRowView(j), col)
	}
	c = col[:m]
	for i := range c {
		c[i] *= uni
	}
	sig := s.sig.RawSymmetric()
	x = make([]float64, m)
	blas64.Symv(1, sig, blas64.Vector{N: m, Inc: 1, Data: c}, 0, blas64.Vector{N: m, Inc: 1, Data: x})
	plain = uni*s.bnorm[j] - vec.Dot(c, x)
	// |c|ᵀ|Σ||c| from the upper triangle.
	for a := range m {
		row := sig.Data[a*sig.Stride+a : a*sig.Stride+m]
		var off float64
		for k, v := range row[1:] {
			off += math.Abs(v * c[a+1+k])
		}
		abs += math.Abs(c[a]) * (math.Abs(row[0]*c[a]) + 2*off)
	}
	return plain, abs, c, x
}
