package likelihood

import "gonum.org/v1/gonum/mat"

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
// (Count) when there are fewer of them than rows: a data set with every
// row twice then costs what the distinct rows cost per iteration (its
// posterior is a different one, the data counting twice). The basis is
// unchanged (functions centred at duplicated inputs are identical, and
// only one of each is ever added: twins).

// Count is the logistic likelihood of distinct rows with counts.
type Count struct {
	*Logit
	count []float64 // cₙ
	beta  []float64 // 2cₙλ(ξₙ)
	half  []float64 // cₙ(tₙ − ½)
}

func NewCount(l *Logit, count []float64) *Count {
	c := &Count{Logit: l, count: count, beta: make([]float64, len(count)), half: make([]float64, len(count))}
	for i, v := range count {
		c.half[i] = v * l.half[i]
	}
	c.sync()
	return c
}

// sync sets βₙ = 2cₙλ(ξₙ) from the current ξ.
func (c *Count) sync() {
	for i, v := range c.count {
		c.beta[i] = v * c.Logit.beta[i]
	}
}

func (c *Count) Weights() ([]float64, float64) { return c.beta, 0 }
func (c *Count) Data() ([]float64, float64)    { return c.half, 1 }

func (c *Count) Update() float64 {
	ch := c.Logit.Update() // (58): ξₙ does not depend on cₙ
	c.sync()
	return ch
}

func (c *Count) SetLogParams(u []float64) {
	c.Logit.SetLogParams(u)
	c.sync()
}

func (c *Count) SetFactor(f []float64) {
	c.Logit.SetFactor(f)
	c.sync()
}

// Counted rows take no second start, are not collapsed again, and give
// the Newton solver no derivatives.
func (c *Count) Start() Likelihood { return nil }
func (c *Count) Labels() []float64 { return nil }

func (c *Count) CountRows([]int, []int, []float64) (Likelihood, func())           { return nil, nil }
func (c *Count) Hessian(*Collapsed, *mat.SymDense, []float64, *mat.SymDense) bool { return false }

// Terms returns ⟨ln F⟩ (60) with each row's term counted cₙ times.
func (c *Count) Terms() [3]float64 {
	l := c.Logit
	var s float64
	for i, xi := range l.xi {
		s += c.count[i] * (LogSigmoid(xi) + l.half[i]*l.act[i] - xi/2 - l.lam[i]*(l.e[i]-xi*xi)) // (60)
	}
	return [3]float64{0, 0, s}
}
