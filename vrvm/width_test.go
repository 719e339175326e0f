package vrvm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"

	"gonum.org/v1/gonum/mat"
)

// directEvidence is ln p(t | α, β, r) of (W1) with the bias's flat prior
// approximated by N(0, v), v large, computed from the m × m marginal
// covariance β⁻¹I + α⁻¹PKKP + v11ᵀ by Cholesky, with ½ ln(2πvm) added
// back (the bias's own term): the definition that (W2) rewrites.
func directEvidence(t *testing.T, x *mat.Dense, y []float64, r, alpha, beta float64) float64 {
	m := len(y)
	k := kernelMatrix(Gaussian{Width: r}, rowsOf(x), nil)
	for j := range m { // PK
		col := mat.Col(nil, j, k)
		var mean float64
		for _, v := range col {
			mean += v / float64(m)
		}
		for i := range m {
			k.Set(i, j, col[i]-mean)
		}
	}
	const v = 1e6
	var c mat.SymDense
	c.SymOuterK(1/alpha, k)
	for i := range m {
		for j := i; j < m; j++ {
			e := c.At(i, j) + v
			if i == j {
				e += 1 / beta
			}
			c.SetSym(i, j, e)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(&c) {
		t.Fatal("marginal covariance not positive definite")
	}
	sol := mat.NewVecDense(m, nil)
	tv := mat.NewVecDense(m, y)
	if err := ch.SolveVecTo(sol, tv); err != nil {
		t.Fatal(err)
	}
	lp := -0.5 * (float64(m)*math.Log(2*math.Pi) + ch.LogDet() + mat.Dot(tv, sol))
	return lp + 0.5*math.Log(2*math.Pi*v*float64(m))
}

// newDenseModel returns the dense model (W1) of x and t, or nil if t does
// not vary.
func newDenseModel(x mat.Matrix, t []float64) *kernlearn.DenseModel {
	return kernlearn.NewDenseModel(rowsOf(x), t, gaussianAt)
}

// TestDenseEvidence checks (W2) against the marginal density computed
// directly, and (W3): the α and β returned maximise it (no change of
// either by ±1% raises it).
func TestDenseEvidence(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(80, 3)
	d := newDenseModel(x, y)
	for _, r := range []float64{0.7, 2, 5} {
		e, alpha, beta, err := d.Evidence(r)
		if err != nil {
			t.Fatal(err)
		}
		want := directEvidence(t, x, d.Targets(), r, alpha, beta) // d.t: centred and scaled
		if math.Abs(e-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Errorf("width %g: (W2) %.8g, direct %.8g", r, e, want)
		}
		for _, f := range [][2]float64{{1.01, 1}, {0.99, 1}, {1, 1.01}, {1, 0.99}} {
			if o := directEvidence(t, x, d.Targets(), r, alpha*f[0], beta*f[1]); o > want+1e-6 {
				t.Errorf("width %g: α×%g, β×%g raises the evidence %.8g → %.8g: (W3) not at its maximum", r, f[0], f[1], want, o)
			}
		}
	}
}

// TestDefaultWidth checks the width search (W4): the width returned has
// a higher evidence than the widths 10% either side of it and than the
// starting width, does not depend on the targets' units, and flat
// targets are an error the default handles.
func TestDefaultWidth(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(120, 4)
	r0 := MedianDistance(x)
	r, e, err := denseWidth(context.Background(), x, y, r0)
	if err != nil {
		t.Fatal(err)
	}
	d := newDenseModel(x, y)
	for _, w := range []float64{r0, r / 1.1, r * 1.1} {
		if o, _, _, _ := d.Evidence(w); o > e {
			t.Errorf("width %g: evidence %g above the chosen width %g's %g", w, o, r, e)
		}
	}
	if math.Abs(math.Log(r/3)) > math.Log(2) {
		t.Errorf("sinc: chosen width %g, want within a factor 2 of the paper's 3", r)
	}
	// The targets' units do not change the width (they shift E by a
	// constant), even where their squares overflow.
	for _, f := range []float64{1e-200, 1e200} {
		scaled := make([]float64, len(y))
		for i, v := range y {
			scaled[i] = f * v
		}
		rs, es, err := denseWidth(context.Background(), x, scaled, r0)
		if err != nil || math.Abs(rs-r) > 1e-9*r || math.IsNaN(es) || math.IsInf(es, 0) {
			t.Errorf("targets ×%g: width %g, evidence %g, error %v; want width %g and a finite evidence", f, rs, es, err, r)
		}
	}
	flat := make([]float64, len(y))
	if _, _, err := denseWidth(context.Background(), x, flat, r0); !errors.Is(err, errFlatTargets) {
		t.Errorf("flat targets: got %v, want errFlatTargets", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := denseWidth(ctx, x, y, r0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v", err)
	}
}

// TestDefaultWidthLinearTarget fits the default Regressor to a target
// linear in three standard normal inputs, y = 3x₀ − 2x₁ + 0.1ε. The dense
// evidence (W4) keeps rising with the width, toward a global polynomial:
// the search, limited to widthMaxUp doublings, chooses 3.6 times the
// MedianDistance here (width 8.0). Every kernel function is then nearly
// the bias plus a small linear term; the fit must still find the linear
// function (noise sd about 0.1), which needs the bias start (S8) on other
// draws, and converge: its ⟨α⟩ flap at the rounding level of the bound
// and the fit ran to the iteration limit (10,000, 150 s) before the stall
// rule (S9).
// linearTarget returns y = 3x₀ − 2x₁ + 0.1ε on 280 rows of three standard
// normal inputs, drawn with seed.
func linearTarget(seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 3))
	n := 280
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, rnd.NormFloat64())
		}
		y[i] = 3*x.At(i, 0) - 2*x.At(i, 1) + 0.1*rnd.NormFloat64()
	}
	return x, y
}

