package vrvm

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Kernel learning of a regression by the evidence of the dense model
// (docs/kernel-learning.md, (E1)–(E6)). The dense model of (W1), every
// kernel function kept with one weight precision α, is a Gaussian
// process on the centred targets t̃ with covariance
//
//	C = β⁻¹I + α⁻¹PKKP,   P = I − 11ᵀ/m,                                  (E1)
//
// and its log evidence on the m − 1 directions orthogonal to 1 is
//
//	E = −½ t̃ᵀC⁻¹t̃ − ½ ln|C| − ½m ln 2π + ½(ln 2π − ln β),                  (E2)
//
// (W2) without the eigendecomposition: C1 = β⁻¹1, and the last term
// removes that direction. Its gradient in any parameter θ of C is
// ½ tr(A ∂C/∂θ) with A = aaᵀ − C⁻¹, a = C⁻¹t̃ (a ⊥ 1), which gives
//
//	∂E/∂ln β = (tr C⁻¹ − aᵀa)/(2β) − ½,
//	∂E/∂ln α = −½ aᵀ(t̃ − a/β) + ½(m − tr C⁻¹/β),                           (E3)
//	∂E/∂uₖ   = α⁻¹ Σᵢⱼ Gᵢⱼ ∂Kᵢⱼ/∂uₖ,   G = K·PAP,   PAP = A + β11ᵀ/m,
//
// with uₖ = ln ℓₖ and ∂Kᵢⱼ/∂uₖ = 2Kᵢⱼ(xᵢₖ − xⱼₖ)²/ℓₖ² (K2) (one width: the
// sum over k). The length scales carry the hyperprior
//
//	ln p(u) = −Σₖ δₖ²/(2s²),   s = ln(100)/√2,                              (E4)
//	δₖ = min(0, uₖ − ln r) + max(0, uₖ − ln r − ln 10⁴),
//
// with r the width of (W4): a scale a factor of 100 narrower than r costs
// one nat, so that a scale far narrower than r must buy its cost in fit;
// between r and 10⁴r it costs nothing (a wide scale switches its input
// off, and the evidence of an input the targets do not depend on is flat
// there); beyond, the quadratic wall keeps ln ℓ finite. α and β have
// flat priors on their logarithms (type-II maximum likelihood, as in
// (W3)). E + ln p(u) is maximised jointly in (u, ln α, ln β) by L-BFGS
// from (W4)'s optimum (every ℓₖ = r) and, for length scales, from twice
// and half of it too (E5); the best end is kept, and the scales whose
// inputs cost less than a nat are switched off (switchOff, (E6)).

// evidencePriorSD is s of (E4), ln(100)/√2.
const evidencePriorSD = 3.256338

// evidenceWall is ln of the factor above the width of (W4) beyond
// which (E4) penalises a length scale.
const evidenceWall = 9.21034 // ln 10⁴

// Settings of the L-BFGS search of (E5).
const (
	evidenceMaxEvals = 120 // evaluations of (E2) per start, at most
	evidenceFuncTol  = 1e-3
)

// denseARD is the dense model (W1) of a regression with a Gaussian or
// ARD Gaussian kernel, whose evidence (E2) it evaluates.
type denseARD struct {
	base  *denseModel
	tied  bool    // one width shared by every input
	r0    float64 // the centre of (E4): the width of (W4)
	prior KernelLearning
	diff  []float64 // (xᵢₖ − xⱼₖ)² for i < j, row-major over the pairs, then k
	d     int
	calls int
	ctx   context.Context
	err   error // the first error of an evaluation
}

// newDenseARD returns the dense model of x, t for learning one width
// (tied) or a length scale per input, or nil if t does not vary.
func newDenseARD(ctx context.Context, x mat.Matrix, t []float64, tied bool, r0 float64, prior KernelLearning) *denseARD {
	base := newDenseModel(x, t)
	if base == nil {
		return nil
	}
	m, d := x.Dims()
	diff := make([]float64, 0, m*(m-1)/2*d)
	for i := range m {
		for j := i + 1; j < m; j++ {
			for k := range d {
				v := base.rows[i][k] - base.rows[j][k]
				diff = append(diff, v*v)
			}
		}
	}
	return &denseARD{base: base, tied: tied, r0: r0, prior: prior, diff: diff, d: d, ctx: ctx}
}

