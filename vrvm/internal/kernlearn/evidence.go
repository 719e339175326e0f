package kernlearn

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// PriorSD is s of (E4), ln(100)/√2.
const PriorSD = 3.256338

// Wall is ln of the factor above the width of (W4) beyond which (E4)
// penalises a length scale.
const Wall = 9.21034 // ln 10⁴

// Settings of the L-BFGS search of (E5).
const (
	evidenceMaxEvals = 120 // evaluations of (E2) per start, at most
	evidenceFuncTol  = 1e-3
)

// Prior is a hyperprior on the log length scales u beyond (E4): it
// returns ln p(u) up to a constant and adds its gradient to grad.
type Prior func(u, grad []float64) float64

// Evidence is the dense model (W1) of a regression with a Gaussian or
// ARD Gaussian kernel, whose evidence (E2) with the hyperprior (E4) it
// evaluates, in the parameters v = (u, ln α, ln β), u the log width or
// length scales.
type Evidence struct {
	base  *DenseModel
	tied  bool    // one width shared by every input
	r0    float64 // the centre of (E4): the width of (W4)
	prior Prior
	diff  []float64 // (xᵢₖ − xⱼₖ)² for i < j, row-major over the pairs, then k
	d     int
	calls int
	ctx   context.Context
	err   error // the first error of an evaluation
}

// NewEvidence returns the dense model of rows, t for learning one width
// (tied) or a length scale per input, with (E4) centred at r0 and the
// further hyperprior prior (none if nil), or nil if t does not vary.
// gauss is the Gaussian kernel at a width, as for NewDenseModel. The
// evaluations stop with an error once ctx is done.
func NewEvidence(ctx context.Context, rows [][]float64, t []float64, tied bool, r0 float64, prior Prior, gauss func(width float64) Kernel) *Evidence {
	base := NewDenseModel(rows, t, gauss)
	if base == nil {
		return nil
	}
	m, d := len(rows), len(rows[0])
	diff := make([]float64, 0, m*(m-1)/2*d)
	for i := range m {
		for j := i + 1; j < m; j++ {
			for k := range d {
				v := base.rows[i][k] - base.rows[j][k]
				diff = append(diff, v*v)
			}
		}
	}
	return &Evidence{base: base, tied: tied, r0: r0, prior: prior, diff: diff, d: d, ctx: ctx}
}

// Base returns the dense model of (W1) on the same rows and targets.
func (q *Evidence) Base() *DenseModel { return q.base }

// Calls returns the number of evaluations of (E2) so far.
func (q *Evidence) Calls() int { return q.calls }

// Scales returns the length scales of the parameters v = (u, ln α, ln β).
func (q *Evidence) Scales(v []float64) []float64 {
	s := make([]float64, q.d)
	for k := range s {
		if q.tied {
			s[k] = math.Exp(v[0])
		} else {
			s[k] = math.Exp(v[k])
		}
	}
	return s
}

// Objective returns E + ln p(u) (E2), (E4), and its gradient in v (E3)
// into grad, or ErrNotPD if C is not positive definite or E not finite.
func (q *Evidence) Objective(v, grad []float64) (float64, error) {
	if err := stopped(q.ctx, q.calls); err != nil {
		return 0, err
	}
	q.calls++
	np := len(v) - 2
	alpha, beta := math.Exp(v[np]), math.Exp(v[np+1])
	ell := q.Scales(v)
	m := len(q.base.rows)
	inv2 := make([]float64, q.d)
	for k, l := range ell {
		inv2[k] = 1 / (l * l)
	}
	kmat, f := q.kernel(inv2)
	kd := kmat.RawMatrix().Data
	// C = β⁻¹I + α⁻¹FFᵀ (E1).
	c := mat.NewSymDense(m, nil)
	c.SymOuterK(1/alpha, f)
	for i := range m {
		c.SetSym(i, i, c.At(i, i)+1/beta)
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		return 0, ErrNotPD
	}
	tv := mat.NewVecDense(m, q.base.t)
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, tv); err != nil {
		return 0, ErrNotPD
	}
	var ci mat.SymDense
	if err := ch.InverseTo(&ci); err != nil {
		return 0, ErrNotPD
	}
	ta, aa := mat.Dot(tv, &a), mat.Dot(&a, &a)
	var trCi float64
	for i := range m {
		trCi += ci.At(i, i)
	}
	e := -0.5*ta - 0.5*ch.LogDet() - 0.5*float64(m)*math.Log(2*math.Pi) + 0.5*(math.Log(2*math.Pi)-math.Log(beta)) // (E2)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0, ErrNotPD
	}
	for i := range grad {
		grad[i] = 0
	}
	grad[np+1] = (trCi-aa)/(2*beta) - 0.5                     // (E3)
	grad[np] = -0.5*(ta-aa/beta) + 0.5*(float64(m)-trCi/beta) // (E3)
	// PAP = aaᵀ − C⁻¹ + β11ᵀ/m, G = K·PAP.
	pap := mat.NewDense(m, m, nil)
	bm := beta / float64(m)
	for i := range m {
		ai := a.AtVec(i)
		for j := range m {
			pap.Set(i, j, ai*a.AtVec(j)-ci.At(i, j)+bm)
		}
	}
	var g mat.Dense
	g.Mul(kmat, pap)
	q.scaleGrad(g.RawMatrix().Data, kd, inv2, alpha, grad)
	// (E4), and the further hyperprior on the scales.
	u := v[:np]
	s2 := PriorSD * PriorSD
	lr := math.Log(q.r0)
	for k, uk := range u {
		var du float64 // (E4): below r, or above Wall·r
		switch {
		case uk < lr:
			du = uk - lr
		case uk > lr+Wall:
			du = uk - lr - Wall
		}
		e -= du * du / (2 * s2)
		grad[k] -= du / s2
	}
	if q.prior != nil {
		e += q.prior(u, grad[:np])
	}
	return e, nil
}

