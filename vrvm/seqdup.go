package vrvm

import "math"

// Duplicated training rows (classification). Rows with the same input,
// bit for bit, and the same label contribute identical terms to the
// Jaakkola–Jordan bound (60) at the optimum of their ξₙ (58), which is
// the same for each: the bound of the data set is that of its distinct
// rows with each term counted cₙ times,
//
//	⟨ln F⟩ = Σₙ cₙ{ln σ(ξₙ) + (tₙ − ½)μᵀφₙ − ξₙ/2 − λ(ξₙ)(φₙᵀ⟨wwᵀ⟩φₙ − ξₙ²)},
//
// so that Q_w (54)–(55) has precisions βₙ = 2cₙλ(ξₙ) and data
// cₙ(tₙ − ½). The sequential solver fits the distinct rows so weighted
// (countLik) when there are fewer of them than rows: a data set with every
// row twice then costs what the distinct rows cost per iteration (its
// posterior is a different one, the data counting twice). The basis is
// unchanged (functions centred at duplicated inputs are identical, and
// only one of each is ever added: twins).

// seqCollapse switches the collapsing of duplicated rows on (the tests
// compare it with the fit of every row).
var seqCollapse = true

// countLik is the logistic likelihood of distinct rows with counts.
type countLik struct {
	*logitLik
	count []float64 // cₙ
	beta  []float64 // 2cₙλ(ξₙ)
	half  []float64 // cₙ(tₙ − ½)
}

func newCountLik(l *logitLik, count []float64) *countLik {
	c := &countLik{logitLik: l, count: count, beta: make([]float64, len(count)), half: make([]float64, len(count))}
	for i, v := range count {
		c.half[i] = v * l.half[i]
	}
	c.sync()
	return c
}

// sync sets βₙ = 2cₙλ(ξₙ) from the current ξ.
func (c *countLik) sync() {
	for i, v := range c.count {
		c.beta[i] = v * c.logitLik.beta[i]
	}
}

func (c *countLik) weights() ([]float64, float64) { return c.beta, 0 }
func (c *countLik) data() ([]float64, float64)    { return c.half, 1 }

func (c *countLik) update() float64 {
	ch := c.logitLik.update() // (58): ξₙ does not depend on cₙ
	c.sync()
	return ch
}

func (c *countLik) setLogParams(u []float64) {
	c.logitLik.setLogParams(u)
	c.sync()
}

// terms returns ⟨ln F⟩ (60) with each row's term counted cₙ times.
func (c *countLik) terms() [3]float64 {
	l := c.logitLik
	var s float64
	for i, xi := range l.xi {
		s += c.count[i] * (LogSigmoid(xi) + l.half[i]*l.act[i] - xi/2 - l.lam[i]*(l.e[i]-xi*xi)) // (60)
	}
	return [3]float64{0, 0, s}
}

// collapsedRows is a problem over the distinct rows of another.
type collapsedRows struct {
	prob *problem
	of   []int // of[n]: the distinct row of row n
	orig *logitLik
	lik  *countLik
}

// collapseRows returns the problem p over its distinct (input, label)
// rows with counts, or nil if p is not a classification problem or has no
// duplicated rows.
func collapseRows(p *problem) *collapsedRows {
	orig, ok := p.lik.(*logitLik)
	if !ok || !seqCollapse {
		return nil
	}
	n, d := p.x.Dims()
	xd := denseOf(p.x)
	of := make([]int, n)
	var first []int
	seen := make(map[uint64][]int, n)
	for i := range n {
		row := xd.RawRowView(i)
		h := uint64(14695981039346656037)
		for _, v := range append(row[:d:d], orig.t[i]) {
			bits := math.Float64bits(v)
			for range 8 {
				h ^= bits & 0xff
				h *= 1099511628211
				bits >>= 8
			}
		}
		of[i] = -1
		for _, u := range seen[h] {
			if orig.t[first[u]] == orig.t[i] && sameBits(row, xd.RawRowView(first[u])) {
				of[i] = u
				break
			}
		}
		if of[i] < 0 {
			of[i] = len(first)
			seen[h] = append(seen[h], len(first))
			first = append(first, i)
		}
	}
	if len(first) == n {
		return nil
	}
	xu := selectRows(xd, first)
	count := make([]float64, len(first))
	for _, u := range of {
		count[u]++
	}
	tu := selectVec(orig.t, first)
	lu := newLogitLik(tu, 1)
	for u, i := range first {
		lu.setXi(u, orig.xi[i]) // the factor starts where p.lik holds it
	}
	// The centres stay where they are; the factorisation of the design
	// (lowRankFactor) finds centre m's kernel column at its distinct row.
	b := p.basis
	if b.centers != nil {
		sub := make([]int, b.size()-b.offset())
		for m := range sub {
			sub[m] = of[b.row(m)]
		}
		b.sub = sub
	}
	cl := newCountLik(lu, count)
	q := *p
	q.basis, q.x, q.lik = b, xu, cl
	return &collapsedRows{prob: &q, of: of, orig: orig, lik: cl}
}

// expand sets the factor of every row of the original likelihood to that
// of its distinct row, with the moments observed last.
func (c *collapsedRows) expand() {
	l := c.lik.logitLik
	for n, u := range c.of {
		c.orig.setXi(n, l.xi[u])
		c.orig.act[n], c.orig.e[n] = l.act[u], l.e[u]
	}
}
