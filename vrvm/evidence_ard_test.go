package vrvm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDenseARDGradient checks the gradient (E3) of the dense model's
// evidence against central differences, for one width and for ARD, and
// the value (E2) against the eigendecomposition of (W2).
func TestDenseARDGradient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const m, d = 30, 3
	x := mat.NewDense(m, d, nil)
	y := make([]float64, m)
	for i := range m {
		for k := range d {
			x.Set(i, k, rng.NormFloat64())
		}
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64() + 3
	}
	for _, tied := range []bool{true, false} {
		q := newDenseARD(context.Background(), x, y, tied, 1.5, KernelLearning{ScaleShape: 2, ScaleRate: 0.5})
		np := d
		if tied {
			np = 1
		}
		v := make([]float64, np+2)
		for k := range np {
			v[k] = 0.1 * float64(k+1)
		}
		v[np], v[np+1] = math.Log(0.7), math.Log(20)
		g := make([]float64, len(v))
		f0, err := q.objective(v, g)
		if err != nil {
			t.Fatal(err)
		}
		for i := range v {
			const h = 1e-5
			vp := append([]float64(nil), v...)
			vm := append([]float64(nil), v...)
			vp[i] += h
			vm[i] -= h
			fp, _ := q.objective(vp, make([]float64, len(v)))
			fm, _ := q.objective(vm, make([]float64, len(v)))
			num := (fp - fm) / (2 * h)
			if math.Abs(num-g[i]) > 1e-5*(1+math.Abs(num)) {
				t.Errorf("tied=%v: ∂/∂v[%d] = %g, central difference %g", tied, i, g[i], num)
			}
		}
		if tied {
			// (E2) at one width against (W2) through the eigendecomposition,
			// without the priors.
			q.prior = KernelLearning{}
			f0, _ = q.objective(v, g)
			lr := math.Log(q.r0)
			f0 += (v[0] - lr) * (v[0] - lr) / (2 * evidencePriorSD * evidencePriorSD)
			w2 := eigenEvidence(q.base, math.Exp(v[0]), math.Exp(v[1]), math.Exp(v[2]))
			if math.Abs(f0-w2) > 1e-8*math.Abs(w2) {
				t.Errorf("(E2) %g, (W2) %g", f0, w2)
			}
		}
	}
}

// eigenEvidence returns (W2) at width r, α and β by the eigendecomposition.
func eigenEvidence(d *denseModel, r, alpha, beta float64) float64 {
	m := len(d.rows)
	k := kernelMatrix(Gaussian{Width: r}, d.rows, nil)
	for j := range m {
		var s float64
		for i := range m {
			s += k.At(i, j)
		}
		for i := range m {
			k.Set(i, j, k.At(i, j)-s/float64(m))
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, k)
	var eig mat.EigenSym
	eig.Factorize(&g, true)
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	var z mat.VecDense
	z.MulVec(u.T(), mat.NewVecDense(m, d.t))
	e := 0.5 * (math.Log(2*math.Pi) - math.Log(beta))
	for i := range m {
		c := 1/beta + math.Max(vals[i], 0)/alpha
		e -= 0.5 * (math.Log(2*math.Pi) + math.Log(c) + z.AtVec(i)*z.AtVec(i)/c)
	}
	return e
}
