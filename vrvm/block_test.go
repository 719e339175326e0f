package vrvm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// evalOnly hides a kernel's EvalBlock (and its other optional methods):
// the library reaches it through Eval alone, as it does a user's kernel.
type evalOnly struct{ k Kernel }

func (e evalOnly) Eval(x, y []float64) float64 { return e.k.Eval(x, y) }

// mathExpGaussian is the Gaussian kernel as it was evaluated before
// fastExp: exp(−‖x − y‖²/r²) by math.Exp.
type mathExpGaussian struct{ width float64 }

func (k mathExpGaussian) Eval(x, y []float64) float64 {
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	return math.Exp(-d2 / (k.width * k.width))
}

// userBlock is a BlockKernel that the library does not know to be
// symmetric: predictions evaluate it by rows and transpose (kernelBlock with byCols).
type userBlock struct{ g Gaussian }

func (k userBlock) Eval(x, y []float64) float64    { return k.g.Eval(x, y) }
func (k userBlock) EvalBlock(dst, x, c *mat.Dense) { k.g.EvalBlock(dst, x, c) }

// latentElementwise is Latent as it was before block evaluation, kept as
// the reference: the checks of x, the design element by element through
// Eval (column by column, as designCtx did), then Φμ and the row sums of
// (ΦΣ) ⊙ Φ.
func latentElementwise(f *fitted, x mat.Matrix) (mean, variance []float64, err error) {
	n, _ := x.Dims()
	if err := checkFinite("x", x); err != nil {
		return nil, nil, err
	}
	cols := f.design
	if cols == nil {
		cols = seq(len(f.mu))
	}
	phi := mat.NewDense(n, len(cols), nil)
	rows := rowsOf(x)
	for j, c := range cols {
		for i := range n {
			switch {
			case f.b.kernel == nil:
				phi.Set(i, j, x.At(i, c))
			case f.b.bias && c == 0:
				phi.Set(i, j, 1)
			default:
				v := f.b.kernel.Eval(rows[i], f.b.centers.RawRowView(c-f.b.offset()))
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, nil, &NonFiniteError{What: "kernel value", Row: i, Col: c - f.b.offset(), Value: v}
				}
				phi.Set(i, j, v)
			}
		}
	}
	_, m := phi.Dims()
	mean = make([]float64, n)
	variance = make([]float64, n)
	blas64.Gemv(blas.NoTrans, 1, phi.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: f.mu}, 0, blas64.Vector{N: n, Inc: 1, Data: mean})
	var ps mat.Dense
	ps.Mul(phi, f.sigma.get())
	for i := range n {
		v := blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: ps.RawRowView(i)}, blas64.Vector{N: m, Inc: 1, Data: phi.RawRowView(i)})
		variance[i] = math.Max(0, v)
		if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) {
			return nil, nil, &NonFiniteError{What: "predicted mean", Row: i, Col: -1, Value: mean[i]}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, &NonFiniteError{What: "predicted variance", Row: i, Col: -1, Value: v}
		}
	}
	return mean, variance, nil
}

func randDense(rnd *rand.Rand, r, c int, scale float64) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			a.Set(i, j, scale*rnd.NormFloat64())
		}
	}
	return a
}

// TestEvalBlock compares each kernel's EvalBlock with Eval, pair by pair:
// exactly below gemmDim input columns (the same arithmetic), to blockTol
// relative to the largest |K| from gemmDim on.
func TestEvalBlock(t *testing.T) {
	t.Parallel()
	const blockTol = 1e-12
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, d := range []int{1, 2, 5, gemmDim - 1, gemmDim, 40} {
		for _, k := range []BlockKernel{Gaussian{Width: 0.7 * math.Sqrt(float64(d))}, Gaussian{Width: 3}, Polynomial{Degree: 3, Scale: 1 / float64(d)}, Linear{}} {
			x := randDense(rnd, 37, d, 1)
			c := randDense(rnd, 11, d, 1)
			// Inputs away from the origin, where ‖x‖² + ‖c‖² − 2x·c cancels.
			for i := range 11 {
				c.Set(i, 0, c.At(i, 0)+50)
			}
			for i := range 37 {
				x.Set(i, 0, x.At(i, 0)+50)
			}
			got := mat.NewDense(37, 11, nil)
			k.EvalBlock(got, x, c)
			var scale float64
			for i := range 37 {
				for j := range 11 {
					scale = math.Max(scale, math.Abs(k.Eval(x.RawRowView(i), c.RawRowView(j))))
				}
			}
			for i := range 37 {
				for j := range 11 {
					want := k.Eval(x.RawRowView(i), c.RawRowView(j))
					g := got.At(i, j)
					if d < gemmDim && g != want || math.Abs(g-want) > blockTol*scale {
						t.Fatalf("%v d=%d: [%d,%d] block %.17g, Eval %.17g", k, d, i, j, g, want)
					}
				}
			}
		}
	}
}

