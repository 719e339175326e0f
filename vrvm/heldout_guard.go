package vrvm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// heldoutZ is z of the held-out guard (E8): a learned kernel is kept
// only if the leave-one-out log density of its sparse fit on the
// training rows exceeds the default's by more than heldoutZ standard
// errors of the difference (docs/kernel-learning.md, "The held-out
// guard").
const heldoutZ = 2

// looGain is the outcome of (E8): the sum over the training rows of the
// gain dᵢ of the learned kernel's leave-one-out log density over the
// default's, and its standard error √N·sd(d).
type looGain struct {
	gain, se float64
}

// keep reports whether (E8) keeps the learned kernel.
func (g looGain) keep() bool { return g.gain > heldoutZ*g.se }

// text describes (E8) for the summary.
func (g looGain) text() string {
	rel := "more"
	if !g.keep() {
		rel = "not more"
	}
	return fmt.Sprintf("leave-one-out log density of the sparse fit %+.3g nats over the default's, %s than %d standard errors (%.3g) (E8)",
		g.gain, rel, heldoutZ, g.se)
}

// newLooGain returns (E8) for the leave-one-out log densities l (the
// learned kernel's) and l0 (the default's) of the same rows.
func newLooGain(l, l0 []float64) looGain {
	d := make([]float64, len(l))
	var g float64
	for i := range l {
		d[i] = l[i] - l0[i]
		g += d[i]
	}
	return looGain{gain: g, se: math.Sqrt(float64(len(d))) * stat.StdDev(d, nil)}
}

// regressionLOO returns the leave-one-out predictive log density of each
// training row x, t under the sparse fit in f, whose likelihood is lik:
// with the weights' posterior N(μ, Σ), Σ = (⟨τ⟩ΦᵀΦ + ⟨A⟩)⁻¹, the fit's
// mean mᵢ = φᵢᵀμ and variance sᵢ = φᵢᵀΣφᵢ at row i and hᵢ = ⟨τ⟩sᵢ,
// removing row i from the posterior (a rank-one downdate, the active
// functions and hyperparameters held) gives
//
//	μ₋ᵢ = tᵢ − (tᵢ − mᵢ)/(1 − hᵢ),   σ²₋ᵢ = 1/⟨τ⟩ + sᵢ/(1 − hᵢ),         (E8)
//
// and ln N(tᵢ | μ₋ᵢ, σ²₋ᵢ) (the closed-form leave-one-out of a linear
// Gaussian model; Rasmussen & Williams 2006, §5.4.2).
func (f *fitted) regressionLOO(x mat.Matrix, t []float64, lik likelihood) ([]float64, error) {
	m, s, err := f.LatentPlain(x)
	if err != nil {
		return nil, err
	}
	fc := lik.Factor(nil) // c̃, d̃: ⟨τ⟩ = c̃/d̃
	noise := fc[1] / fc[0]
	out := make([]float64, len(t))
	for i := range t {
		h := math.Min(s[i]/noise, 1-1e-12)
		r := (t[i] - m[i]) / (1 - h)
		v := noise + s[i]/(1-h)
		out[i] = -0.5*math.Log(2*math.Pi*v) - r*r/(2*v) // (E8)
	}
	return out, nil
}

// binaryLOO returns the leave-one-out predictive log probability of each
// row x of the binary fit sol of problem p (labels 0 or 1) under the
// Jaakkola–Jordan bound (50): the bound makes row i's term a Gaussian
// factor of its activation aᵢ = φᵢᵀw, of precision βᵢ = 2λ(ξᵢ) and
// natural mean tᵢ − ½, so that removing it from the fit's marginal
// N(mᵢ, vᵢ) of aᵢ (ξ held) leaves
//
//	v₋ᵢ = vᵢ/(1 − βᵢvᵢ),   m₋ᵢ = v₋ᵢ(mᵢ/vᵢ − (tᵢ − ½)),                     (E8)
//
// (the cavity of Opper & Winther 2000; for a Gaussian likelihood, the
// rank-one downdate of the regression's (E8)), and the moderated
// probability σ(κ(v₋ᵢ)m₋ᵢ) of the label. The active functions and
// hyperparameters are held.
func binaryLOO(p *problem, sol *solution, x mat.Matrix) ([]float64, error) {
	var g fitted
	g.record(p.basis, sol)
	m, v, err := g.LatentPlain(x)
	if err != nil {
		return nil, err
	}
	xi := p.lik.Factor(nil)
	t := p.lik.Labels()
	out := make([]float64, len(t))
	for i := range t {
		b := 2 * Lambda(xi[i])
		vi := math.Max(v[i], 1e-300)
		vc := vi / math.Max(1-b*vi, 1e-12)
		mc := vc * (m[i]/vi - (t[i] - 0.5)) // (E8)
		pr := Moderated(mc, vc)
		if t[i] < 0.5 {
			pr = 1 - pr
		}
		out[i] = math.Log(math.Max(pr, 1e-300))
	}
	return out, nil
}
