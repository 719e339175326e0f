package augment

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// gauss is exp(−‖x − y‖²/w²).
type gauss struct{ w float64 }

func (g gauss) Eval(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += (v - y[i]) * (v - y[i])
	}
	return math.Exp(-s / (g.w * g.w))
}

// toy is a 1-D augmentation on n inputs of [−5, 5] with two kernel
// functions centred at ±2, a Σ of 0.01 I and random residuals: numbers
// of the right shape, not a fit.
func toy(n int) (Kernel, Design, *mat.Dense, *mat.Dense, *mat.Dense, *mat.Dense, []float64, []Latent) {
	rnd := rand.New(rand.NewPCG(1, 2))
	k := Kernel{Kernel: gauss{w: 2}, Self: 1, Constant: true}
	centres := mat.NewDense(2, 1, []float64{-2, 2})
	phiAt := func(x *mat.Dense) (*mat.Dense, error) {
		r, _ := x.Dims()
		p := mat.NewDense(r, 2, nil)
		for i := range r {
			for j := range 2 {
				p.Set(i, j, k.Eval(x.RawRowView(i), centres.RawRowView(j)))
			}
		}
		return p, nil
	}
	x := mat.NewDense(n, 1, nil)
	beta := make([]float64, n)
	resid := make([]float64, n)
	for i := range n {
		x.Set(i, 0, -5+10*rnd.Float64())
		beta[i] = 100
		resid[i] = rnd.NormFloat64()
	}
	phi, _ := phiAt(x)
	bphi := mat.NewDense(n, 2, nil)
	bphi.Scale(100, phi)
	l := Latent{Sigma: blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{0.01, 0, 0, 0.01}},
		Alpha: []float64{1, 1}, AlphaStar: 1, Resid: blas64.Vector{N: n, Inc: 1, Data: resid}}
	return k, phiAt, x, centres, phi, bphi, beta, []Latent{l}
}

// increments returns ny's mean and variance increments at the rows of x.
func increments(t *testing.T, ny *LowRank, k Kernel, phiAt Design, x *mat.Dense) (dm, dv []float64) {
	n, _ := x.Dims()
	dm, dv = make([]float64, n), make([]float64, n)
	if err := ny.Adjust(k, phiAt, 2, x, func(_, i int, a, b float64) { dm[i] += a; dv[i] += b }); err != nil {
		t.Fatal(err)
	}
	return dm, dv
}

// TestNewFewest checks (A14) and the file form: the default keeps no
// more pivots than Full, matches it within (A14)'s tolerances on a grid
// over the data, gives back the prior variance 1/α* far from the data,
// and a decoded file predicts as its model to the bit.
func TestNewFewest(t *testing.T) {
	t.Parallel()
	k, phiAt, x, centres, phi, bphi, beta, lats := toy(400)
	full, err := New(Settings{Full: true}, k, phiAt, x, centres, 0, phi, bphi, beta, lats)
	if err != nil || full == nil {
		t.Fatalf("full form: %v, %v", full, err)
	}
	ny, err := New(Settings{}, k, phiAt, x, centres, 0, phi, bphi, beta, lats)
	if err != nil || ny == nil {
		t.Fatalf("default form: %v, %v", ny, err)
	}
	if ny.Rank() > full.Rank() {
		t.Errorf("rank %d above the full set's %d", ny.Rank(), full.Rank())
	}
	t.Logf("rank %d of %d", ny.Rank(), full.Rank())
	grid := mat.NewDense(201, 1, nil)
	for i := range 201 {
		grid.Set(i, 0, -6+0.06*float64(i))
	}
	dm0, dv0 := increments(t, full, k, phiAt, grid)
	dm, dv := increments(t, ny, k, phiAt, grid)
	pg, _ := phiAt(grid)
	for i := range 201 {
		p := pg.RawRowView(i)
		sd := math.Sqrt(0.01*(p[0]*p[0]+p[1]*p[1]) + dv0[i])
		if d := math.Abs(math.Sqrt(0.01*(p[0]*p[0]+p[1]*p[1])+dv[i]) - sd); d > 0.01*sd || math.Abs(dm[i]-dm0[i]) > 0.02*sd {
			t.Errorf("x* = %g: sd off by %.3g of %.3g, mean by %.3g", grid.At(i, 0), d, sd, dm[i]-dm0[i])
		}
	}
	far := mat.NewDense(1, 1, []float64{30})
	if _, v := increments(t, ny, k, phiAt, far); v[0] < 0.9 {
		t.Errorf("far from the data: variance increment %g, want about 1/α* = 1", v[0])
	}
	back, err := ny.Encode().Decode(1, 2, 0, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	dm1, dv1 := increments(t, back, k, phiAt, grid)
	for i := range dm {
		if dm1[i] != dm[i] || dv1[i] != dv[i] {
			t.Fatalf("decoded file: row %d: %v, %v, want %v, %v", i, dm1[i], dv1[i], dm[i], dv[i])
		}
	}
	if !ny.ConstantDiag(k, centres) || ConstantDiagonal(lin{}, x) {
		t.Error("ConstantDiagonal: wrong for the Gaussian or the linear kernel")
	}
}

// lin is xᵀy, whose diagonal grows with ‖x‖.
type lin struct{}

func (lin) Eval(x, y []float64) float64 { return x[0] * y[0] }

// TestFloorNoDirections checks that a floor whose directions (A17) are
// all dropped (p = 0: the prior's variance everywhere) encodes, decodes
// and applies.
func TestFloorNoDirections(t *testing.T) {
	t.Parallel()
	f := &Floor{k: gaussK{1}, s: 0.5, z: mat.NewDense(3, 1, []float64{0, 1, 2}),
		a: blas64.General{Rows: 3, Cols: 0, Stride: 1, Data: make([]float64, 1)}}
	g, err := f.Encode().Decode(gaussK{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{0.1, 0.9}
	if err := g.Apply(mat.NewDense(2, 1, []float64{0.5, 7}), v); err != nil {
		t.Fatal(err)
	}
	if v[0] != 0.5 || v[1] != 0.9 {
		t.Fatalf("variances %v, want [0.5 0.9]", v)
	}
}

type gaussK struct{ w float64 }

func (k gaussK) Eval(x, y []float64) float64 {
	var s float64
	for i := range x {
		d := (x[i] - y[i]) / k.w
		s += d * d
	}
	return math.Exp(-s)
}