// TestEvalBlockOverflow: where ‖x‖² overflows, the block form of the
// Gaussian gives NaN (∞ − ∞) but Eval gives 0; the design falls back to
// Eval and reports no error.
func TestEvalBlockOverflow(t *testing.T) {
	t.Parallel()
	b := basis{kernel: Gaussian{Width: 1}, centers: mat.NewDense(1, gemmDim, nil), dim: gemmDim}
	b.centers.Set(0, 0, -1e160)
	x := mat.NewDense(2, gemmDim, nil)
	x.Set(0, 0, 1e160)
	phi, err := b.design(x, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if phi.At(0, 0) != 0 || phi.At(1, 0) != 0 {
		t.Errorf("K = %v, %v; want 0, 0", phi.At(0, 0), phi.At(1, 0))
	}
}

// TestLatentBlocks compares Latent with the element-wise reference on
// fitted models: built-in kernels (below and above gemmDim columns), a
// kernel known only through Eval, a named kernel, a user design, and
// a classifier; with more rows than one block and in parallel.
func TestLatentBlocks(t *testing.T) {
	t.Parallel()
	const latentTol = 1e-12
	rnd := rand.New(rand.NewPCG(2, 2))
	named := NamedKernel("test-block-gaussian", Gaussian{Width: 1.5})
	type problem struct {
		name     string
		fit      func(x *mat.Dense, y []float64) (*fitted, error)
		d        int
		classify bool
	}
	reg := func(k Kernel) func(x *mat.Dense, y []float64) (*fitted, error) {
		return func(x *mat.Dense, y []float64) (*fitted, error) {
			r := &Regressor{Kernel: k, NoAugment: true}
			return &r.fitted, r.Fit(x, y)
		}
	}
	problems := []problem{
		{"gaussian d=2", reg(Gaussian{Width: 1}), 2, false},
		{"gaussian d=20", reg(Gaussian{Width: 4}), 20, false},
		{"polynomial d=3", reg(Polynomial{Degree: 2, Scale: 1.0 / 3}), 3, false},
		{"polynomial d=20", reg(Polynomial{Degree: 2, Scale: 1.0 / 20}), 20, false},
		{"linear d=20 no bias", func(x *mat.Dense, y []float64) (*fitted, error) {
			r := &Regressor{Kernel: Linear{}, NoBias: true, NoAugment: true}
			return &r.fitted, r.Fit(x, y)
		}, 20, false},
		{"gaussian unpruned", func(x *mat.Dense, y []float64) (*fitted, error) {
			r := &Regressor{Kernel: Gaussian{Width: 1}, NoPrune: true, MaxIter: 3, NoAugment: true}
			return &r.fitted, r.Fit(x, y)
		}, 2, false},
		{"eval-only kernel", reg(evalOnly{Gaussian{Width: 1}}), 2, false},
		{"user block kernel", reg(userBlock{Gaussian{Width: 1}}), 2, false},
		{"named kernel", reg(named), 2, false},
		{"user design", func(x *mat.Dense, y []float64) (*fitted, error) {
			r := &Regressor{NoAugment: true}
			return &r.fitted, r.FitDesign(x, y)
		}, 6, false},
		{"classifier", func(x *mat.Dense, y []float64) (*fitted, error) {
			c := &Classifier{Kernel: Gaussian{Width: 1}, NoAugment: true}
			return &c.fitted, c.Fit(x, y)
		}, 2, true},
		{"rvm", func(x *mat.Dense, y []float64) (*fitted, error) {
			r := &RVMRegressor{Kernel: Gaussian{Width: 1}}
			return &r.fitted, r.Fit(x, y)
		}, 2, false},
	}
	for _, p := range problems {
		for seed := range 3 {
			x := randDense(rnd, 80, p.d, 1)
			y := make([]float64, 80)
			for i := range y {
				y[i] = math.Sin(x.At(i, 0)) + 0.1*rnd.NormFloat64()
				if p.classify {
					y[i] = 0
					if x.At(i, 0)+0.3*rnd.NormFloat64() > 0 {
						y[i] = 1
					}
				}
			}
			f, err := p.fit(x, y)
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			// 5000 rows: several blocks, and parallel workers when
			// GOMAXPROCS > 1.
			xt := randDense(rnd, 5000, p.d, 1.5)
			mean, variance, err := f.Latent(xt)
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			refs := []*fitted{f}
			if g, ok := f.b.kernel.(Gaussian); ok {
				// Today's kernel values, by math.Exp.
				old := *f
				old.b.kernel = mathExpGaussian{g.Width}
				refs = append(refs, &old)
			}
			for _, ref := range refs {
				wm, wv, err := latentElementwise(ref, xt)
				if err != nil {
					t.Fatal(err)
				}
				for i := range wm {
					if math.Abs(mean[i]-wm[i]) > latentTol*math.Max(1, math.Abs(wm[i])) ||
						math.Abs(variance[i]-wv[i]) > latentTol*math.Max(wv[i], 1e-3*math.Max(1, wv[i])) {
						t.Fatalf("%s (reference kernel %T) seed %d row %d: block %.17g ± %.17g, element-wise %.17g ± %.17g",
							p.name, ref.b.kernel, seed, i, mean[i], variance[i], wm[i], wv[i])
					}
				}
			}
		}
	}
}

// benchLatentModel is a regression model with 10 relevance vectors in
// d = 2 (Gaussian width 0.5 on centres in the unit square), a bias, and
// a random covariance, as Predict sees a fitted one.
func benchLatentModel(k Kernel) *Regressor {
	rnd := rand.New(rand.NewPCG(3, 3))
	const m = 11
	a := randDense(rnd, m, m, 1)
	var sigma mat.SymDense
	sigma.SymOuterK(0.01, a)
	r := &Regressor{}
	r.status = Converged
	r.b = basis{kernel: k, bias: true, centers: randDense(rnd, m-1, 2, 0.5), dim: 2}
	r.rows = seq(m - 1)
	r.mu = randDense(rnd, 1, m, 1).RawRowView(0)
	r.sigma = &lazySigma{v: &sigma}
	r.alpha = constant(m, 1)
	r.noise = 0.01
	r.trace = []float64{0}
	return r
}

// BenchmarkPredictThroughput times 100,000 predictions (mean and
// variance) from a model with 10 relevance vectors in d = 2 (issue 14,
// acceptance 1): "elementwise" is Predict before block evaluation (the
// design element by element, kept in latentElementwise, with the kernel
// by math.Exp as it was), "eval-only" the block path with a kernel that
// has no EvalBlock, "block" the Gaussian's EvalBlock. Run with -cpu 1 for one core.
func BenchmarkPredictThroughput(b *testing.B) {
	const n = 100000
	rnd := rand.New(rand.NewPCG(4, 4))
	xt := randDense(rnd, n, 2, 0.6)
	g := Gaussian{Width: 0.5}
	b.Run("elementwise", func(b *testing.B) {
		r := benchLatentModel(mathExpGaussian{g.Width})
		defer reportCPU(b)()
		for b.Loop() {
			_, variance, err := latentElementwise(&r.fitted, xt)
			if err != nil {
				b.Fatal(err)
			}
			for i := range variance {
				variance[i] += r.noise
			}
		}
	})
	for _, c := range []struct {
		name string
		k    Kernel
	}{{"eval-only", evalOnly{g}}, {"block", g}} {
		b.Run(c.name, func(b *testing.B) {
			r := benchLatentModel(c.k)
			defer reportCPU(b)()
			for b.Loop() {
				if _, _, err := r.Predict(xt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKernelBlock times Gaussian.EvalBlock on 4096 × 64 blocks for
// several input dimensions, pair by pair against through BLAS: the
// crossover sets gemmDim.
func BenchmarkKernelBlock(b *testing.B) {
	rnd := rand.New(rand.NewPCG(5, 5))
	for _, d := range []int{2, 4, 8, 16, 32, 64} {
		x := randDense(rnd, 4096, d, 1)
		c := randDense(rnd, 64, d, 1)
		dst := mat.NewDense(4096, 64, nil)
		k := Gaussian{Width: math.Sqrt(float64(d))}
		for _, path := range []string{"pairwise", "blas"} {
			b.Run(path+"/d="+strconv.Itoa(d), func(b *testing.B) {
				for b.Loop() {
					k.evalBlock(dst, x, c, path == "blas")
				}
			})
		}
	}
}

// TestExp compares fastExp with math.Exp: relative error below expTol
// over the range the Gaussian kernel uses and beyond, and the special
// cases.
func TestExp(t *testing.T) {
	t.Parallel()
	const expTol = 1e-15
	rnd := rand.New(rand.NewPCG(6, 6))
	var worst float64
	for i := range 1000000 {
		x := -750 + 1500*rnd.Float64()
		if i%2 == 0 {
			x = -40 * rnd.Float64()
		}
		got, want := fastExp(x), math.Exp(x)
		if e := math.Abs(got-want) / want; e > worst {
			worst = e
		}
	}
	t.Logf("largest relative error %.3g", worst)
	if worst > expTol {
		t.Errorf("largest relative error %.3g", worst)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1, -699.99, 699.99, -700, 700, -745.2, -746, 710, math.Inf(-1), math.Inf(1), math.NaN()} {
		got, want := fastExp(x), math.Exp(x)
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) && math.Abs(got-want) > expTol*want {
			t.Errorf("exp(%v) = %v, math.Exp %v", x, got, want)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1<<16)
	for i := range xs {
		xs[i] = -30 * float64(i) / float64(len(xs))
	}
	out := make([]float64, len(xs))
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				out[i] = math.Exp(x)
			}
		}
	})
	b.Run("expTo", func(b *testing.B) {
		for b.Loop() {
			copy(out, xs)
			expTo(out)
		}
	})
}

// reportCPU, deferred as defer reportCPU(b)(), reports the process's CPU
// time per operation (user + system), which unlike ns/op does not grow
// when other processes compete for the processors.
func reportCPU(b *testing.B) func() {
	c0, ok := processCPU()
	return func() {
		if c1, ok1 := processCPU(); ok && ok1 && b.N > 0 {
			b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}
