package vrvm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// perClassFit is a measurement aid, not part of the package: the same
// model with one αₘₖ per weight instead of one per basis function, fitted
// by the paper's schedule with the dense MK × MK posterior precision
// A⊗ΦᵀΦ + diag(α) (Böhning's bound no longer decouples the classes), and
// pruning of single weights at PruneAlpha. It returns the test
// probabilities (plug-in, for comparing errors and, roughly, log losses)
// and the number of training rows with at least one active weight.
func perClassFit(t testing.TB, k Kernel, xtr *mat.Dense, ltr []string, xte *mat.Dense, maxIter int) (*mat.Dense, int, []string) {
	classes, y, err := classIndex(ltr)
	if err != nil {
		t.Fatal(err)
	}
	nc := len(classes)
	n, _ := xtr.Dims()
	b := basis{kernel: k, bias: true, centers: mat.DenseCopyOf(xtr), dim: xtr.RawMatrix().Cols}
	phi, err := b.full(xtr)
	if err != nil {
		t.Fatal(err)
	}
	_, np := phi.Dims()
	gram := mat.NewSymDense(np, nil)
	gram.SymOuterK(1, phi.T())
	// Active weights: (function, class) pairs, index m·K + k.
	type wk struct{ m, k int }
	var act []wk
	for m := range np {
		for c := range nc {
			act = append(act, wk{m, c})
		}
	}
	prior := Prior{A: DefaultPrior, B: DefaultPrior}
	alpha := make([]float64, len(act))
	for i := range alpha {
		alpha[i] = 1
	}
	psi := mat.NewDense(n, nc, nil)
	p := &mcProblem{y: y, k: nc}
	var mu []float64
	for it := 0; it < maxIter; it++ {
		na := len(act)
		prec := mat.NewSymDense(na, nil)
		for i, a := range act {
			for j := i; j < na; j++ {
				bq := act[j]
				akl := -0.5 / float64(nc)
				if a.k == bq.k {
					akl += 0.5
				}
				prec.SetSym(i, j, akl*gram.At(a.m, bq.m))
			}
			prec.SetSym(i, i, prec.At(i, i)+alpha[i])
		}
		var chol mat.Cholesky
		if !chol.Factorize(prec) {
			t.Fatal("precision not positive definite")
		}
		r := p.residual(psi)
		var h mat.Dense
		h.Mul(phi.T(), r)
		rhs := mat.NewVecDense(na, nil)
		for i, a := range act {
			rhs.SetVec(i, h.At(a.m, a.k))
		}
		var sol mat.VecDense
		if err := chol.SolveVecTo(&sol, rhs); err != nil {
			t.Fatal(err)
		}
		mu = sol.RawVector().Data
		var inv mat.SymDense
		if err := chol.InverseTo(&inv); err != nil {
			t.Fatal(err)
		}
		// Q_α: ã = a + ½, b̃ = b + ½⟨w²⟩; ψ = ȳ.
		maxCh := 0.0
		for i := range act {
			nA := (prior.A + 0.5) / (prior.B + 0.5*(mu[i]*mu[i]+inv.At(i, i)))
			maxCh = math.Max(maxCh, math.Abs(nA-alpha[i])/alpha[i])
			alpha[i] = nA
		}
		wm := mat.NewDense(np, nc, nil)
		for i, a := range act {
			wm.Set(a.m, a.k, mu[i])
		}
		psi.Mul(phi, wm)
		var keep []int
		for i := range act {
			if alpha[i] <= defaultClassificationPrune {
				keep = append(keep, i)
			}
		}
		if len(keep) < len(act) {
			act2 := make([]wk, len(keep))
			for j, i := range keep {
				act2[j] = act[i]
			}
			act, alpha, mu = act2, selectVec(alpha, keep), selectVec(mu, keep)
		} else if maxCh < defaultMultiParamTol {
			break
		}
	}
	wm := mat.NewDense(np, nc, nil)
	rows := map[int]bool{}
	for i, a := range act {
		wm.Set(a.m, a.k, mu[i])
		if a.m > 0 && math.Abs(mu[i]) > RelevanceThreshold {
			rows[a.m-1] = true
		}
	}
	pt, err := b.full(xte)
	if err != nil {
		t.Fatal(err)
	}
	nt, _ := xte.Dims()
	yb := mat.NewDense(nt, nc, nil)
	yb.Mul(pt, wm)
	prob := mat.NewDense(nt, nc, nil)
	for i := range nt {
		softmaxTo(prob.RawRowView(i), yb.RawRowView(i))
	}
	return prob, len(rows), classes
}

// BenchmarkPerClassAlpha measures the per-class-α variant (perClassFit)
// on the data of BenchmarkMultiRealData and BenchmarkMultiRipley3, for
// the choice of a shared α (doc.go):
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench PerClassAlpha -benchtime 1x
func BenchmarkPerClassAlpha(b *testing.B) {
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
				prob, rv, classes = perClassFit(b, s.k, s.xtr, s.ltr, s.xte, 20000)
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