// scales returns the length scales of the parameters v = (u, ln α, ln β).
func (q *denseARD) scales(v []float64) []float64 {
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

// objective returns E + ln p(u) (E2), (E4), and its gradient in v (E3)
// into grad, or an error if C is not positive definite or E not finite.
func (q *denseARD) objective(v, grad []float64) (float64, error) {
	if err := stopped(q.ctx, q.calls); err != nil {
		return 0, err
	}
	q.calls++
	np := len(v) - 2
	alpha, beta := math.Exp(v[np]), math.Exp(v[np+1])
	ell := q.scales(v)
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
		return 0, errNotPD
	}
	tv := mat.NewVecDense(m, q.base.t)
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, tv); err != nil {
		return 0, errNotPD
	}
	var ci mat.SymDense
	if err := ch.InverseTo(&ci); err != nil {
		return 0, errNotPD
	}
	ta, aa := mat.Dot(tv, &a), mat.Dot(&a, &a)
	var trCi float64
	for i := range m {
		trCi += ci.At(i, i)
	}
	e := -0.5*ta - 0.5*ch.LogDet() - 0.5*float64(m)*math.Log(2*math.Pi) + 0.5*(math.Log(2*math.Pi)-math.Log(beta)) // (E2)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0, errNotPD
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
	// (E4), and the hyperpriors of KernelLearning on the scales.
	u := v[:np]
	s2 := evidencePriorSD * evidencePriorSD
	lr := math.Log(q.r0)
	for k, uk := range u {
		var du float64 // (E4): below r, or above evidenceWall·r
		switch {
		case uk < lr:
			du = uk - lr
		case uk > lr+evidenceWall:
			du = uk - lr - evidenceWall
		}
		e -= du * du / (2 * s2)
		grad[k] -= du / s2
	}
	e += q.prior.scalePrior(u, grad[:np])
	return e, nil
}

