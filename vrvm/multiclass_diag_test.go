package vrvm

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Measurement aids for the accuracy of MultiClassifier (doc.go, "Why the
// multi-class model is too sparse"), not part of the package.

// diagonalBoundFit is the softmax model with one precision αₘₖ per weight
// (per class, as one-vs-rest) under the diagonal curvature ½I, a valid but
// looser Böhning bound (½I ⪰ A ⪰ ∇²lse): the classes decouple into K
// Gaussian problems per step, Σₖ = (diag⟨αₖ⟩ + ½ΦᵀΦ)⁻¹, μₖ = ΣₖΦᵀrₖ,
// rₙₖ = tₙₖ − gₖ(ψₙ) + ½ψₙₖ, ⟨αₘₖ⟩ = (a + ½)/(b + ½⟨wₘₖ²⟩), ψ = Φμ, each
// class pruning its own functions at defaultClassificationPrune (the
// paper's schedule, maxIter iterations at most). Only every every-th
// training row is a candidate centre (with the bias), to keep the first
// K factorisations affordable on digits. It returns the moderated test
// probabilities softmax(yₖ/√(1 + πvₖ/8)), the number of distinct relevance
// vectors, the classes and the iterations.
func diagonalBoundFit(t testing.TB, k Kernel, xtr *mat.Dense, ltr []string, xte *mat.Dense, maxIter, every int) (*mat.Dense, int, []string, int) {
	const curv = 0.5 // the curvature ½I
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
	at := DefaultPrior + 0.5
	bb := DefaultPrior
	type cls struct {
		cols  []int
		phi   *mat.Dense
		alpha []float64
		mu    []float64
		sig   *mat.SymDense
	}
	cand := seq(np)
	if every > 1 {
		cand = []int{0}
		for j := 1; j < np; j += every {
			cand = append(cand, j)
		}
	}
	cs := make([]*cls, nc)
	for c := range cs {
		cs[c] = &cls{cols: cand, phi: selectCols(phiFull, cand), alpha: constant(len(cand), 1)}
	}
	psi := mat.NewDense(n, nc, nil)
	ybar := mat.NewDense(n, nc, nil)
	g := make([]float64, nc)
	it := 0
	for it = 0; it < maxIter; it++ {
		// residual
		r := mat.NewDense(n, nc, nil)
		for i := range n {
			softmaxTo(g, psi.RawRowView(i))
			for c := range nc {
				v := -g[c] + curv*psi.At(i, c)
				if y[i] == c {
					v++
				}
				r.Set(i, c, v)
			}
		}
		maxCh := 0.0
		pruned := false
		for c, s := range cs {
			m := len(s.cols)
			prec := mat.NewSymDense(m, nil)
			blas64.Syrk(blas.Trans, curv, s.phi.RawMatrix(), 0, prec.RawSymmetric())
			for j := range m {
				prec.SetSym(j, j, prec.At(j, j)+s.alpha[j])
			}
			var chol mat.Cholesky
			if !chol.Factorize(prec) {
				t.Fatal("not PD")
			}
			rhs := mat.NewVecDense(m, nil)
			rhs.MulVec(s.phi.T(), r.ColView(c))
			var mu mat.VecDense
			chol.SolveVecTo(&mu, rhs)
			var inv mat.SymDense
			chol.InverseTo(&inv)
			s.mu, s.sig = mu.RawVector().Data, &inv
			yb := mat.NewVecDense(n, nil)
			yb.MulVec(s.phi, &mu)
			ybar.SetCol(c, yb.RawVector().Data)
			for j := range m {
				na := at / (bb + 0.5*(s.mu[j]*s.mu[j]+inv.At(j, j)))
				maxCh = math.Max(maxCh, math.Abs(na-s.alpha[j])/s.alpha[j])
				s.alpha[j] = na
			}
			keep, did := pruneSet(s.alpha, defaultClassificationPrune)
			if did && len(keep) > 0 {
				pruned = true
				s.cols, s.alpha, s.phi = selectInts(s.cols, keep), selectVec(s.alpha, keep), selectCols(s.phi, keep)
			}
		}
		dpsi := psiChange(psi, ybar)
		psi.Copy(ybar)
		if !pruned && maxCh < defaultMultiParamTol && dpsi < defaultMultiParamTol {
			break
		}
	}
	// final means for current cols
	distinct := map[int]bool{}
	nt, _ := xte.Dims()
	yte := mat.NewDense(nt, nc, nil)
	vte := mat.NewDense(nt, nc, nil)
	for c, s := range cs {
		if len(s.mu) != len(s.cols) {
			t.Fatal("pruned in the last iteration")
		}
		pt, err := b.design(xte, s.cols)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nt {
			row := pt.RawRowView(i)
			var m float64
			for j, v := range row {
				m += v * s.mu[j]
			}
			yte.Set(i, c, m)
			sv := mat.NewVecDense(len(row), row)
			vte.Set(i, c, mat.Inner(sv, s.sig, sv))
		}
		for j, col := range s.cols {
			if col != 0 && math.Abs(s.mu[j]) > RelevanceThreshold {
				distinct[col] = true
			}
		}
	}
	prob := mat.NewDense(nt, nc, nil)
	for i := range nt {
		row := make([]float64, nc)
		for c := range nc {
			row[c] = yte.At(i, c) / math.Sqrt(1+math.Pi*vte.At(i, c)/8)
		}
		softmaxTo(prob.RawRowView(i), row)
	}
	return prob, len(distinct), classes, it
}

// BenchmarkDiagonalBound measures diagonalBoundFit on the real-world
// splits (inputs standardised with training statistics, width √d) and
// the three-class Ripley problem (standardised, width √2):
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench DiagonalBound -benchtime 1x
func BenchmarkDiagonalBound(b *testing.B) {
	for _, c := range []struct {
		name         string
		every, iters int
	}{{"iris", 1, 5000}, {"wine", 1, 5000}, {"ripley3", 1, 5000}, {"digits", 5, 1500}, {"digits", 2, 3000}} {
		b.Run(c.name+"/every-"+strconv.Itoa(c.every), func(b *testing.B) {
			xtr, ltr, xte, lte := multiSet(b, c.name)
			var prob *mat.Dense
			var rv, it int
			var classes []string
			for b.Loop() {
				prob, rv, classes, it = diagonalBoundFit(b, Gaussian{Width: realWidth(xtr)}, xtr, ltr, xte, c.iters, c.every)
			}
			var wrong int
			var ll float64
			for i, l := range lte {
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
			b.ReportMetric(100*float64(wrong)/float64(len(lte)), "test-err-%")
			b.ReportMetric(ll/float64(len(lte)), "log-loss")
			b.ReportMetric(float64(rv), "RVs")
			b.ReportMetric(float64(it), "iters")
		})
	}
}

// multiSet returns a real-world split (realSet) or, for "ripley3", the
// three-class Ripley split standardised with its training statistics.
func multiSet(b testing.TB, name string) (xtr *mat.Dense, ltr []string, xte *mat.Dense, lte []string) {
	if name != "ripley3" {
		return realSet(b, name)
	}
	xtr, ltr, xte, lte, _ = ripley3Split(b)
	xtr, xte = mat.DenseCopyOf(xtr), mat.DenseCopyOf(xte)
	standardise(xtr, xte)
	return
}

// BenchmarkMultiWidths fits MultiClassifier (default solver) at the
// widths c√d, c ∈ {0.5, 0.75, 1, 1.5}, and reports the test error, the
// relevance vectors and the full bound (which the width maximising it
// would pick):
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench MultiWidths -benchtime 1x
func BenchmarkMultiWidths(b *testing.B) {
	for _, name := range []string{"iris", "wine", "ripley3", "digits"} {
		for _, c := range []float64{0.5, 0.75, 1, 1.5} {
			b.Run(name+"/"+strconv.FormatFloat(c, 'g', -1, 64), func(b *testing.B) {
				xtr, ltr, xte, lte := multiSet(b, name)
				var m *MultiClassifier
				for b.Loop() {
					m = &MultiClassifier{Kernel: Gaussian{Width: c * realWidth(xtr)}}
					if err := m.Fit(xtr, ltr); err != nil {
						b.Fatal(err)
					}
				}
				e, _ := m.ErrorRate(xte, lte)
				b.ReportMetric(100*e, "test-err-%")
				b.ReportMetric(float64(len(m.RelevanceVectors())), "RVs")
				b.ReportMetric(m.LowerBound(), "bound")
			})
		}
	}
}

// BenchmarkMultiTwoClass compares MultiClassifier with two classes, where
// Böhning's bound (M3) is the Jaakkola–Jordan bound at ξ = 0, with the
// binary Classifier on the two-class real-world splits (standardised,
// width √d): the test error and the relevance vectors of each.
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench MultiTwoClass -benchtime 1x
func BenchmarkMultiTwoClass(b *testing.B) {
	for _, name := range []string{"breast", "digits38"} {
		b.Run(name, func(b *testing.B) {
			xtr, ltr, xte, lte := realSet(b, name)
			k := Gaussian{Width: realWidth(xtr)}
			var m *MultiClassifier
			var c *Classifier
			for b.Loop() {
				m = &MultiClassifier{Kernel: k}
				if err := m.Fit(xtr, ltr); err != nil {
					b.Fatal(err)
				}
				tt := make([]float64, len(ltr))
				for i, l := range ltr {
					if l == "1" {
						tt[i] = 1
					}
				}
				c = &Classifier{Kernel: k}
				if err := c.Fit(xtr, tt); err != nil {
					b.Fatal(err)
				}
			}
			e, _ := m.ErrorRate(xte, lte)
			p, err := c.ProbModerated(xte)
			if err != nil {
				b.Fatal(err)
			}
			var wrong int
			for i, l := range lte {
				if (p[i] > 0.5) != (l == "1") {
					wrong++
				}
			}
			b.ReportMetric(100*e, "multi-err-%")
			b.ReportMetric(float64(len(m.RelevanceVectors())), "multi-RVs")
			b.ReportMetric(100*float64(wrong)/float64(len(lte)), "binary-err-%")
			b.ReportMetric(float64(len(c.RelevanceVectors())), "binary-RVs")
		})
	}
}
