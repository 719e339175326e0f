package vrvm

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAugmentFloor checks the GP floor (A15)–(A18) on sinc with 200 rows
// (width 3): its factor (A16) takes few pivots, and the augmented latent
// variance is, within 3 % (the DTC approximation's error, (A16)), the larger of the augmentation's (A4) and the
// exact GP's σ_f²K₂(x*, x*) − σ_f²k₂ᵀ(K₂ + σ²/σ_f² I)⁻¹k₂ with K₂ the
// Gaussian of width 3√2, computed directly over every row; the means are the
// augmentation's; a saved and loaded model predicts the same, and a file
// without the floor (written before it) loads and predicts without it.
func TestAugmentFloor(t *testing.T) {
	t.Parallel()
	x, y := benchSinc(200, 1)
	r := &Regressor{Kernel: Gaussian{Width: 3}}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	xt := mat.NewDense(121, 1, nil)
	for i := range 121 {
		xt.Set(i, 0, -15+0.25*float64(i))
	}
	m1, v1, err := r.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	fl := r.aug.floor
	if fl == nil {
		t.Fatal("no floor")
	}
	n, _ := x.Dims()
	piv := len(fl.Encode().Pivots)
	if piv >= 64 {
		t.Fatalf("%d pivots for %d rows, want fewer than 64", piv, n)
	}
	s := fl.Encode().Signal
	noise := r.NoiseSD() * r.NoiseSD()
	k2 := Gaussian{Width: 3 * math.Sqrt2}
	kk := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := s * k2.Eval(x.RawRowView(i), x.RawRowView(j))
			if i == j {
				v += noise
			}
			kk.SetSym(i, j, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(kk) {
		t.Fatal("GP kernel matrix not positive definite")
	}
	g := &Regressor{Kernel: Gaussian{Width: 3}}
	if err := g.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	if err := g.dropFloor(); err != nil {
		t.Fatal(err)
	}
	m0, v0, err := g.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	var raised int
	var worst float64
	for i := range 121 {
		xs := xt.RawRowView(i)
		k := mat.NewVecDense(n, nil)
		for j := range n {
			k.SetVec(j, s*k2.Eval(x.RawRowView(j), xs))
		}
		var u mat.VecDense
		if err := chol.SolveVecTo(&u, k); err != nil {
			t.Fatal(err)
		}
		gp := s - mat.Dot(k, &u)
		want := math.Max(v0[i], gp)
		if gp > v0[i] {
			raised++
		}
		worst = math.Max(worst, math.Abs(v1[i]-want)/want)
		if math.Abs(v1[i]-want) > 3e-2*want || m1[i] != m0[i] {
			t.Errorf("x* = %g: latent %g ± %g, want %g ± %g (augmentation %g, GP %g)", xs[0], m1[i], v1[i], m0[i], want, v0[i], gp)
		}
	}
	t.Logf("%d pivots, signal variance %.4g, noise %.4g: the floor raises %d of 121 variances; within %.2g of the exact GP's", piv, s, noise, raised, worst)
	if raised == 0 {
		t.Error("the floor raises no variance: the test no longer checks it")
	}
	l := saveLoad(t, r)
	m3, v3, err := l.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1 {
		if m1[i] != m3[i] || v1[i] != v3[i] {
			t.Fatalf("row %d: loaded model predicts %g ± %g, saved %g ± %g", i, m3[i], v3[i], m1[i], v1[i])
		}
	}
	old := withoutFloor(t, r)
	m4, v4, err := old.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1 {
		if m0[i] != m4[i] || math.Abs(v0[i]-v4[i]) > 1e-12*v0[i] {
			t.Fatalf("row %d: a file without the floor predicts %g ± %g, want %g ± %g", i, m4[i], v4[i], m0[i], v0[i])
		}
	}
}

// withoutFloor saves r, removes the floor from the file as one written
// before it, and loads it back.
func withoutFloor(t *testing.T, r *Regressor) *Regressor {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(payloadOf(t, buf.Bytes()), &p); err != nil {
		t.Fatal(err)
	}
	a, ok := p["augment"].(map[string]any)
	if !ok || a["floor"] == nil {
		t.Fatal("the saved file has no floor")
	}
	delete(a, "floor")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Load(bytes.NewReader(seal(b)))
	if err != nil {
		t.Fatal(err)
	}
	return e.(*Regressor)
}
