package multiclass

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
)

// TestMultiBoundMonteCarlo checks the expectations of the bound (M9)–(M13)
// by Monte Carlo, independently of the implementation's algebra: each
// wₖ is drawn from N(μₖ, Σₖ), independently of the other classes, α
// from Q_α, and every term is averaged from densities and the bound (M3)
// (Bohning) at the samples.
//
// With the adaptive bound (M19) the same check uses JCRow at the
// samples, each row's curvature Aₙ taken in either order at random.
func TestMultiBoundMonteCarlo(t *testing.T) {
	t.Parallel()
	for _, adapt := range []bool{false, true} {
		t.Run(fmt.Sprintf("adaptive=%v", adapt), func(t *testing.T) { multiBoundMonteCarlo(t, adapt) })
	}
}

func multiBoundMonteCarlo(t *testing.T, adapt bool) {
	rnd := rand.New(rand.NewPCG(11, 18))
	const n, k, m, samples = 6, 3, 3, 200000
	phi, y := tinyMultiDesign(rnd, n, k, m)
	prior := bound.Prior{A: 1.5, B: 0.7}
	lik := Softmax
	if adapt {
		lik = Adaptive
	}
	p := newMCProblem(phi, y, k, Settings{Prior: prior}, lik)
	for i := range n {
		for j := range k {
			p.psi.Set(i, j, rnd.NormFloat64())
		}
	}
	asc := make([]bool, n)
	if l, ok := p.lik.(*jcLik); ok {
		l.setCurv()
		order := make([]int, k)
		for i := range n {
			asc[i] = rnd.IntN(2) == 1
			JCCurvature(l.curvRow(i), order, p.psi.RawRowView(i), asc[i])
		}
	}
	// Each class: every function active, random Σₖ, ⟨α⟩ and μₖ (via h = Σₖ⁻¹μₖ).
	mus := make([]*mat.VecDense, k)
	chols := make([]mat.Cholesky, k)
	for c := range k {
		sigma := randomCov(rnd, m, 0.3)
		if !chols[c].Factorize(sigma) {
			t.Fatal("Σ not positive definite")
		}
		mu := mat.NewVecDense(m, nil)
		for i := range m {
			mu.SetVec(i, rnd.NormFloat64())
		}
		mus[c] = mu
		var h mat.VecDense
		if err := chols[c].SolveVecTo(&h, mu); err != nil {
			t.Fatal(err)
		}
		cl := &mcBlock{mcActive: mcActive{act: subset.Seq(m), alpha: make([]float64, m), sig: mat.DenseCopyOf(sigma), logDet: chols[c].LogDet(), h: mat.NewDense(m, 1, h.RawVector().Data)}, q: 1, d: make([]float64, m)}
		for i := range m {
			cl.alpha[i] = 0.5 + rnd.Float64()
		}
		p.cls = append(p.cls, cl)
	}
	analytic := p.bound()

	act := make([]float64, k)
	w := make([]*mat.VecDense, k)
	z := mat.NewVecDense(m, nil)
	var sumL, sumL2 float64
	for range samples {
		var l float64
		for c := range k {
			var lc mat.TriDense
			chols[c].LTo(&lc)
			for i := range m {
				z.SetVec(i, rnd.NormFloat64())
			}
			var d mat.VecDense
			d.MulVec(&lc, z)
			// − ln Q(wₖ)
			l += 0.5*float64(m)*likelihood.Ln2Pi + 0.5*chols[c].LogDet() + 0.5*mat.Dot(z, z)
			w[c] = mat.NewVecDense(m, nil)
			w[c].AddVec(mus[c], &d)
			for i := range m {
				al := gammaSample(rnd, p.aTil(1), p.aTil(1)/p.cls[c].alpha[i])
				v := w[c].AtVec(i)
				// ln p(wₘₖ|α) + ln p(α) − ln Q_α(α)
				l += -0.5*likelihood.Ln2Pi + 0.5*math.Log(al) - 0.5*al*v*v
				l += gammaLogPDF(al, prior.A, prior.B) - gammaLogPDF(al, p.aTil(1), p.aTil(1)/p.cls[c].alpha[i])
			}
		}
		for i := range n {
			for c := range k {
				act[c] = mat.Dot(phi.RowView(i), w[c])
			}
			if adapt {
				l += jcBoundOrder(act, p.psi.RawRowView(i), y[i], asc[i])
			} else {
				l += Bohning(make([]float64, k), act, p.psi.RawRowView(i), y[i])
			}
		}
		sumL += l
		sumL2 += l * l
	}
	mean := sumL / samples
	se := math.Sqrt((sumL2/samples - mean*mean) / samples)
	if math.Abs(mean-analytic) > 4*se {
		t.Errorf("Monte Carlo bound %.5f ± %.5f, analytic (M9)–(M13) %.5f", mean, se, analytic)
	}
	t.Logf("Monte Carlo %.5f ± %.5f, analytic %.5f", mean, se, analytic)
}

// jcBoundOrder is the facade's JCBound with the classes taken in increasing order of
// ψₖ if asc.
func jcBoundOrder(y, psi []float64, k int, asc bool) float64 {
	kk := len(psi)
	return JCRow(make([]float64, kk*kk), make([]int, kk), make([]float64, kk), y, psi, k, nil, asc)
}
