package vrvm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bouchardFit is a measurement aid, not part of the package: the shared-α
// model with Bouchard's (2007) bound in place of Böhning's,
//
//	lse(y) ≤ aₙ + Σₖ ln(1 + e^(yₖ − aₙ)),
//
// each softplus bounded by Jaakkola–Jordan with its own ξₙₖ, so that the
// curvature 2λ(ξₙₖ) adapts to each point and class and the weight
// posterior factorises over classes: Σₖ = (diag α + 2ΦᵀΛₖΦ)⁻¹,
// μₖ = ΣₖΦᵀ(tₖ − ½ + 2λₖ∘a), ξₙₖ² = (ȳₙₖ − aₙ)² + φₙᵀΣₖφₙ,
// aₙ = (K/2 − 1 + 2Σₖλₙₖȳₙₖ)/(2Σₖλₙₖ), b̃ₘ = b + ½Σₖ⟨wₘₖ²⟩; the paper's
// schedule with pruning at PruneAlpha. It returns plug-in test
// probabilities and the relevance vectors.
func bouchardFit(t testing.TB, k Kernel, xtr *mat.Dense, ltr []string, xte *mat.Dense, maxIter int) (*mat.Dense, int, []string) {
	classes, y, err := classIndex(ltr)
	if err != nil {
		t.Fatal(err)
	}
	nc := len(classes)
	n, _ := xtr.Dims()
	b := basis{kernel: k, bias: true, centers: mat.DenseCopyOf(xtr), dim: xtr.RawMatrix().Cols}
	phiFull, err := b.full(xtr)
	if err != nil {
		t.Fatal(err)
	}
	_, np := phiFull.Dims()
	cols := seq(np)
	phi := phiFull
	prior := Prior{A: DefaultPrior, B: DefaultPrior}
	at := prior.A + float64(nc)/2
	alpha := constant(np, 1)
	lam := mat.NewDense(n, nc, nil)
	for i := range n {
		for c := range nc {
			lam.Set(i, c, Lambda(1))
		}
	}
	an := make([]float64, n)
	var mu *mat.Dense
	for it := 0; it < maxIter; it++ {
		m := len(cols)
		mu = mat.NewDense(m, nc, nil)
		w2 := make([]float64, m)
		ybar := mat.NewDense(n, nc, nil)
		vv := mat.NewDense(n, nc, nil)
		for c := range nc {
			prec := mat.NewSymDense(m, nil)
			rhs := mat.NewVecDense(m, nil)
			for i := range n {
				row := phi.RawRowView(i)
				prec.SymRankOne(prec, 2*lam.At(i, c), mat.NewVecDense(m, row))
				tk := 0.0
				if y[i] == c {
					tk = 1
				}
				rhs.AddScaledVec(rhs, tk-0.5+2*lam.At(i, c)*an[i], mat.NewVecDense(m, row))
			}
			for j := range m {
				prec.SetSym(j, j, prec.At(j, j)+alpha[j])
			}
			var chol mat.Cholesky
			if !chol.Factorize(prec) {
				t.Fatal("not positive definite")
			}
			var sol mat.VecDense
			if err := chol.SolveVecTo(&sol, rhs); err != nil {
				t.Fatal(err)
			}
			var inv mat.SymDense
			if err := chol.InverseTo(&inv); err != nil {
				t.Fatal(err)
			}
			mu.SetCol(c, sol.RawVector().Data)
			for j := range m {
				w2[j] += sol.AtVec(j)*sol.AtVec(j) + inv.At(j, j)
			}
			var ps mat.Dense
			ps.Mul(phi, &inv)
			for i := range n {
				ybar.Set(i, c, mat.Dot(phi.RowView(i), &sol))
				vv.Set(i, c, mat.Dot(ps.RowView(i), phi.RowView(i)))
			}
		}
		maxCh := 0.0
		for j := range m {
			na := at / (prior.B + 0.5*w2[j])
			maxCh = math.Max(maxCh, math.Abs(na-alpha[j])/alpha[j])
			alpha[j] = na
		}
		for i := range n {
			var num, den float64
			for c := range nc {
				num += lam.At(i, c) * ybar.At(i, c)
				den += lam.At(i, c)
			}
			an[i] = (float64(nc)/2 - 1 + 2*num) / (2 * den)
			for c := range nc {
				d := ybar.At(i, c) - an[i]
				lam.Set(i, c, Lambda(math.Sqrt(d*d+vv.At(i, c))))
			}
		}
		keep, pruned := pruneSet(alpha, defaultClassificationPrune)
		if pruned {
			cols, alpha, phi = selectInts(cols, keep), selectVec(alpha, keep), selectCols(phi, keep)
		} else if maxCh < defaultMultiParamTol {
			break
		}
	}
	m := len(cols)
	if r, _ := mu.Dims(); r != m {
		t.Fatal("pruned in the last iteration")
	}
	rv := 0
	for j, c := range cols {
		if c == 0 {
			continue
		}
		for _, v := range mu.RawRowView(j) {
			if math.Abs(v) > RelevanceThreshold {
				rv++
				break
			}
		}
	}
	pt, err := b.design(xte, cols)
	if err != nil {
		t.Fatal(err)
	}
	nt, _ := xte.Dims()
	yb := mat.NewDense(nt, nc, nil)
	yb.Mul(pt, mu)
	prob := mat.NewDense(nt, nc, nil)
	for i := range nt {
		softmaxTo(prob.RawRowView(i), yb.RawRowView(i))
	}
	return prob, rv, classes
}

// BenchmarkBouchard measures bouchardFit on the sets of
// BenchmarkPerClassAlpha:
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench Bouchard -benchtime 1x
func BenchmarkBouchard(b *testing.B) {
	type set struct {
		name     string
		xtr, xte *mat.Dense
		ltr, lte []string
		k        Kernel
	}
	var sets []set
	rx, rl, rxt, rlt, _ := ripley3Split(b)
	sets = append(sets, set{"ripley3", rx, rxt, rl, rlt, Gaussian{Width: 0.5}})
	for _, name := range []string{"iris", "wine"} {
		xtr, ltr, xte, lte := realSet(b, name)
		sets = append(sets, set{name, xtr, xte, ltr, lte, Gaussian{Width: realWidth(xtr)}})
	}
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			var prob *mat.Dense
			var rv int
			var classes []string
			for b.Loop() {
				prob, rv, classes = bouchardFit(b, s.k, s.xtr, s.ltr, s.xte, 5000)
			}
			var wrong int
			var ll float64
			for i, l := range s.lte {
				row := prob.RawRowView(i)
				best := 0
				for j, v := range row {
					if v > row[best] {
						best = j
					}
					if classes[j] == l {
						ll -= math.Log(math.Max(v, 1e-15))
					}
				}
				if classes[best] != l {
					wrong++
				}
			}
			b.ReportMetric(100*float64(wrong)/float64(len(s.lte)), "test-err-%")
			b.ReportMetric(ll/float64(len(s.lte)), "plugin-log-loss")
			b.ReportMetric(float64(rv), "RVs")
		})
	}
}
