package rvm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
)

// laplaceDecrement is the Newton decrement gᵀH⁻¹g, relative to
// max(1, |log joint|), below which laplaceMode takes one last full Newton
// step and stops: twice the rise a further step would give, below the
// rounding of the log joint's N terms, where the step's error is the
// square of the one before. Without it the mode search ends only when a
// step fails to raise the log joint at every halving, which dominated the
// fit of large problems (docs/benchmarks.md, "Measurements behind choices
// in the code").
const laplaceDecrement = 1e-14

// laplaceMode finds the mode of ln p(t|w) + ln p(w|α) by Newton's method
// (IRLS) from w, with step halving, and leaves in q the Gaussian with mean
// at the mode and covariance (ΦᵀBΦ + A)⁻¹, B = diag(yₙ(1 − yₙ)). Once the
// Newton decrement is below laplaceDecrement (relative) it takes a last
// full step and stops. It returns the log joint ln p(t|w*) − ½w*ᵀAw* at
// the mode.
func laplaceMode(phi *mat.Dense, t, alpha, w []float64, q *posterior.Gauss, iter int) (float64, error) {
	n, m := phi.Dims()
	y := make([]float64, n)
	grad := make([]float64, m)
	wphi := mat.NewDense(n, m, nil)
	h := mat.NewSymDense(m, nil)
	obj := func(w []float64) float64 {
		act := mat.NewVecDense(n, nil)
		act.MulVec(phi, mat.NewVecDense(m, w))
		var s float64
		for i := range n {
			a := act.AtVec(i)
			if t[i] == 1 {
				s += lh.LogSigmoid(a)
			} else {
				s += lh.LogSigmoid(-a)
			}
		}
		for i, v := range w {
			s -= 0.5 * alpha[i] * v * v
		}
		return s
	}
	cur := obj(w)
	step := make([]float64, m)
	trial := make([]float64, m)
	polished := false
	for range 100 {
		act := mat.NewVecDense(n, nil)
		act.MulVec(phi, mat.NewVecDense(m, w))
		resid := make([]float64, n)
		for i := range n {
			y[i] = lh.Sigmoid(act.AtVec(i))
			resid[i] = t[i] - y[i]
			f := math.Sqrt(y[i] * (1 - y[i]))
			src, dst := phi.RawRowView(i), wphi.RawRowView(i)
			for j, v := range src {
				dst[j] = f * v
			}
		}
		mat.NewVecDense(m, grad).MulVec(phi.T(), mat.NewVecDense(n, resid))
		var gnorm float64
		for i := range m {
			grad[i] -= alpha[i] * w[i]
			gnorm = math.Max(gnorm, math.Abs(grad[i]))
		}
		blas64.Syrk(blas.Trans, 1, wphi.RawMatrix(), 0, h.RawSymmetric())
		for i := range m {
			h.SetSym(i, i, h.At(i, i)+alpha[i])
		}
		if err := q.Factor(h, iter); err != nil {
			return 0, err
		}
		if gnorm < 1e-9 {
			break
		}
		if err := posterior.ConditionOK(q.Chol.SolveVecTo(mat.NewVecDense(m, step), mat.NewVecDense(m, grad))); err != nil {
			return 0, err
		}
		if polished {
			break
		}
		if dec := floats.Dot(grad, step); dec <= laplaceDecrement*math.Max(1, math.Abs(cur)) {
			// Close enough for Newton's quadratic model to be exact to
			// rounding: a last full step without the line search, whose
			// Hessian is then factorised for q.
			floats.Add(w, step)
			cur = obj(w)
			polished = true
			continue
		}
		improved := false
		for lr := 1.0; lr > 1e-8; lr /= 2 {
			for i := range m {
				trial[i] = w[i] + lr*step[i]
			}
			if v := obj(trial); v >= cur {
				cur = v
				copy(w, trial)
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	q.Mu = append(q.Mu[:0], w...)
	return cur, nil
}
