package sequential

import (
	"cmp"
	"math"
	"slices"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
)

// A full addition round ranks every candidate (the shortlist,
// seqShortlist, is those with the largest gains), and rankGain, whose
// ⟨αₘ⟩ is the root of a cubic, was the largest part of the default fit
// (docs/benchmarks.md, "Issue 49, acceptance 3: the gain bound (S16)").
// Most candidates cannot enter the shortlist nor be added: gainBound
// bounds their gain from above, at the cost of a square root and a few
// divisions (a logarithm where that is not enough), and bestAddition
// computes the exact gain only of a
// candidate whose bound reaches the least gain of the shortlist so far
// (gainHeap) or the best addition so far. The bound is valid, so the
// round ranks, keeps and adds the same candidates as with every gain
// computed: the fit is the same to the bit. Where (S14) judges the
// candidates again (exactBest), the ones passed over are kept with their
// bounds (lazyCand) and computed should the best fall to their bound.

// gainBound returns an upper bound on the gain g of rankGain for a
// candidate with the factors sm > 0 and q2 = qₘ² of (S1):
//
//	g = f(a; s, q²) − f(α₀; s, 0),   α₀ = alphaRoot(s, 0),
//
// where a = additionAlpha's ⟨αₘ⟩ lies in (0, P], P = PruneAlpha (the
// maximiser of (S1) only where it is at most P/seqAddMargin, otherwise
// alphaRootUpTo's, at most P). By (S1), f(a; s, q²) = f(a; s, 0) +
// ½q²/(a + s) ≤ f(a; s, 0) + ½q²/(s + l) for any l ≤ a (l = 0, or
// l = min(P, α₀/2) where rootAbove shows every root of α f'(α) above l:
// a is such a root or the end of its interval, min(P, ã/b) ≥ l; the
// rounding of a is within the margin below), and f(·; s, 0) rises below its only
// maximiser α₀ and falls above it (alphaRootQuiet), so that
// f(a; s, 0) ≤ f(min(P, α₀); s, 0). Hence
//
//	g ≤ ½q²/(s + l) + [f(P; s, 0) − f(α₀; s, 0)]₍α₀ > P₎,          (S16)
//
// and, for α₀ > P, f(P; s, 0) − f(α₀; s, 0) = (a+½) ln(P/α₀) − b(P − α₀)
// − ½ ln((P + s)/(α₀ + s)) ≤ ½ ln(P(α₀ + s)/(α₀(P + s))) + b(α₀ − P),
// as a ln(P/α₀) < 0 there. α₀ is the same computed value as rankGain's:
// should the exact maximiser lie on the other side of P, the bound
// changes by f's change over the rounding of α₀, second order in it. The
// margin added covers the rounding of the gain's terms (S1), each at
// most a few units in the last place of a magnitude below 745·(a + 1),
// ½q²/s or b·α₀, a thousand times over. (The bracket is 0 where α₀ ≤ P.)
//
// gainBound returns (S16)'s terms, with l = 0; sharpen takes l =
// min(P, α₀/2) where it can. Its bound is tight, and loose (the same
// without its logarithm, by ln x ≤ x − 1) is cheaper.
func (s *seqFit) gainBound(sm, q2 float64) gainBnd {
	a, b, p := s.prior.A, s.prior.B, s.pruneAt
	r := gainBnd{a0: lb.AlphaRootQuiet(a, b, sm), x: 1, sm: sm, q2: q2}
	r.rest = 1e-9 * (1 + a + b*r.a0)
	if r.a0 > p {
		r.x = p * (r.a0 + sm) / (r.a0 * (p + sm))
		r.rest += b * (r.a0 - p)
	}
	r.setQ(0.5 * q2 / sm)
	return r
}

// sharpen replaces ½q²/s of (S16) by ½q²/(s + l), l = min(P, α₀/2), where
// rootAbove shows every root of α f'(α) above l (a ≥ l).
func (s *seqFit) sharpen(g *gainBnd) {
	a, b := s.prior.A, s.prior.B
	if l := math.Min(s.pruneAt, 0.5*g.a0); rootAbove(a, b, g.sm, g.q2, l) {
		g.setQ(0.5 * g.q2 / (g.sm + l))
	}
}

// setQ sets the q² term of (S16) to q (and its share of the margin).
func (g *gainBnd) setQ(q float64) { g.base = q + g.rest + 1e-9*q }