// kernel returns K at the inverse squared length scales inv2 and
// F = PK (K symmetric, so PK centres every column).
func (q *Evidence) kernel(inv2 []float64) (kmat, f *mat.Dense) {
	m := len(q.base.rows)
	kd := make([]float64, m*m)
	p := 0
	for i := range m {
		kd[i*m+i] = 1
		for j := i + 1; j < m; j++ {
			var s float64
			for k := range q.d {
				s += q.diff[p+k] * inv2[k]
			}
			p += q.d
			e := math.Exp(-s)
			kd[i*m+j], kd[j*m+i] = e, e
		}
	}
	kmat = mat.NewDense(m, m, kd)
	f = mat.NewDense(m, m, nil)
	f.Copy(kmat)
	centreColumns(f)
	return kmat, f
}

// scaleGrad adds ∂E/∂uₖ = α⁻¹ Σᵢⱼ Gᵢⱼ ∂Kᵢⱼ/∂uₖ (E3) to grad, given G = K·PAP
// (gd, row-major) and K (kd).
func (q *Evidence) scaleGrad(gd, kd, inv2 []float64, alpha float64, grad []float64) {
	m := len(q.base.rows)
	p := 0
	for i := range m {
		for j := i + 1; j < m; j++ {
			w := 2 * (gd[i*m+j] + gd[j*m+i]) * kd[i*m+j] / alpha
			for k := range q.d {
				dk := w * q.diff[p+k] * inv2[k]
				if q.tied {
					grad[0] += dk
				} else {
					grad[k] += dk
				}
			}
			p += q.d
		}
	}
}

// ErrNotPD marks an evaluation of (E2) where C was not positive definite
// to working precision, which L-BFGS treats as a step too far.
var ErrNotPD = errors.New("vrvm: the covariance of the dense model is not positive definite")

// Maximise runs L-BFGS on −(E + ln p(u)) from v0 and returns the best
// point evaluated and its value (E5). An error other than ErrNotPD of an
// evaluation is recorded (see Err) and the point taken as a step too far.
func (q *Evidence) Maximise(v0 []float64) ([]float64, float64) {
	best, fbest := append([]float64(nil), v0...), math.Inf(-1)
	var lastX, lastG []float64
	var lastF float64
	eval := func(x []float64) (float64, []float64) {
		if lastX != nil && slices.Equal(x, lastX) {
			return lastF, lastG
		}
		g := make([]float64, len(x))
		f, err := q.Objective(x, g)
		if err != nil {
			if q.err == nil && err != ErrNotPD {
				q.err = err
			}
			f = math.Inf(-1)
			for i := range g {
				g[i] = 0
			}
		} else if f > fbest {
			fbest = f
			copy(best, x)
		}
		lastX, lastF, lastG = append(lastX[:0], x...), f, g
		return f, g
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { f, _ := eval(x); return -f },
		Grad: func(grad, x []float64) {
			_, g := eval(x)
			for i := range g {
				grad[i] = -g[i]
			}
		},
	}
	settings := &optimize.Settings{
		FuncEvaluations: evidenceMaxEvals,
		Converger:       &optimize.FunctionConverge{Absolute: evidenceFuncTol, Iterations: 3},
	}
	optimize.Minimize(prob, v0, settings, &optimize.LBFGS{}) // the best point is tracked above, whatever the status
	return best, fbest
}

// Result is the result of learning a kernel by (E2).
type Result struct {
	// Scales are the learned width (one value) or ARD length scales.
	Scales []float64
	// Evidence is E + ln p(u) at Scales, in the targets' units; Base the
	// same at (W4)'s width.
	Evidence, Base float64
	// Penalised is Evidence less (E6)'s penalty.
	Penalised float64
	// Kept reports whether the guard (E6) keeps the learned kernel over
	// (W4)'s width.
	Kept bool
	// Calls is the number of evaluations of (E2).
	Calls int
}