// kernel returns K at the inverse squared length scales inv2 and
// F = PK (K symmetric, so PK centres every column).
func (q *denseARD) kernel(inv2 []float64) (kmat, f *mat.Dense) {
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
func (q *denseARD) scaleGrad(gd, kd, inv2 []float64, alpha float64, grad []float64) {
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

// errNotPD marks an evaluation of (E2) where C was not positive definite
// to working precision, which L-BFGS treats as a step too far.
var errNotPD = &OptionError{Field: "LearnKernel", Reason: "the covariance of the dense model is not positive definite"}

// maximise runs L-BFGS on −(E + ln p(u)) from v0 and returns the best
// point evaluated and its value (E5).
func (q *denseARD) maximise(v0 []float64) ([]float64, float64) {
	best, fbest := append([]float64(nil), v0...), math.Inf(-1)
	var lastX, lastG []float64
	var lastF float64
	eval := func(x []float64) (float64, []float64) {
		if lastX != nil && equalSlices(x, lastX) {
			return lastF, lastG
		}
		g := make([]float64, len(x))
		f, err := q.objective(x, g)
		if err != nil {
			if q.err == nil && err != errNotPD {
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

// equalSlices reports whether a and b hold the same values.
func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// evidenceFit is the result of learning a kernel by (E2).
type evidenceFit struct {
	kernel    Learnable
	evidence  float64 // E + ln p(u) at kernel, in the targets' units
	base      float64 // the same at (W4)'s width
	penalised float64 // evidence − (E6)'s penalty
	kept      bool    // (E6): the learned kernel is kept over (W4)'s
	calls     int     // evaluations of (E2)
}

// learnByEvidence learns the kernel of a regression on the rows x, t by
// maximising (E2) + (E4): one Gaussian width if ard is false, else a
// length scale per input, from the width r of (W4) (and for ARD from 2r
// and r/2 (E5)), and from the user's start, if not nil. It returns nil
// and no error when the targets do not vary.
func learnByEvidence(ctx context.Context, x mat.Matrix, t []float64, ard bool, r float64, start Learnable, o KernelLearning, restarts bool) (*evidenceFit, error) {
	q := newDenseARD(ctx, x, t, !ard, r, o)
	if q == nil {
		return nil, nil
	}
	_, alpha, beta, err := q.base.evidence(r)
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
	base, err := q.objective(v0, make([]float64, np+2))
	if err != nil {
		return nil, err
	}
	starts := [][]float64{v0}
	if ard && restarts {
		starts = append(starts, at([]float64{2 * r}), at([]float64{r / 2}))
	}
	if start != nil {
		starts = append(starts, at(kernelScales(start)))
	}
	best, fbest := v0, base
	for _, s := range starts {
		v, f := q.maximise(s)
		if q.err != nil {
			return nil, q.err
		}
		if f > fbest {
			best, fbest = v, f
		}
	}
	var k Learnable = Gaussian{Width: math.Exp(best[0])}
	if ard {
		best, fbest = q.switchOff(best, fbest)
		if q.err != nil {
			return nil, q.err
		}
		k = ARDGaussian{Scales: q.scales(best)}
	}
	// (E6): the k − 1 further free scales of ARD (k not switched off)
	// must raise E + ln p(u) by more than k − 1 nats over the single
	// width of (W4), and any learned kernel by more than half a nat (a
	// single width within (W4)'s search tolerance is (W4)'s).
	pen := evidenceMinGain
	if ard {
		pen = math.Max(pen, guardMargin(k.(ARDGaussian).Scales, r))
	}
	ef := &evidenceFit{kernel: k, evidence: fbest + q.base.shift, base: base + q.base.shift, calls: q.calls}
	ef.penalised = ef.evidence - pen
	ef.kept = ef.penalised > ef.base
	return ef, nil
}

// switchOff is the backward step of (E6): from the learned parameters v
// with value f, each length scale above r (widest first) is moved to the
// wall of (E4), 10⁴r, where its input is out of the kernel to within
// (r/ℓ)² = 10⁻⁸, and left there if that lowers E + ln p(u) by less than
// the one nat (E6) charges for a free scale (α and β held). In the flat
// part of (E4) an input the targets do not depend on leaves the search
// wherever L-BFGS stopped (on diabetes at 300 rows one scale stopped at
// 262r, counted by (E6), and at 10⁴r on 309): the count of free scales
// must not depend on that. It returns the new parameters and value.
func (q *denseARD) switchOff(v []float64, f float64) ([]float64, float64) {
	order := make([]int, 0, q.d)
	for k := range q.d {
		if v[k] > math.Log(q.r0) && v[k] < math.Log(q.r0)+evidenceWall {
			order = append(order, k)
		}
	}
	sort.Slice(order, func(i, j int) bool { return v[order[i]] > v[order[j]] })
	w := append([]float64(nil), v...)
	g := make([]float64, len(v))
	for _, k := range order {
		w[k] = math.Log(q.r0) + evidenceWall
		fw, err := q.objective(w, g)
		if err == nil && fw > f-evidenceScalePrice {
			copy(v, w)
			f = fw
			continue
		}
		if err != nil && err != errNotPD {
			q.err = err
			break
		}
		w[k] = v[k]
	}
	return v, f
}

// evidenceScalePrice is what (E6) charges for a free length scale, in nats.
const evidenceScalePrice = 1

// evidenceMinGain is the least rise of (E2) + (E4) over (W4)'s width for
// which the guard (E6) keeps a learned kernel.
const evidenceMinGain = 0.5

// guardOff is the factor above the single width beyond which a length
// scale counts as switching its input off in the guards (E6), (E7).
const guardOff = 1e3

// guardMargin returns the margin of the guards (E6), (E7) for the learned
// length scales s against the single width r: k − 1 nats for the k
// scales below guardOff·r (at least 0). A scale beyond it leaves its
// input out of the kernel to within (r/ℓ)² ≤ 10⁻⁶, where the criterion is
// flat in it: it is no free parameter of the fit.
func guardMargin(s []float64, r float64) float64 {
	k := 0
	for _, v := range s {
		if v <= guardOff*r {
			k++
		}
	}
	return math.Max(0, float64(k-1))
}

// kernelScales returns the width or length scales of k.
func kernelScales(k Learnable) []float64 {
	u := k.LogParams()
	for i, v := range u {
		u[i] = math.Exp(v)
	}
	return u
}