// gainBnd holds the terms of (S16) for a candidate with sₘ = sm and
// q2 = qₘ²: α₀, x = P(α₀ + s)/(α₀(P + s)) (1 where α₀ ≤ P), the q² term
// with the rest, base, and the rest alone (b(α₀ − P) and the margin).
type gainBnd struct{ a0, x, base, rest, sm, q2 float64 }

// tight returns the bound (S16), +Inf for NaN (never passed over).
func (g gainBnd) tight() float64 { return notNaN(g.base + 0.5*math.Log(g.x)) }

// loose returns (S16) with ln x ≤ x − 1, at least tight.
func (g gainBnd) loose() float64 { return notNaN(g.base + 0.5*(g.x-1)) }

// notNaN returns v, or +Inf for NaN.
func notNaN(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// mayQualify reports whether a candidate with q2 = qₘ² and dₘ = d of
// (S1), gain bound ub (either of bd's) could be strong (additionAlpha),
// false only where it cannot. Strong is either (i) the maximiser of (S1)
// at most lim = P/seqAddMargin, whose gain is then max f(·; s, q²) −
// max f(·; s, 0) ≥ 0 (the q² term of (S1) is positive): not if ub < 0,
// nor if rootAbove shows the maximiser above lim; or (ii) a contribution
// (S5) above keepGain, f(a; s, q²) − max f(·; d, 0) = g + f(α₀; s, 0) −
// max f(·; d, 0) ≤ g + f(α₀; s, 0) − f(α₀; d, 0), which is at most
// base + ½ ln(x·y), y = (α₀ + d)/(α₀ + s), by (S16) and (S1), with the
// margin of gainBound (and with ln ≤ x − 1 first).
func (s *seqFit) mayQualify(q2, d, ub float64, bd gainBnd) bool {
	if !(ub < 0) && !rootAbove(s.prior.A, s.prior.B, bd.sm, q2, s.pruneAt/seqAddMargin) {
		return true
	}
	if math.IsInf(s.keepGain, 1) {
		return false
	}
	xy := bd.x * (bd.a0 + d) / (bd.a0 + bd.sm)
	m := 1e-9 * (2 + s.prior.A)
	if bd.base+0.5*(xy-1)+m <= s.keepGain {
		return false
	}
	return !(bd.base+0.5*math.Log(xy)+m <= s.keepGain)
}

// rootAbove reports whether every root of g = α f'(α) of (S1) (rootFn),
// and so the maximiser, lies above lim, by a bound on g over (0, lim]:
// with u = α + s, g = a − bα + ½N(α)/u², N(α) = s² + α(s − q²), and
// N(α)/u² falls with α where N(lim) > 0 (where q² ≤ s its derivative
// has the sign of −s² − sq² − α(s − q²); where q² > s both N and 1/u²
// fall), so that g ≥ a − b·lim + ½N(lim)/(lim + s)²; if that exceeds a
// margin for the rounding of g (as in alphaRootAbove), g > 0 on (0, lim].
func rootAbove(a, b, s, q2, lim float64) bool {
	n := s*s + lim*(s-q2)
	if !(n > 0) || !(lim > 0) || math.IsInf(lim, 1) {
		return false
	}
	u := lim + s
	scale := 1 + a + b*lim + 0.5*(s*s+lim*(s+q2))/(u*u)
	return a-b*lim+0.5*n/(u*u) > 1e-9*scale
}

// gainHeap keeps the k candidates with the largest gains of those added
// to it, as largestGains keeps them from the list of all: the first k in
// a min-heap, built once a further candidate comes (admits), each later
// one taking the least's place if its gain is larger. A candidate whose
// gain bound (gainBound) is below the least cannot take its place, and
// leaves the heap as it would have left it.
type gainHeap struct {
	cs     []addCand
	k      int
	heaped bool
	// floor is a lower bound on the k-th largest gain of the round
	// (gainFloor), −Inf where none is known: a candidate whose bound is
	// below it cannot be among the k largest, even before the heap is
	// full.
	floor float64
}

// admits reports whether a candidate whose gain is at most ub could enter
// the heap; called for each candidate in turn, before add.
func (h *gainHeap) admits(ub float64) bool {
	if ub < h.floor {
		return false
	}
	if len(h.cs) < h.k {
		return true
	}
	if !h.heaped {
		for i := h.k/2 - 1; i >= 0; i-- {
			siftGain(h.cs, i)
		}
		h.heaped = true
	}
	return !(ub < h.cs[0].g)
}

// add offers candidate c (after admits).
func (h *gainHeap) add(c addCand) {
	if len(h.cs) < h.k {
		h.cs = append(h.cs, c)
		return
	}
	if c.g > h.cs[0].g {
		h.cs[0] = c
		siftGain(h.cs, 0)
	}
}

// lazyCand is a candidate of an addition round judged again by (S14)
// whose gain was not computed: k its index in the round's statistics, m
// its function and ub its gain bound (gainBound).
type lazyCand struct {
	k, m int
	ub   float64
}

// lazyRound holds what exactBest needs to compute the gains of the
// candidates passed over (lazy): the round's statistics and the least
// gain of seqLargeGain (0 where it does not apply).
type lazyRound struct {
	lazy    []lazyCand
	sv, qv  []float64
	dv      []float64
	minGain float64
	max     float64 // the largest ub of lazy
}

// add keeps candidate c for exactBest.
func (l *lazyRound) add(c lazyCand) {
	if len(l.lazy) == 0 || c.ub > l.max {
		l.max = c.ub
	}
	l.lazy = append(l.lazy, c)
}

// maxBound returns the largest gain bound of the candidates left, −Inf
// if there are none.
func (l *lazyRound) maxBound() float64 {
	if len(l.lazy) == 0 {
		return math.Inf(-1)
	}
	return l.max
}

// expand computes the gains of the candidates left whose bounds are not
// below thr nor below the largest gain of a qualifying one computed so
// far (largest bound first where no gain is known, thr −Inf or NaN);
// appends those that qualify, as bestAddition would have, to cs; and
// returns cs in the order of the round (by pos), as bestAddition forms it.
func (s *seqFit) expand(l *lazyRound, cs []exactCand, thr float64) []exactCand {
	if !(thr > math.Inf(-1)) {
		thr = math.Inf(-1)
		slices.SortFunc(l.lazy, func(a, b lazyCand) int { return cmp.Compare(b.ub, a.ub) })
	}
	n := len(cs)
	left := l.lazy[:0]
	for _, c := range l.lazy {
		if c.ub < thr {
			left = append(left, c)
			continue
		}
		a, g, strong := s.rankGain(l.sv[c.k], l.qv[c.k], l.dv[c.m])
		if l.minGain > 0 && g < l.minGain || !strong || s.maxActive > 0 && len(s.act) >= s.maxActive {
			continue
		}
		if g > math.Inf(-1) {
			cs = append(cs, exactCand{j: c.m, g: g, alpha: a, s: math.NaN(), pos: c.k})
			thr = math.Max(thr, g)
		}
	}
	l.lazy, l.max = left, math.Inf(-1)
	for _, c := range left {
		l.max = math.Max(l.max, c.ub)
	}
	if len(cs) > n {
		slices.SortFunc(cs, func(a, b exactCand) int { return cmp.Compare(a.pos, b.pos) })
	}
	return cs
}

// gainFloor returns a lower bound on the k-th largest ranking gain of a
// full round (k = seqShortlist, the shortlist's size), from the round's
// statistics sv, qv and dv and bestAddition's mask in (the active
// functions and those removed seqMaxDeletions times): the
// least gain of k candidates that bestAddition ranks, those of the last
// shortlist first (most of them are among the largest again) and then the
// first others; −Inf if there are fewer than k or a gain is NaN. The
// first candidates of a round otherwise enter the heap whatever their
// bounds, until it is full, and its least gain rises slowly from theirs:
// with the floor, gainHeap admits only candidates whose bound reaches it,
// and keeps the same k candidates (those of the k largest gains; should
// two gains be equal at the k-th, the one kept may differ). The floor's
// gains cost k rankGain more per round.
func (s *seqFit) gainFloor(sv, qv, dv []float64, in []bool) float64 {
	k := seqShortlist
	floor, n := math.Inf(1), 0
	take := func(m int) bool {
		if in[m] || s.twin[m] || !(dv[m] > 0) || sv[m] <= seqCollinear*dv[m] {
			return true
		}
		_, g, _ := s.rankGain(sv[m], qv[m], dv[m])
		if math.IsNaN(g) {
			return false
		}
		floor, n = math.Min(floor, g), n+1
		return true
	}
	for _, m := range s.short {
		if !take(m) {
			return math.Inf(-1)
		}
	}
	for m := 0; n < k && m < len(sv); m++ {
		if !slices.Contains(s.short, m) && !take(m) {
			return math.Inf(-1)
		}
	}
	if n < k {
		return math.Inf(-1)
	}
	return floor
}
