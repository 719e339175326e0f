package vrvm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// mcAugProblem is three classes of 60 points in two dimensions, around
// (−1, 0), (1, 0) and (0, 1.5).
func mcAugProblem() (*mat.Dense, []string) {
	rnd := rand.New(rand.NewPCG(3, 7))
	centres := [][2]float64{{-1, 0}, {1, 0}, {0, 1.5}}
	names := []string{"a", "b", "c"}
	x := mat.NewDense(60, 2, nil)
	labels := make([]string, 60)
	for i := range 60 {
		c := i % 3
		x.Set(i, 0, centres[c][0]+0.6*rnd.NormFloat64())
		x.Set(i, 1, centres[c][1]+0.6*rnd.NormFloat64())
		labels[i] = names[c]
	}
	return x, labels
}

// TestMultiAugmentExact checks (A7) against the Gaussian over (wₖ, w*ₖ)
// computed directly for each class: precision [[Σₖ⁻¹, c₀Φᵀk],
// [c₀kᵀΦ, α*ₖ + c₀kᵀk]] and linear term [Σₖ⁻¹μₖ, kᵀ(rₖ + c₀Φμₖ)] (the
// plain model's Q(wₖ) with one more column, (M4)–(M5)), whose mean and
// variance of [φ*, K(x*, x*)]ᵀ(wₖ, w*ₖ) the augmented activation must be.
func TestMultiAugmentExact(t *testing.T) {
	t.Parallel()
	x, labels := mcAugProblem()
	c := &MultiClassifier{Kernel: Gaussian{Width: 0.8}}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	a := c.mcAug
	if a == nil {
		t.Fatal("the default MultiClassifier is not augmented")
	}
	xs := mat.NewDense(3, 2, []float64{0, 0.5, 2, -1, 6, 6})
	ym, yv, err := c.Latent(xs)
	if err != nil {
		t.Fatal(err)
	}
	m, k := c.w.Dims()
	n, _ := x.Dims()
	c0 := 0.5 * (1 - 1/float64(k))
	phi, err := c.b.design(x, seq(m))
	if err != nil {
		t.Fatal(err)
	}
	phis, err := c.b.design(xs, seq(m))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		kv := make([]float64, n)
		for j := range n {
			kv[j] = c.b.kernel.Eval(x.RawRowView(j), xs.RawRowView(i))
		}
		for cl := range k {
			act := classActive(c.alphaK, cl)
			p := len(act)
			var sa mat.SymDense
			sa.SubsetSym(c.sigmas[cl], act)
			var prec mat.Dense
			if err := prec.Inverse(&sa); err != nil {
				t.Fatal(err)
			}
			big := mat.NewSymDense(p+1, nil)
			lin := mat.NewVecDense(p+1, nil)
			mu := make([]float64, p)
			for r, j := range act {
				mu[r] = c.w.At(j, cl)
			}
			var pm mat.VecDense
			pm.MulVec(&prec, mat.NewVecDense(p, mu))
			var kk, ky float64
			for nn := range n {
				kk += kv[nn] * kv[nn]
				fm := 0.0
				for r, j := range act {
					fm += phi.At(nn, j) * mu[r]
				}
				ky += kv[nn] * (a.resid.At(nn, cl) + c0*fm)
			}
			for r, j := range act {
				for s := r; s < p; s++ {
					big.SetSym(r, s, prec.At(r, s))
				}
				var g float64
				for nn := range n {
					g += phi.At(nn, j) * kv[nn]
				}
				big.SetSym(r, p, c0*g)
				lin.SetVec(r, pm.AtVec(r))
			}
			big.SetSym(p, p, a.alphaStar[cl]+c0*kk)
			lin.SetVec(p, ky)
			var chol mat.Cholesky
			if !chol.Factorize(big) {
				t.Fatalf("class %d: augmented precision not positive definite", cl)
			}
			var mean mat.VecDense
			if err := chol.SolveVecTo(&mean, lin); err != nil {
				t.Fatal(err)
			}
			f := mat.NewVecDense(p+1, nil)
			for r, j := range act {
				f.SetVec(r, phis.At(i, j))
			}
			f.SetVec(p, c.b.kernel.Eval(xs.RawRowView(i), xs.RawRowView(i)))
			var sf mat.VecDense
			if err := chol.SolveVecTo(&sf, f); err != nil {
				t.Fatal(err)
			}
			wantM, wantV := mat.Dot(f, &mean), mat.Dot(f, &sf)
			if gm, gv := ym.At(i, cl), yv.At(i, cl); math.Abs(gm-wantM) > 1e-8*math.Max(1, math.Abs(wantM)) || math.Abs(gv-wantV) > 1e-8*math.Max(1, wantV) {
				t.Errorf("x* %v class %d: augmented activation %.12g ± %.12g, direct %.12g ± %.12g", xs.RawRowView(i), cl, gm, gv, wantM, wantV)
			}
		}
	}
}