// Learn learns the kernel of a regression on rows, t by maximising
// (E2) + (E4) with the further hyperprior prior: one Gaussian width if
// ard is false, else a length scale per input, from the width r of (W4)
// (and for ARD from 2r and r/2 if restarts (E5)), and from the scales
// start, if not nil (one value is every scale). It returns nil and no
// error when the targets do not vary, and ErrNotPD if (E2) cannot be
// evaluated at r. gauss is as for NewDenseModel.
func Learn(ctx context.Context, rows [][]float64, t []float64, ard bool, r float64, start []float64, prior Prior, restarts bool,
	gauss func(width float64) Kernel) (*Result, error) {
	q := NewEvidence(ctx, rows, t, !ard, r, prior, gauss)
	if q == nil {
		return nil, nil
	}
	_, alpha, beta, err := q.base.Evidence(r)
	if err != nil {
		return nil, err
	}
	if math.IsInf(alpha, 1) {
		alpha = 1e6 * beta // (W6): the noise alone, approached from a finite α
	}
	np := 1
	if ard {
		np = q.d
	}
	at := func(scales []float64) []float64 {
		v := make([]float64, np+2)
		for k := range np {
			v[k] = math.Log(scales[k%len(scales)])
		}
		v[np], v[np+1] = math.Log(alpha), math.Log(beta)
		return v
	}
	v0 := at([]float64{r})
	base, err := q.Objective(v0, make([]float64, np+2))
	if err != nil {
		return nil, err
	}
	starts := [][]float64{v0}
	if ard && restarts {
		starts = append(starts, at([]float64{2 * r}), at([]float64{r / 2}))
	}
	if start != nil {
		starts = append(starts, at(start))
	}
	best, fbest := v0, base
	for _, s := range starts {
		v, f := q.Maximise(s)
		if q.err != nil {
			return nil, q.err
		}
		if f > fbest {
			best, fbest = v, f
		}
	}
	scales := []float64{math.Exp(best[0])}
	if ard {
		best, fbest = q.SwitchOff(best, fbest)
		if q.err != nil {
			return nil, q.err
		}
		scales = q.Scales(best)
	}
	// (E6): the k − 1 further free scales of ARD (k not switched off)
	// must raise E + ln p(u) by more than k − 1 nats over the single
	// width of (W4), and any learned kernel by more than half a nat (a
	// single width within (W4)'s search tolerance is (W4)'s).
	pen := minGain
	if ard {
		pen = math.Max(pen, GuardMargin(scales, r))
	}
	res := &Result{Scales: scales, Evidence: fbest + q.base.shift, Base: base + q.base.shift, Calls: q.calls}
	res.Penalised = res.Evidence - pen
	res.Kept = res.Penalised > res.Base
	return res, nil
}

// Err returns the first error other than ErrNotPD of an evaluation by
// Maximise or SwitchOff (the context's, once it is done), or nil.
func (q *Evidence) Err() error { return q.err }

// SwitchOff is the backward step of (E6): from the learned parameters v
// with value f, each length scale above r (widest first) is moved to the
// wall of (E4), 10⁴r, where its input is out of the kernel to within
// (r/ℓ)² = 10⁻⁸, and left there if that lowers E + ln p(u) by less than
// the one nat (E6) charges for a free scale (α and β held). In the flat
// part of (E4) an input the targets do not depend on leaves the search
// wherever L-BFGS stopped (docs/benchmarks.md, "Measurements behind
// choices in the code"): the count of free scales must not depend on
// that. It returns the new parameters (v, modified) and value.
func (q *Evidence) SwitchOff(v []float64, f float64) ([]float64, float64) {
	order := make([]int, 0, q.d)
	for k := range q.d {
		if v[k] > math.Log(q.r0) && v[k] < math.Log(q.r0)+Wall {
			order = append(order, k)
		}
	}
	sort.Slice(order, func(i, j int) bool { return v[order[i]] > v[order[j]] })
	w := append([]float64(nil), v...)
	g := make([]float64, len(v))
	for _, k := range order {
		w[k] = math.Log(q.r0) + Wall
		fw, err := q.Objective(w, g)
		if err == nil && fw > f-ScalePrice {
			copy(v, w)
			f = fw
			continue
		}
		if err != nil && err != ErrNotPD {
			q.err = err
			break
		}
		w[k] = v[k]
	}
	return v, f
}

// ScalePrice is what (E6) charges for a free length scale, in nats.
const ScalePrice = 1

// minGain is the least rise of (E2) + (E4) over (W4)'s width for
// which the guard (E6) keeps a learned kernel.
const minGain = 0.5

// guardOff is the factor above the single width beyond which a length
// scale counts as switching its input off in the guards (E6), (E7).
const guardOff = 1e3

// GuardMargin returns the margin of the guards (E6), (E7) for the learned
// length scales s against the single width r: k − 1 nats for the k
// scales below guardOff·r (at least 0). A scale beyond it leaves its
// input out of the kernel to within (r/ℓ)² ≤ 10⁻⁶, where the criterion is
// flat in it: it is no free parameter of the fit.
func GuardMargin(s []float64, r float64) float64 {
	k := 0
	for _, v := range s {
		if v <= guardOff*r {
			k++
		}
	}
	return math.Max(0, float64(k-1))
}
