package vrvm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// looBrute returns row i's held-out marginal of the activation under the
// fit g by explicit inverses: the posterior's precision P = Σ⁻¹ and
// natural mean Pμ less row i's Gaussian factor (precision b, natural
// mean n).
func looBrute(t *testing.T, g *fitted, x *mat.Dense, i int, b, n float64) (m, v float64) {
	t.Helper()
	sig := g.Covariance()
	k := len(g.mu)
	off := 0
	if g.b.bias {
		off = 1
	}
	phi := make([]float64, k)
	for c := range phi {
		phi[c] = 1
		if c >= off {
			phi[c] = g.b.kernel.Eval(x.RawRowView(i), g.b.centers.RawRowView(c-off))
		}
	}
	var p mat.Dense
	if err := p.Inverse(sig); err != nil {
		t.Fatal(err)
	}
	var h mat.VecDense
	h.MulVec(&p, mat.NewVecDense(k, g.mu))
	for r := range k {
		h.SetVec(r, h.AtVec(r)-n*phi[r])
		for c := range k {
			p.Set(r, c, p.At(r, c)-b*phi[r]*phi[c])
		}
	}
	fk := mat.NewVecDense(k, phi)
	var mu, sf mat.VecDense
	if err := mu.SolveVec(&p, &h); err != nil {
		t.Fatal(err)
	}
	if err := sf.SolveVec(&p, fk); err != nil {
		t.Fatal(err)
	}
	return mat.Dot(fk, &mu), mat.Dot(fk, &sf)
}

// TestHeldoutLOO checks (E8)'s closed forms against explicit inverses:
// the regression's leave-one-out density (a row's Gaussian factor
// removed) and the binary fit's (the row's Jaakkola–Jordan factor
// removed).
func TestHeldoutLOO(t *testing.T) {
	t.Parallel()
	for _, classify := range []bool{false, true} {
		p, sol := learnProblem(t, 5, 2, classify, Gaussian{Width: 0.8})
		var g fitted
		g.record(p.basis, sol)
		x := denseOf(p.x)
		lab := p.lik.Labels()
		var got []float64
		var err error
		if classify {
			got, err = binaryLOO(p, sol, x)
		} else {
			fc := p.lik.Factor(nil)
			got, err = g.regressionLOO(x, lab, p.lik)
			if err != nil {
				t.Fatal(err)
			}
			noise := fc[1] / fc[0]
			for i := range lab {
				m, v := looBrute(t, &g, x, i, 1/noise, lab[i]/noise)
				v += noise
				want := -0.5*math.Log(2*math.Pi*v) - (lab[i]-m)*(lab[i]-m)/(2*v)
				if math.Abs(got[i]-want) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("regression row %d: %.10g, want %.10g", i, got[i], want)
				}
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		xi := p.lik.Factor(nil)
		for i := range lab {
			b := 2 * Lambda(xi[i])
			m, v := looBrute(t, &g, x, i, b, lab[i]-0.5)
			pr := Moderated(m, v)
			if lab[i] < 0.5 {
				pr = 1 - pr
			}
			if want := math.Log(pr); math.Abs(got[i]-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("binary row %d: %.10g, want %.10g", i, got[i], want)
			}
		}
	}
}
