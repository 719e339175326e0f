package vrvm

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rarePositives returns n rows of five standard normal inputs with labels
// drawn from P(t = 1 | x) = σ(−5 + 2x₀ + x₁), about 3% positives.
func rarePositives(seed uint64, n int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, 5, nil)
	t := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rng.NormFloat64()
		}
		if rng.Float64() < Sigmoid(-5+2*r[0]+r[1]) {
			t[i] = 1
		}
	}
	return x, t
}

// TestLearnClassCrowded checks (C3) and (C4): with rare positives (19 of
// 400 rows) the full-model bound rises as the width narrows, all the way
// to the limit where every kernel function is a spike at its own row and
// each positive has its own; learning without the rules ends there (width
// 0.002, one relevance vector per positive, the base rate everywhere
// else: test Brier score 0.0372 against the base rate's 0.0362). With
// them the crowded fits are rejected, the bound prefers no fit it kept to
// memorising the labels, and learning keeps its start (width 2.8, 2
// relevance vectors, 0.0300).
func TestLearnClassCrowded(t *testing.T) {
	t.Parallel()
	x, y := rarePositives(11, 400)
	xt, yt := rarePositives(1011, 2000)
	var pos float64
	for _, v := range y {
		pos += v
	}
	base := pos / float64(len(y))
	var baseBrier float64
	for _, v := range yt {
		baseBrier += (base - v) * (base - v)
	}
	baseBrier /= float64(len(yt))
	fit := func(on bool) (*Classifier, float64) {
		c := &Classifier{ctl: controls{noCrowdLimit: !on}}
		if err := c.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		p, err := c.ProbModerated(xt)
		if err != nil {
			t.Fatal(err)
		}
		var b float64
		for i, v := range p {
			b += (v - yt[i]) * (v - yt[i])
		}
		return c, b / float64(len(p))
	}
	off, bOff := fit(false)
	on, bOn := fit(true)
	t.Logf("%g positives of %d; base rate's Brier score %.4f", pos, len(y), baseBrier)
	t.Logf("without (C3), (C4): %v, %d relevance vectors, Brier %.4f", off.FittedKernel(), len(off.RelevanceVectors()), bOff)
	t.Logf("with them: %v, %d relevance vectors, Brier %.4f", on.FittedKernel(), len(on.RelevanceVectors()), bOn)
	if float64(len(off.RelevanceVectors())) < pos {
		t.Fatalf("without (C3) %d relevance vectors for %g positives: the problem no longer shows the memorising fit", len(off.RelevanceVectors()), pos)
	}
	if g := classLeverageOf(t, on, x, y); g > widthCrowded*pos {
		t.Errorf("the positives' effective number of parameters is %.2f of %g rows: the fit memorises them", g, pos)
	}
	if !(bOn < 0.9*baseBrier) {
		t.Errorf("test Brier score %.4f, not below 0.9 × the base rate's %.4f: the model does not generalise", bOn, baseBrier)
	}
}

// classLeverageOf returns the sum of the leverages Bₙφₙᵀ Σ φₙ of the
// fitted classifier c over its training rows x with label 1 (y), its
// effective number of parameters on them (C3).
func classLeverageOf(t *testing.T, c *Classifier, x *mat.Dense, y []float64) float64 {
	t.Helper()
	_, v, err := c.Latent(x)
	if err != nil {
		t.Fatal(err)
	}
	var g float64
	for i, xi := range c.Xi() {
		if y[i] == 1 {
			g += 2 * Lambda(xi) * v[i]
		}
	}
	return g
}
