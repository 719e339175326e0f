package vrvm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFitStats checks the sufficient-statistics entry against the
// row-based fit: a Regressor fitted on the rows (every row a centre) and
// one fitted by FitStats on the statistics of the same rows, accumulated
// in blocks and merged, on the basis of those centres, reach the same
// bound to 1e-8 relative, the same active set and the same predictions;
// on sinc, and on its targets scaled and shifted (the targets' variance
// from Σt and tᵀt sets the defaults, (T1)), with and without pruning; by
// the paper's schedule (FitStats' own schedule on the statistics) and by
// the sequential and Newton solvers (on the pseudo-rows of (P1)).
func TestFitStats(t *testing.T) {
	t.Parallel()
	const n = 120
	rng := rand.New(rand.NewPCG(5, 44))
	x := mat.NewDense(n, 1, nil)
	sinc := make([]float64, n)
	for i := range n {
		v := 20*rng.Float64() - 10
		x.Set(i, 0, v)
		sinc[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
	}
	for _, c := range []statsCase{
		{"sinc", PaperSchedule{}, 1, 0, false, 20000, 0},
		{"sinc × 100 + 50", PaperSchedule{}, 100, 50, false, 20000, 0},
		// Without pruning the schedule takes thousands of iterations:
		// compare the state after 300 of them.
		{"sinc, no pruning", PaperSchedule{}, 1, 0, true, 300, 0},
		{"sinc, sequential", Sequential{}, 1, 0, false, 0, 0},
		{"sinc × 100 + 50, sequential", Sequential{}, 100, 50, false, 0, 0},
		{"sinc, sequential, no pruning", Sequential{}, 1, 0, true, 0, 0},
		// Newton's last steps leave the pruned model's bound within 3e-8
		// (its full-model bound within 1e-10).
		{"sinc, newton", Newton{}, 1, 0, false, 0, 1e-7},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			y := make([]float64, n)
			for i, v := range sinc {
				y[i] = c.scale*v + c.shift
			}
			checkFitStats(t, c, x, y)
		})
	}
}

// statsCase is one fit of TestFitStats: the solver, the targets' scale
// and shift, and the pruning and iteration options.
type statsCase struct {
	name         string
	solver       Method
	scale, shift float64
	noPrune      bool
	maxIter      int
	boundTol     float64 // relative; 0 means 1e-8
}

// checkFitStats fits (x, y) on the rows and from their statistics as c
// says and compares the two fits.
func checkFitStats(t *testing.T, c statsCase, x *mat.Dense, y []float64) {
	t.Helper()
	const predTol = 1e-6 // relative to max(1, |value|)
	boundTol := c.boundTol
	if boundTol == 0 {
		boundTol = 1e-8
	}
	xt := mat.NewDense(7, 1, []float64{-9.5, -4, -0.3, 0, 2.2, 6, 12})
	k := Gaussian{Width: 3}
	// The sequential and Newton solvers work on a factor of the design
	// (the kernel matrix's pivoted Cholesky for the rows, the pseudo-rows
	// for the statistics), whose rounding moves their path: both are
	// converged tightly (ParamTol) so that they stop at the same point.
	var paramTol float64
	if c.solver != (PaperSchedule{}) {
		paramTol = 1e-11
	}
	rows := &Regressor{Kernel: k, Method: c.solver, NoAugment: true, KeepDuplicates: true, NoPrune: c.noPrune, MaxIter: c.maxIter, ParamTol: paramTol}
	if err := rows.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	b := Basis{Kernel: k, Centres: x}
	s1 := blockStats(t, b, x, y)
	st := &Regressor{Method: c.solver, NoPrune: c.noPrune, MaxIter: c.maxIter, ParamTol: paramTol}
	if err := st.FitStats(b, s1); err != nil {
		t.Fatal(err)
	}
	t.Logf("rows: %v after %d iterations, bound %.12g; statistics: %v after %d, %.12g",
		rows.Status(), rows.Iterations(), rows.LowerBound(), st.Status(), st.Iterations(), st.LowerBound())
	if st.Status() != rows.Status() {
		t.Errorf("status %v, rows' %v", st.Status(), rows.Status())
	}
	for _, q := range []struct {
		name      string
		got, want float64
	}{{"bound", st.LowerBound(), rows.LowerBound()}, {"full-model bound", st.FullModelBound(), rows.FullModelBound()}} {
		d := math.Abs(q.got-q.want) / math.Abs(q.want)
		t.Logf("%s: relative difference %.2g", q.name, d)
		if !(d <= boundTol) {
			t.Errorf("%s %.12g, rows' %.12g (relative %.2g)", q.name, q.got, q.want, d)
		}
	}
	// Without pruning (sequential) and in Newton's steps, the weights
	// are determined along the design's near-null directions only to
	// the factors' rounding (the bound is not): μ and the predictions
	// (of 10⁻⁴ at x = 12; weights down to 10⁻⁶) are compared to 1e-3
	// there.
	tol := predTol
	if c.solver == (Newton{}) || c.noPrune && c.solver != (PaperSchedule{}) {
		tol = 1e-3
	}
	compareStatsFit(t, st, rows, xt, tol)
}

