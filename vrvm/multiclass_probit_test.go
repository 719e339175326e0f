package vrvm

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
	"gonum.org/v1/gonum/mat"
)

// TestProbitPredictive checks (P9) against Monte Carlo draws of
// independent activations yₖ ~ N(mₖ, 1 + vₖ) (the latent noise and Q(W)),
// the fraction of draws in which class k is largest, and that the plug-in
// and the predictive probabilities of a fitted model sum to one, with the
// predictive ones closer to Monte Carlo over Q(W).
func TestProbitPredictive(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(8, 18))
	for trial := range 20 {
		k := 2 + trial%4
		mm, v := make([]float64, k), make([]float64, k)
		for j := range k {
			mm[j] = 2 * rnd.NormFloat64()
			v[j] = 3 * rnd.Float64() * rnd.Float64()
		}
		got := make([]float64, k)
		multiclass.ProbitProb(got, mm, v, make([]float64, k-1), make([]float64, k-1))
		const draws = 200000
		cnt := make([]float64, k)
		yy := make([]float64, k)
		for range draws {
			best := 0
			for j := range k {
				yy[j] = mm[j] + math.Sqrt(1+v[j])*rnd.NormFloat64()
				if yy[j] > yy[best] {
					best = j
				}
			}
			cnt[best]++
		}
		var s float64
		for j := range k {
			s += got[j]
			f := cnt[j] / draws
			if se := math.Sqrt(f*(1-f)/draws) + 1e-4; math.Abs(f-got[j]) > 4*se {
				t.Errorf("trial %d class %d: P %v, Monte Carlo %v", trial, j, got[j], f)
			}
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("trial %d: probabilities sum to %v", trial, s)
		}
	}
	// A fitted model on few uncertain points: every function kept, with a
	// prior (⟨α⟩ near 0.1) that leaves the weights uncertain. The default
	// fit keeps the bias and at most one function, whose activations'
	// variances, about 10⁻³, are too small for the comparison below to
	// tell the predictive probabilities from the plug-in ones.
	c, x := uncertainLineWith(t, &MultiClassifier{Kernel: Gaussian{Width: 1}, Likelihood: Probit, NoPrune: true, Prior: Prior{A: 1, B: 10}}, 21)
	ybar, v, _ := c.Latent(x)
	pm, _ := c.Prob(x)
	pp, _ := c.ProbPlugin(x)
	n, k := pm.Dims()
	var dMod, dPlug float64
	yy := make([]float64, k)
	for i := range n {
		var s, sp float64
		cnt := make([]float64, k)
		const draws = 40000
		for range draws {
			best := 0
			for j := range k {
				yy[j] = ybar.At(i, j) + math.Sqrt(1+v.At(i, j))*rnd.NormFloat64()
				if yy[j] > yy[best] {
					best = j
				}
			}
			cnt[best]++
		}
		for j := range k {
			s += pm.At(i, j)
			sp += pp.At(i, j)
			dMod += math.Abs(pm.At(i, j) - cnt[j]/draws)
			dPlug += math.Abs(pp.At(i, j) - cnt[j]/draws)
		}
		if math.Abs(s-1) > 1e-12 || math.Abs(sp-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %v, plug-in %v", i, s, sp)
		}
	}
	if dMod >= dPlug {
		t.Errorf("predictive probabilities are %g from Monte Carlo, plug-in %g", dMod/float64(n*k), dPlug/float64(n*k))
	}
	t.Logf("mean |p − p_MC|: predictive %.4f, plug-in %.4f (largest v %.3g)", dMod/float64(n*k), dPlug/float64(n*k), mat.Max(v))
}

// TestMultiLikelihoodOption checks that an unknown likelihood is an
// *OptionError naming the field.
func TestMultiLikelihoodOption(t *testing.T) {
	t.Parallel()
	x, labels, _, _, _ := multiProblem(1)
	c := &MultiClassifier{Likelihood: MultiLikelihood(7)}
	err := c.Fit(x, labels)
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Field != "Likelihood" {
		t.Errorf("got %v", err)
	}
	if s := MultiLikelihood(7).String(); s != "MultiLikelihood(7)" {
		t.Errorf("String %q", s)
	}
}