// TestDefaultWidthLinearTarget: on a smooth target the default width is
// wide, and the default fit finds the noise level. Seeds 1 and 3 ended at
// 10–15 functions with noise sd 0.18–0.19 before (S11) and (S14); 12 is
// the original seed.
func TestDefaultWidthLinearTarget(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 3, 12} {
		x, y := linearTarget(seed)
		r := &Regressor{}
		if err := r.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		w := r.FittedKernel().(Gaussian).Width
		if m, up := MedianDistance(x), math.Exp2(widthMaxUp); w > up*m*(1+1e-12) {
			t.Errorf("seed %d: width %g, more than %g times the median distance %g", seed, w, up, m)
		}
		if r.Status() != Converged {
			t.Errorf("seed %d: status %v after %d iterations", seed, r.Status(), r.Iterations())
		}
		if sd := r.NoiseSD(); sd > 0.15 {
			t.Errorf("seed %d: noise sd %g with width %g and %d relevance vectors, want about 0.1", seed, sd, w, len(r.RelevanceVectors()))
		}
	}
}

// TestLinearTargetSeed8: on seed 8 of linearTarget the default fit kept
// 14 functions at a noise sd of 0.177 (full bound −3546.39) until the
// sweep stopped clamping the sₘ that the kept Σ had lost to rounding
// (S14); since then it finds the many-function fit (0.0953, −3304.77)
// without a start annealed from a higher threshold (the former (S10),
// removed by the ablation, docs/ablation.md).
func TestLinearTargetSeed8(t *testing.T) {
	t.Parallel()
	x, y := linearTarget(8)
	r := &Regressor{}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	t.Logf("noise sd %.4f, bound %.2f, %d functions", r.NoiseSD(), r.FullModelBound(), len(r.RelevanceVectors()))
	if sd := r.NoiseSD(); sd > 0.12 {
		t.Errorf("noise sd %g with %d relevance vectors, want about 0.1", sd, len(r.RelevanceVectors()))
	}
}
