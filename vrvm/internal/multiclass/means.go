package multiclass

import (
	"math"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// mcMeanMax bounds the rounds of the step on the means (mcLikelihood.means) in the sequential solver,
// mcPaperMeanMax in the paper's schedule, whose classes start with every
// function (a round costs O(NM² + M³) per class).
const (
	mcMeanMax      = 100
	mcPaperMeanMax = 2
)

// softmaxMeans maximises L over the means of Q(W) and ψ jointly, with the
// covariances Σₖ fixed (M18): with ψ at its optimum ψ = ȳ (M8) given the
// means, (M3) is tight and L is, up to terms of Σₖ and α, the
// log-posterior
//
//	G(μ) = Σₙ{ȳₙ,tₙ − lse(ȳₙ)} − ½ Σₖ μₖᵀdiag(αₖ)μₖ,
//
// concave in μ. Its maximum is found by joint Newton steps over every
// class (jointMeans, up to mcJointMax means), then, if not reached, by
// Newton steps on one class's means at a time (Hessian ΦᵀDₖΦ + diag αₖ,
// Dₖ = diag(pₖ(1 − pₖ))), each kept only if it raises G; alternating ψ and Q(W) instead is Böhning's
// minorise–maximise iteration, which crawls where the classes are well
// separated. It returns the means at the maximum and their activations
// ȳ (N × K), for the likelihood to set ψ by (M8) or (M21), and, if the
// joint steps reached the maximum, softmax(ȳₙ) of every row (N × K),
// else nil; it changes nothing of p but its scratch.
func (p *mcProblem) softmaxMeans(rounds int) ([][]float64, *mat.Dense, *mat.Dense) {
	xa, x, mus, ybar := p.activeRows()
	at, prob := p.jointMeans(xa, x, mus, ybar, rounds)
	if at {
		return mus, ybar, prob // at the maximum: no class steps
	}
	// While class j moves, the other classes' part of each row's lse is
	// fixed: rest.lse(i, y) = ln(Σ_{l≠j} exp(ȳₙₗ) + exp(y)) costs one exp
	// and one log, not K.
	rest := newLSERest(ybar)
	for range rounds {
		var dmu float64
		for j, c := range p.cls {
			if len(c.act) == 0 {
				continue
			}
			dmu = math.Max(dmu, p.classMeans(j, xa[j], mus[j], ybar, rest))
		}
		if dmu <= 1e-10 {
			break
		}
	}
	return mus, ybar, nil
}

// activeRows returns xa[j] = Φ_actᵀ of class j (Mⱼ × N, nil if empty):
// rows of Φᵀ, stacked in x (Σₖ Mₖ × N), the classes' means and their
// activations ȳ = Φ_act μ (N × K).
func (p *mcProblem) activeRows() (xa []*mat.Dense, x *mat.Dense, mus [][]float64, ybar *mat.Dense) {
	n, _ := p.phi.Dims()
	k := p.k
	mt := 0
	for _, c := range p.cls {
		mt += len(c.act)
	}
	x = mat.NewDense(max(mt, 1), n, grow(&p.xbuf, max(mt, 1)*n)) // every row set below
	xa = make([]*mat.Dense, k)
	mus = make([][]float64, k)
	ybar = mat.NewDense(n, k, nil)
	col := make([]float64, n)
	off := 0
	for j, c := range p.cls {
		mus[j] = c.vec()
		m := len(c.act)
		if m == 0 {
			continue
		}
		xa[j] = x.Slice(off, off+m, 0, n).(*mat.Dense)
		off += m
		for q, a := range c.act {
			copy(xa[j].RawRowView(q), p.tphi.RawRowView(a))
		}
		vec.MulTVec(col, xa[j], mus[j]) // Φ_act μ
		ybar.SetCol(j, col)
	}
	return xa, x, mus, ybar
}

// meansObjective is G of softmaxMeans with class j's activations
// replaced by y and its means by mu.
func (p *mcProblem) meansObjective(rest *lseRest, ybar *mat.Dense, j int, y, mu []float64) float64 {
	var s float64
	for i := range y {
		t := p.y[i]
		if t == j {
			s += y[i]
		} else {
			s += ybar.At(i, t)
		}
		s -= rest.lse(i, y[i])
	}
	for i, al := range p.cls[j].alpha {
		s -= 0.5 * al * mu[i] * mu[i]
	}
	return s
}

// classMeans takes one Newton step on the means mu of class j, whose
// active rows of Φᵀ are xa (Hessian ΦᵀDⱼΦ + diag αⱼ, Dⱼ = diag(pⱼ(1 −
// pⱼ))), halved until it raises G, and keeps it in mu, ybar and rest. It
// returns the largest relative change of a mean (0 if no step was kept).
func (p *mcProblem) classMeans(j int, xa *mat.Dense, mu []float64, ybar *mat.Dense, rest *lseRest) (dmu float64) {
	n, _ := p.phi.Dims()
	c := p.cls[j]
	m := len(c.act)
	rest.set(j)
	y := make([]float64, n)
	r, w := make([]float64, n), make([]float64, n)
	for i := range n {
		y[i] = ybar.At(i, j)
		pj := math.Exp(y[i] - rest.lse(i, y[i])) // softmax_j(ȳₙ)
		r[i] = -pj
		if p.y[i] == j {
			r[i]++
		}
		w[i] = pj * (1 - pj)
	}
	g0 := p.meansObjective(rest, ybar, j, y, mu)
	grad := make([]float64, m)
	vec.MulVec(grad, xa, r)
	for i, al := range c.alpha {
		grad[i] -= al * mu[i]
	}
	wx := mat.DenseCopyOf(xa) // Φ_actᵀ diag(w)
	for q := range m {
		floats.Mul(wx.RawRowView(q), w)
	}
	var hh mat.Dense
	dense.Mul(&hh, xa, wx.T())
	hess := mat.NewSymDense(m, nil)
	for q := range m {
		for t := q; t < m; t++ {
			hess.SetSym(q, t, hh.At(q, t))
		}
		hess.SetSym(q, q, hess.At(q, q)+c.alpha[q])
	}
	var chol mat.Cholesky
	if !chol.Factorize(hess) {
		return 0
	}
	var step mat.VecDense
	if err := chol.SolveVecTo(&step, mat.NewVecDense(m, grad)); err != nil {
		return 0
	}
	if vec.Dot(grad, step.RawVector().Data) <= 1e-12*math.Max(1, math.Abs(g0)) {
		return 0
	}
	trial := make([]float64, m)
	yt := make([]float64, n)
	for t := 1.0; t > 1e-8; t /= 2 {
		for q := range m {
			trial[q] = mu[q] + t*step.AtVec(q)
		}
		vec.MulTVec(yt, xa, trial)
		if p.meansObjective(rest, ybar, j, yt, trial) > g0 {
			for q := range m {
				dmu = math.Max(dmu, math.Abs(trial[q]-mu[q])/math.Max(1, math.Abs(trial[q])))
			}
			copy(mu, trial)
			ybar.SetCol(j, yt)
			rest.update(j, yt)
			break
		}
	}
	return dmu
}

// jointObjective returns G of (M18) at the activations y (N × K) and
// means w, and sets prob to softmax(yₙ) of every row.
func (p *mcProblem) jointObjective(prob, y *mat.Dense, w [][]float64) float64 {
	n, _ := y.Dims()
	var s float64
	for i := range n {
		s += y.At(i, p.y[i]) - SoftmaxTo(prob.RawRowView(i), y.RawRowView(i))
	}
	for j, c := range p.cls {
		for q, al := range c.alpha {
			s -= 0.5 * al * w[j][q] * w[j][q]
		}
	}
	return s
}

// jointGradient sets grad, stacked over the classes at off, to the
// gradient of G, Φₖᵀ(tₖ − pₖ) − αₖμₖ, at the probabilities prob (r is
// scratch of length N), and returns gᵀdiag(α)⁻¹g ≥ gᵀH⁻¹g (H ⪰ diag α).
func (p *mcProblem) jointGradient(grad, r []float64, xa []*mat.Dense, mus [][]float64, prob *mat.Dense, off []int) (dec float64) {
	n, k := prob.Dims()
	for a := range k {
		if xa[a] == nil {
			continue
		}
		for i := range n {
			r[i] = -prob.At(i, a)
			if p.y[i] == a {
				r[i]++
			}
		}
		ga := grad[off[a]:off[a+1]]
		vec.MulVec(ga, xa[a], r)
		for q, al := range p.cls[a].alpha {
			ga[q] -= al * mus[a][q]
			dec += ga[q] * ga[q] / al
		}
	}
	return dec
}

// jointHessian sets hess to the negated Hessian of G,
// Σₙ Φ_Aᵀ(diag pₙ − pₙpₙᵀ)Φ_A + diag α =
// −VVᵀ + blockdiag(Φₖᵀdiag(pₖ)Φₖ) + diag α, with the rows of
// V = Φ_Aₖᵀdiag(pₖ) stacked over the classes in v (blk and pa are
// scratch).
func (p *mcProblem) jointHessian(hess *mat.SymDense, v, blk *mat.Dense, pa []float64, xa []*mat.Dense, x, prob *mat.Dense, off []int) {
	n, k := prob.Dims()
	for a := range k {
		if xa[a] == nil {
			continue
		}
		for i := range n {
			pa[i] = prob.At(i, a)
		}
		for q := off[a]; q < off[a+1]; q++ {
			floats.MulTo(v.RawRowView(q), x.RawRowView(q), pa)
		}
	}
	hess.SymOuterK(-1, v)
	for a := range k {
		m := off[a+1] - off[a]
		if m == 0 {
			continue
		}
		blk.Reset()
		dense.Mul(blk, xa[a], v.Slice(off[a], off[a+1], 0, n).T())
		for q := range m {
			for t := q; t < m; t++ {
				hess.SetSym(off[a]+q, off[a]+t, hess.At(off[a]+q, off[a]+t)+blk.At(q, t))
			}
		}
		for q, al := range p.cls[a].alpha {
			hess.SetSym(off[a]+q, off[a]+q, hess.At(off[a]+q, off[a]+q)+al)
		}
	}
}

// lseRest holds the exponentials of the activations, eₙₗ = exp(ȳₙₗ − hiₙ)
// with hiₙ at least the row's largest activation when last rescaled, and,
// for the class j that moves, Σ_{l≠j} eₙₗ, so that the row's lse with class
// j's activation at y costs one exp and one log, and a class's step
// costs N exps, not NK.
type lseRest struct {
	e       *mat.Dense
	hi, sum []float64
}

// newLSERest returns the exponentials of ybar.
func newLSERest(ybar *mat.Dense) *lseRest {
	n, k := ybar.Dims()
	r := &lseRest{e: mat.NewDense(n, k, nil), hi: make([]float64, n), sum: make([]float64, n)}
	for i := range n {
		row, er := ybar.RawRowView(i), r.e.RawRowView(i)
		hi := math.Inf(-1)
		for _, v := range row {
			hi = math.Max(hi, v)
		}
		for l, v := range row {
			er[l] = math.Exp(v - hi)
		}
		r.hi[i] = hi
	}
	return r
}

// set makes class j the one that moves.
func (r *lseRest) set(j int) {
	for i := range r.hi {
		var s float64
		for l, v := range r.e.RawRowView(i) {
			if l != j {
				s += v
			}
		}
		r.sum[i] = s
	}
}

// update sets class j's activations to y.
func (r *lseRest) update(j int, y []float64) {
	for i, v := range y {
		er := r.e.RawRowView(i)
		if v > r.hi[i] {
			// Rescale the row to its new largest activation.
			f := math.Exp(r.hi[i] - v)
			for l := range er {
				er[l] *= f
			}
			r.sum[i] *= f
			r.hi[i] = v
		}
		er[j] = math.Exp(v - r.hi[i])
		if emax := floats.Max(er); emax < 1e-100 {
			// The row's largest activation fell far below hiₙ: rescale,
			// so that its other exponentials do not underflow.
			for l := range er {
				er[l] /= emax
			}
			r.sum[i] /= emax
			r.hi[i] += math.Log(emax)
		}
	}
}

// lse returns ln(Σ_{l≠j} exp(ȳₙₗ) + exp(y)) for row i.
func (r *lseRest) lse(i int, y float64) float64 {
	hi, s := r.hi[i], r.sum[i]
	if y <= hi {
		if t := s + math.Exp(y-hi); t > 0 {
			return hi + math.Log(t)
		}
		return y // every exponential underflowed: the others are negligible
	}
	return y + math.Log1p(s*math.Exp(hi-y))
}

// mcJointMax is the largest number of means (Σₖ Mₖ) for which softmaxMeans
// takes joint Newton steps over every class (M18); above it (the paper's
// schedule starts with every function in every class) it takes one
// class's step at a time.
const mcJointMax = 2000

// jointMeans takes up to rounds joint Newton steps on G of (M18) over
// every class's means, Hessian blocks Φₖᵀdiag(pₖ(δₖₗ − pₗ))Φₗ +
// δₖₗdiag αₖ, each kept only if it raises G (halved otherwise), updating
// mus and ybar (the activations, N × K) in place. xa[k] is Φ_Aₖᵀ (Mₖ × N,
// nil if class k has no active function), the row blocks of x in class
// order. It reports whether G is at its maximum (the last step changed
// no mean by more than 1e-10 relative, or did not ascend); false leaves
// the class-wise steps to go on from where it stopped. It also returns
// softmax(ȳₙ) of every row at the activations left in ybar, or nil if
// it took no step (no means, or more than mcJointMax).
func (p *mcProblem) jointMeans(xa []*mat.Dense, x *mat.Dense, mus [][]float64, ybar *mat.Dense, rounds int) (bool, *mat.Dense) {
	n, k := ybar.Dims()
	off := make([]int, k+1)
	for j, m := range mus {
		off[j+1] = off[j] + len(m)
	}
	mt := off[k]
	if mt == 0 || mt > mcJointMax {
		return false, nil
	}
	prob := mat.NewDense(n, k, nil)
	g := func(y *mat.Dense, w [][]float64) float64 { return p.jointObjective(prob, y, w) }
	g0 := g(ybar, mus)
	hess := mat.NewSymDense(mt, nil)
	grad := make([]float64, mt)
	r, pa := make([]float64, n), make([]float64, n)
	v := mat.NewDense(mt, n, grow(&p.vbuf, mt*n)) // Φ_Aₖᵀdiag(pₖ), stacked as x; every row set below
	var blk mat.Dense
	trial := make([][]float64, k)
	for a := range k {
		trial[a] = make([]float64, off[a+1]-off[a])
	}
	ty := mat.NewDense(n, k, nil)
	col := make([]float64, n)
	for range rounds {
		dec := p.jointGradient(grad, r, xa, mus, prob, off)
		if dec <= 1e-12*math.Max(1, math.Abs(g0)) {
			// The Newton decrement gᵀH⁻¹g below is at most dec: G is
			// at its maximum without forming H.
			return true, prob
		}
		p.jointHessian(hess, v, &blk, pa, xa, x, prob, off)
		var chol mat.Cholesky
		if !chol.Factorize(hess) {
			return false, prob
		}
		var st mat.VecDense
		if err := chol.SolveVecTo(&st, mat.NewVecDense(mt, grad)); err != nil {
			return false, prob
		}
		step := st.RawVector().Data
		if vec.Dot(grad, step) <= 1e-12*math.Max(1, math.Abs(g0)) {
			return true, prob
		}
		accepted := false
		for t := 1.0; t > 1e-8; t /= 2 {
			for a := range k {
				for q := range trial[a] {
					trial[a][q] = mus[a][q] + t*step[off[a]+q]
				}
				clear(col)
				if xa[a] != nil {
					vec.MulTVec(col, xa[a], trial[a])
				}
				ty.SetCol(a, col)
			}
			if gt := g(ty, trial); gt > g0 {
				var dmu float64
				for a := range k {
					for q, v := range trial[a] {
						dmu = math.Max(dmu, math.Abs(v-mus[a][q])/math.Max(1, math.Abs(v)))
					}
					copy(mus[a], trial[a])
				}
				ybar.Copy(ty)
				g0, accepted = gt, true
				if dmu <= 1e-10 {
					return true, prob
				}
				break
			}
		}
		if !accepted {
			g(ybar, mus) // prob at the kept means
			return true, prob
		}
	}
	return false, prob
}
