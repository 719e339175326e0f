package vrvm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"

	"gonum.org/v1/gonum/mat"
)

// replicated returns 5 rows at each of k distinct inputs drawn from
// N(0, 3²) (one column), with targets f(x) + ε, ε ~ N(0, sd²), drawn with
// seed: repeated measurements, kept by (D1).
func replicated(seed uint64, k int, f func(float64) float64, sd float64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(5*k, 1, nil)
	y := make([]float64, 5*k)
	for i := range k {
		v := 3 * rnd.NormFloat64()
		for j := range 5 {
			x.Set(5*i+j, 0, v)
			y[5*i+j] = f(v) + sd*rnd.NormFloat64()
		}
	}
	return x, y
}

// TestDefaultWidthNoSignal: on targets that are pure noise, (W3)'s fixed
// point can run to α = ∞ at every width; there E(r) is the noise alone's
// (W6), finite and the same at every width, and the default fit finds
// the noise. Before (W6) α grew until α² overflowed, β became 0 and E
// was NaN ("the evidence at width … is NaN") at some width on seeds 3, 4
// and 7 here (10 inputs repeated 5 times), and Regressor.Fit failed on
// seed 4 (and on 2 of the 7 such sets of the robustness sweep). A sinc
// target on repeated inputs is fitted as well.
func TestDefaultWidthNoSignal(t *testing.T) {
	t.Parallel()
	zero := func(float64) float64 { return 0 }
	sinc := func(v float64) float64 {
		if v == 0 {
			return 1
		}
		return math.Sin(v) / v
	}
	cases := []struct {
		name string
		k    int
		f    func(float64) float64
		sd   float64
	}{
		{"noise", 10, zero, 1},
		{"sinc", 20, sinc, 0.1},
	}
	noSignal := 0
	for _, c := range cases {
		for seed := uint64(1); seed <= 8; seed++ {
			x, y := replicated(seed, c.k, c.f, c.sd)
			// E(r) at every width the search can reach is finite and at
			// least the noise alone's.
			d := newDenseModel(x, y)
			r0 := MedianDistance(x)
			var tt float64 // ‖t̃‖²
			for _, v := range d.Targets() {
				tt += v * v
			}
			n := float64(len(y) - 1)
			eNoise := -n / 2 * (math.Log(2*math.Pi*tt/n) + 1)
			for k := -kernlearn.MaxSteps; k <= widthMaxUp; k++ {
				for _, f := range []float64{1, 1.3} {
					w := r0 * math.Exp2(float64(k)) * f
					e, alpha, _, err := d.Evidence(w)
					if err != nil || math.IsNaN(e) || e < eNoise-1e-9*math.Abs(eNoise) {
						t.Errorf("%s seed %d: width %g: evidence %g (noise alone %g), error %v", c.name, seed, w, e, eNoise, err)
					}
					if math.IsInf(alpha, 1) {
						noSignal++
					}
				}
			}
			r, e, err := denseWidth(context.Background(), x, y, r0)
			if err != nil || !(r > 0) || math.IsInf(r, 0) || math.IsNaN(e) || math.IsInf(e, 0) {
				t.Errorf("%s seed %d: width %g, evidence %g, error %v", c.name, seed, r, e, err)
			}
			reg := &Regressor{}
			if err := reg.Fit(x, y); err != nil {
				t.Errorf("%s seed %d: %v", c.name, seed, err)
				continue
			}
			lb, sd := reg.LowerBound(), reg.NoiseSD()
			t.Logf("%s seed %d: width %.4g, %d relevance vectors, noise sd %.4g (truth %g), bound %.6g",
				c.name, seed, reg.FittedKernel().(Gaussian).Width, len(reg.RelevanceVectors()), sd, c.sd, lb)
			if math.IsNaN(lb) || math.IsInf(lb, 0) {
				t.Errorf("%s seed %d: bound %g", c.name, seed, lb)
			}
			if !(math.Abs(math.Log(sd/c.sd)) < math.Log(1.4)) {
				t.Errorf("%s seed %d: noise sd %g, want within a factor 1.4 of %g", c.name, seed, sd, c.sd)
			}
		}
	}
	if noSignal == 0 {
		t.Error("no width with α = ∞: the test no longer reaches (W6)")
	}
}