// blockStats returns the statistics of the rows of (x, y) on basis b,
// accumulated by two accumulators over blocks of 37 rows, merged.
func blockStats(t *testing.T, b Basis, x *mat.Dense, y []float64) *Stats {
	t.Helper()
	n := len(y)
	s1, s2 := NewStats(b.Dim()), NewStats(b.Dim())
	for lo := 0; lo < n; lo += 37 {
		hi := min(lo+37, n)
		phi, err := b.Design(x.Slice(lo, hi, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		acc := s1
		if lo >= 60 {
			acc = s2
		}
		if err := acc.AddRows(phi, y[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s1.Merge(s2); err != nil {
		t.Fatal(err)
	}
	if s1.Rows() != n || s1.Dim() != n+1 {
		t.Fatalf("statistics of %d rows, %d functions", s1.Rows(), s1.Dim())
	}
	return s1
}

// compareStatsFit checks that the fit st by FitStats has the active set,
// means, noise and predictions at xt of the fit rows on the rows, and
// saves and loads.
func compareStatsFit(t *testing.T, st, rows *Regressor, xt *mat.Dense, predTol float64) {
	t.Helper()
	if a, w := st.ActiveSet(), rows.ActiveSet(); !slices.Equal(a, w) || st.HasBias() != rows.HasBias() {
		t.Fatalf("active set %v (bias %v), rows' %v (bias %v)", a, st.HasBias(), w, rows.HasBias())
	}
	checkClose(t, "μ", st.Mean(), rows.Mean(), predTol)
	checkClose(t, "noise sd", []float64{st.NoiseSD()}, []float64{rows.NoiseSD()}, predTol)
	gm, gv, err := st.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	wm, wv, err := rows.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "predictive mean", gm, wm, predTol)
	checkClose(t, "predictive variance", gv, wv, predTol)
	// The model saves and loads as any other.
	var buf bytes.Buffer
	if err := st.Save(&buf); err != nil {
		t.Fatal(err)
	}
	m, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	lm, _, err := m.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "loaded mean", lm, gm, 1e-12)
}

// TestStatsBadInput: bad blocks, merges and fits are errors naming the
// problem, and leave the statistics and the model as they were.
func TestStatsBadInput(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(6, 1, []float64{-2, -1, 0, 1, 2, 3})
	y := []float64{0.1, 0.5, 1, 0.4, 0.2, -0.1}
	b := Basis{Kernel: Gaussian{Width: 1}, Centres: x}
	phi, err := b.Design(x)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := phi.Dims(); r != 6 || c != 7 || phi.At(2, 0) != 1 || phi.At(2, 3) != 1 {
		t.Fatalf("design %d × %d, bias %v, K(x₂, x₂) %v", r, c, phi.At(2, 0), phi.At(2, 3))
	}
	s := NewStats(b.Dim())
	var de *DimensionError
	var ne *NonFiniteError
	if err := s.AddRows(phi.Slice(0, 6, 0, 5), y); !errors.As(err, &de) {
		t.Errorf("5 columns: %v", err)
	}
	if err := s.AddRows(phi, y[:3]); !errors.As(err, &de) {
		t.Errorf("3 targets: %v", err)
	}
	bad := mat.DenseCopyOf(phi)
	bad.Set(1, 2, math.NaN())
	if err := s.AddRows(bad, y); !errors.As(err, &ne) || ne.Row != 1 || ne.Col != 2 {
		t.Errorf("NaN in the design: %v", err)
	}
	if err := s.AddRows(phi, []float64{0, 1, math.Inf(1), 0, 0, 0}); !errors.As(err, &ne) || ne.Row != 2 {
		t.Errorf("Inf target: %v", err)
	}
	if err := s.AddRows(nil, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("nil design: %v", err)
	}
	if s.Rows() != 0 {
		t.Fatalf("failed blocks added %d rows", s.Rows())
	}
	if err := s.Merge(NewStats(3)); err != nil {
		t.Errorf("empty merge: %v", err) // nothing to add
	}
	o := NewStats(3)
	if err := o.AddRows(mat.NewDense(1, 3, []float64{1, 2, 3}), []float64{1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Merge(o); !errors.As(err, &de) {
		t.Errorf("merge of 3 functions into 7: %v", err)
	}
	r := &Regressor{}
	if err := r.FitStats(b, s); !errors.Is(err, ErrNoData) {
		t.Errorf("no rows: %v", err)
	}
	if err := s.AddRows(phi, y); err != nil {
		t.Fatal(err)
	}
	var oe *OptionError
	for name, bb := range map[string]Basis{
		"nil kernel":   {Centres: x},
		"bad kernel":   {Kernel: Gaussian{Width: -1}, Centres: x},
		"no centres":   {Kernel: Gaussian{Width: 1}},
		"NaN centre":   {Kernel: Gaussian{Width: 1}, Centres: mat.NewDense(1, 1, []float64{math.NaN()})},
		"without bias": {Kernel: Gaussian{Width: 1}, Centres: x, NoBias: true},
	} {
		if err := r.FitStats(bb, s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := (Basis{Kernel: Gaussian{Width: 1}, Centres: x}).Design(mat.NewDense(2, 2, nil)); !errors.As(err, &de) {
		t.Errorf("design at two input columns: %v", err)
	}
	if err := (&Regressor{LearnKernel: true}).FitStats(b, s); !errors.As(err, &oe) {
		t.Errorf("LearnKernel: %v", err)
	}
	flat := NewStats(b.Dim())
	if err := flat.AddRows(phi, []float64{2, 2, 2, 2, 2, 2}); err != nil {
		t.Fatal(err)
	}
	if err := r.FitStats(b, flat); !errors.Is(err, ErrConstantTargets) {
		t.Errorf("constant targets: %v", err)
	}
	if r.Status() != NotFitted {
		t.Errorf("failed fits left status %v", r.Status())
	}
	// A fitted model survives a failed FitStats (the fit contract).
	if err := r.FitStats(b, s); err != nil {
		t.Fatal(err)
	}
	l := r.LowerBound()
	if err := r.FitStats(b, flat); err == nil || r.LowerBound() != l {
		t.Errorf("failed refit: %v, bound %v, before %v", err, r.LowerBound(), l)
	}
}

// TestBasisDesign: Basis.Design (AVX-512 for a Gaussian, statsdesign.go)
// agrees with the fit's own design of the basis to 1e-15 relative (plus
// the rounding of the exponential's argument), with
// and without the bias, at 8 inputs and a number of centres that is not
// a multiple of 8, and at values down to the underflow.
func TestBasisDesign(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 46))
	x, c := randDense(rnd, 50, 8, 2), randDense(rnd, 13, 8, 2)
	for _, b := range []Basis{{Kernel: Gaussian{Width: 2}, Centres: c}, {Kernel: Gaussian{Width: 0.1}, Centres: c, NoBias: true}} {
		got, err := b.Design(x)
		if err != nil {
			t.Fatal(err)
		}
		bs, err := b.basis()
		if err != nil {
			t.Fatal(err)
		}
		want, err := bs.full(x)
		if err != nil {
			t.Fatal(err)
		}
		r, k := want.Dims()
		if gr, gk := got.Dims(); gr != r || gk != k {
			t.Fatalf("design %d × %d, want %d × %d", gr, gk, r, k)
		}
		for i := range r {
			for j := range k {
				g, w := got.At(i, j), want.At(i, j)
				// The argument v = ln w is rounded differently (fused
				// multiply–adds, over 8 terms): |v|·2⁻⁵⁰ more.
				if math.Abs(g-w) > (1e-15+math.Abs(math.Log(w))*0x1p-50)*w || w == 0 && g != 0 {
					t.Fatalf("%v: [%d,%d] = %.17g, want %.17g", b.Kernel, i, j, g, w)
				}
			}
		}
	}
}