// TestMultiAugment checks that far from the data the augmented
// activations' variances return to the prior level K(x*, x*)/α*ₖ where the
// plain model's collapse, that NoAugment gives the plain model, and
// that a saved and loaded model predicts the same.
func TestMultiAugment(t *testing.T) {
	t.Parallel()
	x, labels := mcAugProblem()
	aug := &MultiClassifier{Kernel: Gaussian{Width: 0.8}}
	plain := &MultiClassifier{Kernel: Gaussian{Width: 0.8}, NoAugment: true}
	for _, c := range []*MultiClassifier{aug, plain} {
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
	}
	if plain.mcAug != nil {
		t.Fatal("NoAugment: the model is augmented")
	}
	far := mat.NewDense(2, 2, []float64{8, 8, -9, 3})
	_, va, err := aug.Latent(far)
	if err != nil {
		t.Fatal(err)
	}
	_, vp, err := plain.Latent(far)
	if err != nil {
		t.Fatal(err)
	}
	_, k := va.Dims()
	for i := range 2 {
		for c := range k {
			prior := 1 / aug.mcAug.alphaStar[c]
			if !(va.At(i, c) >= 0.9*prior) {
				t.Errorf("row %d class %d: augmented variance %.4g below 0.9 × the prior %.4g", i, c, va.At(i, c), prior)
			}
			if !(vp.At(i, c) < 0.9*prior) {
				t.Errorf("row %d class %d: plain variance %.4g does not collapse below 0.9 × %.4g: the test cannot tell", i, c, vp.At(i, c), prior)
			}
		}
	}
	// LatentPlain is the plain model's Latent.
	ga, gva, err := aug.LatentPlain(far)
	if err != nil {
		t.Fatal(err)
	}
	pa, pva, _ := plain.Latent(far)
	if !mat.EqualApprox(ga, pa, 1e-12) || !mat.EqualApprox(gva, pva, 1e-12) {
		t.Errorf("LatentPlain %v ± %v, the plain model's Latent %v ± %v", mat.Formatted(ga), mat.Formatted(gva), mat.Formatted(pa), mat.Formatted(pva))
	}
	var buf bytes.Buffer
	if err := aug.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadMultiClassifier(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.NoAugment || loaded.mcAug == nil {
		t.Fatal("the loaded model is not augmented")
	}
	xs := mat.NewDense(4, 2, []float64{0, 0, 1, 1, -2, 0.5, 8, 8})
	p1, err := aug.Prob(xs)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := loaded.Prob(xs)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(p1, p2, 1e-12) {
		t.Errorf("loaded model predicts %v, saved %v", mat.Formatted(p2), mat.Formatted(p1))
	}
	// A probit model is never augmented.
	pr := &MultiClassifier{Kernel: Gaussian{Width: 0.8}, Likelihood: Probit}
	if err := pr.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if pr.mcAug != nil {
		t.Error("the probit model is augmented")
	}
}

// TestMultiAugmentBadFile checks that a model file whose multi_augment
// state is inconsistent or not finite is a *ModelFileError naming it, not a
// panic or a NaN prediction.
func TestMultiAugmentBadFile(t *testing.T) {
	t.Parallel()
	x, labels := mcAugProblem()
	c := &MultiClassifier{Kernel: Gaussian{Width: 0.8}}
	if err := c.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		t.Fatal(err)
	}
	payload := payloadOf(t, buf.Bytes())
	for _, bad := range []struct{ name, old, new string }{
		{"negative alpha_star", `"alpha_star":[`, `"alpha_star":[-`},
		{"a residual row too short", `"resid":[[`, `"resid":[[`},
		{"an input row too long", `"multi_augment":{"x":[[`, `"multi_augment":{"x":[[0,`},
	} {
		var compact bytes.Buffer
		if err := json.Compact(&compact, payload); err != nil {
			t.Fatal(err)
		}
		p := compact.String()
		if bad.name == "a residual row too short" {
			// Drop the first residual of the first row.
			i := strings.Index(p, `"resid":[[`) + len(`"resid":[[`)
			j := strings.IndexByte(p[i:], ',')
			p = p[:i] + p[i+j+1:]
		} else if !strings.Contains(p, bad.old) {
			t.Fatalf("%s: the payload has no %s", bad.name, bad.old)
		} else {
			p = strings.Replace(p, bad.old, bad.new, 1)
		}
		_, err := LoadMultiClassifier(bytes.NewReader(seal([]byte(p))))
		var me *ModelFileError
		t.Logf("%s: %v", bad.name, err)
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "multi_augment") {
			t.Errorf("%s: error %v, want a *ModelFileError naming multi_augment", bad.name, err)
		}
	}
}

// classActive returns the functions active in class cl (a positive
// ⟨αₘₖ⟩ in column cl of alphaK): Σₖ is zero elsewhere.
func classActive(alphaK mat.Matrix, cl int) []int {
	m, _ := alphaK.Dims()
	var act []int
	for j := range m {
		if alphaK.At(j, cl) > 0 {
			act = append(act, j)
		}
	}
	return act
}
