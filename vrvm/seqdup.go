package vrvm

import (
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

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
// (likelihood.Count) when there are fewer of them than rows: a data set
// with every row twice then costs what the distinct rows cost per
// iteration (its posterior is a different one, the data counting twice).
// The basis is unchanged (functions centred at duplicated inputs are identical, and
// only one of each is ever added: twins).

// collapsedRows is a problem over the distinct rows of another.
type collapsedRows struct {
	prob *problem
	of   []int // of[n]: the distinct row of row n
	// expand sets the factor of every row of the original likelihood to
	// that of its distinct row, with the moments observed last.
	expand func()
	// With distinct centres (distinctCentres): cols[j] is the original
	// basis function of function j, twins[j] the number of its copies
	// left out; both nil otherwise.
	cols  []int
	twins []float64
}

// collapseRows returns the problem p over its distinct (input, label)
// rows with counts, or nil if p is not a classification problem or has no
// duplicated rows.
func collapseRows(p *problem) *collapsedRows {
	t := p.lik.Labels()
	if t == nil || p.set.noCollapse {
		return nil
	}
	n, _ := p.x.Dims()
	xd := denseOf(p.x)
	of, first := design.DistinctRows(xd, t)
	if len(first) == n {
		return nil
	}
	xu := subset.Rows(xd, first)
	count := make([]float64, len(first))
	for _, u := range of {
		count[u]++
	}
	cl, expand := p.lik.CountRows(of, first, count)
	q := *p
	q.x, q.lik = xu, cl
	c := &collapsedRows{prob: &q, of: of, expand: expand}
	c.distinctCentres(p)
	return c
}

// distinctCentres keeps one centre of each group of equal centres
// (identical basis functions) in the collapsed problem, with the number
// of the others in twins, so that the work per candidate is that of the
// distinct data set; the factorisation of the design (lowRankFactor)
// finds each centre's kernel column at its distinct row (sub).
func (c *collapsedRows) distinctCentres(p *problem) {
	b := p.basis
	if b.centers == nil || b.kernel == nil {
		return
	}
	off := b.offset()
	nc, _ := b.centers.Dims()
	rep, keep := design.DistinctRows(b.centers, nil) // rep[m]: the kept centre of centre m's group
	sub := make([]int, len(keep))
	for k, m := range keep {
		sub[k] = c.of[b.row(m)]
	}
	c.twins = make([]float64, off+len(keep))
	for m := range nc {
		if keep[rep[m]] != m {
			c.twins[off+rep[m]]++
		}
	}
	c.cols = make([]int, off+len(keep))
	for k := range off {
		c.cols[k] = k
	}
	for k, m := range keep {
		c.cols[off+k] = off + m
	}
	b.centers, b.sub = subset.Rows(b.centers, keep), sub
	c.prob.basis = b
	if w := p.warm; w != nil {
		// The warm start's functions, as kept centres; a repeated one
		// once.
		ws := &sequential.Warm{}
		in := map[int]bool{}
		for i, j := range w.Cols {
			if j >= off {
				j = off + rep[j-off]
			}
			if !in[j] {
				in[j] = true
				ws.Cols = append(ws.Cols, j)
				ws.Alpha = append(ws.Alpha, w.Alpha[i])
			}
		}
		c.prob.warm = ws
	}
}

// columns returns the basis functions of the collapsed problem cols as
// functions of the original basis.
func (c *collapsedRows) columns(cols []int) []int {
	if c.cols == nil {
		return cols
	}
	return subset.Ints(c.cols, cols)
}
