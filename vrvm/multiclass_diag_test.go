package vrvm

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// BenchmarkMultiDigitsDiagnosis measures where the digits gap of the
// default softmax model comes from (issue 18): the width (a grid of fixed
// widths c√d), the bound (Böhning's against the adaptive bound at the same
// width), the sparsity (a dense kernel softmax regression, every function
// in every class with one shared precision, at its MAP), the hyperprior
// (the rate b of p(α)) and the solver's stopping (tighter tolerances; the
// paper's schedule against the sequential solver on 500 rows). Each
// reports the test error, the log loss, the distinct relevance vectors,
// the full-model bound and the process CPU seconds:
//
//	VRVM_DATA=/work/shared/data go test ./vrvm -run '^$' -bench MultiDigitsDiagnosis -benchtime 1x
func BenchmarkMultiDigitsDiagnosis(b *testing.B) {
	const learned = 0.61 // the learned width, in units of √d
	type cfg struct {
		name  string
		width float64
		mk    func(k Kernel) *MultiClassifier
		rows  int // 0: every training row
	}
	var cfgs []cfg
	for _, c := range []float64{0.4, 0.5, learned, 0.75, 1} {
		cfgs = append(cfgs, cfg{name: "bohning", width: c, mk: func(k Kernel) *MultiClassifier { return &MultiClassifier{Kernel: k} }})
	}
	for _, c := range []float64{0.5, learned} {
		cfgs = append(cfgs, cfg{name: "adaptive", width: c, mk: func(k Kernel) *MultiClassifier {
			return &MultiClassifier{Kernel: k, Likelihood: SoftmaxAdaptive}
		}})
	}
	cfgs = append(cfgs,
		cfg{name: "bohning-b=1e-9", width: learned, mk: func(k Kernel) *MultiClassifier { return &MultiClassifier{Kernel: k, Prior: Prior{B: 1e-9}} }},
		cfg{name: "bohning-a=b=1e-2", width: learned, mk: func(k Kernel) *MultiClassifier {
			return &MultiClassifier{Kernel: k, Prior: Prior{A: 1e-2, B: 1e-2}}
		}},
		cfg{name: "bohning-tight", width: learned, mk: func(k Kernel) *MultiClassifier {
			return &MultiClassifier{Kernel: k, Tol: 1e-11, ParamTol: 1e-6, MaxIter: 400}
		}},
		cfg{name: "bohning-prune=100", width: learned, mk: func(k Kernel) *MultiClassifier { return &MultiClassifier{Kernel: k, PruneAlpha: 100} }},
		cfg{name: "bohning-prune=1000", width: learned, mk: func(k Kernel) *MultiClassifier { return &MultiClassifier{Kernel: k, PruneAlpha: 1000} }},
		cfg{name: "bohning-500rows", width: learned, rows: 500, mk: func(k Kernel) *MultiClassifier { return &MultiClassifier{Kernel: k} }},
		cfg{name: "bohning-paper-500rows", width: learned, rows: 500, mk: func(k Kernel) *MultiClassifier {
			return &MultiClassifier{Kernel: k, Method: PaperSchedule{}}
		}},
		cfg{name: "adaptive-500rows", width: learned, rows: 500, mk: func(k Kernel) *MultiClassifier {
			return &MultiClassifier{Kernel: k, Likelihood: SoftmaxAdaptive}
		}},
	)
	for _, c := range cfgs {
		b.Run(c.name+"/w="+strconv.FormatFloat(c.width, 'g', -1, 64), func(b *testing.B) {
			xtr, ltr, xte, lte := realSet(b, "digits")
			if c.rows > 0 {
				rows := spread(len(ltr), c.rows)
				l := make([]string, len(rows))
				for i, r := range rows {
					l[i] = ltr[r]
				}
				xtr, ltr = selectRows(xtr, rows), l
			}
			k := Gaussian{Width: c.width * realWidth(xtr)}
			var m *MultiClassifier
			c0, _ := processCPU()
			for b.Loop() {
				m = c.mk(k)
				if err := m.Fit(xtr, ltr); err != nil {
					b.Fatal(err)
				}
			}
			c1, _ := processCPU()
			reportMulti(b, m, xte, lte)
			b.ReportMetric(float64(m.Iterations()), "iters")
			b.ReportMetric((c1 - c0).Seconds(), "cpu-s")
		})
	}
	for _, c := range []float64{0.5, learned, 1} {
		b.Run("one-vs-rest/w="+strconv.FormatFloat(c, 'g', -1, 64), func(b *testing.B) {
			xtr, ltr, xte, lte := realSet(b, "digits")
			c0, _ := processCPU()
			var e, ll float64
			var rv int
			for b.Loop() {
				e, ll, rv = ovr(b, Gaussian{Width: c * realWidth(xtr)}, xtr, ltr, xte, lte)
			}
			c1, _ := processCPU()
			b.ReportMetric(100*e, "test-err-%")
			b.ReportMetric(ll, "log-loss")
			b.ReportMetric(float64(rv), "RVs")
			b.ReportMetric((c1 - c0).Seconds(), "cpu-s")
		})
	}
	for _, c := range []float64{0.5, learned, 1} {
		for _, alpha := range []float64{1e-3, 1e-2, 1e-1, 1} {
			b.Run("dense-map/w="+strconv.FormatFloat(c, 'g', -1, 64)+"/alpha="+strconv.FormatFloat(alpha, 'g', -1, 64), func(b *testing.B) {
				xtr, ltr, xte, lte := realSet(b, "digits")
				var e, ll float64
				for b.Loop() {
					e, ll = denseSoftmaxMAP(b, Gaussian{Width: c * realWidth(xtr)}, alpha, xtr, ltr, xte, lte)
				}
				b.ReportMetric(100*e, "test-err-%")
				b.ReportMetric(ll, "log-loss")
			})
		}
	}
}

// denseSoftmaxMAP fits a kernel softmax regression with every function
// (a bias and a kernel column per training row) in every class and one
// shared precision alpha at its MAP, −Σₙ ln softmax(Wᵀφₙ)_tₙ + ½α‖W‖²
// (the bias unpenalised), by L-BFGS, and returns the test error and log
// loss of the plug-in probabilities.
func denseSoftmaxMAP(b testing.TB, k Kernel, alpha float64, xtr *mat.Dense, ltr []string, xte *mat.Dense, lte []string) (float64, float64) {
	classes, y, err := classIndex(ltr)
	if err != nil {
		b.Fatal(err)
	}
	nk := len(classes)
	design := func(x *mat.Dense) *mat.Dense {
		n, _ := x.Dims()
		nt, _ := xtr.Dims()
		phi := mat.NewDense(n, nt+1, nil)
		for i := range n {
			phi.Set(i, 0, 1)
			for j := range nt {
				phi.Set(i, j+1, k.Eval(x.RawRowView(i), xtr.RawRowView(j)))
			}
		}
		return phi
	}
	phi := design(xtr)
	n, p := phi.Dims()
	act := mat.NewDense(n, nk, nil)
	gr := mat.NewDense(n, nk, nil)
	prob := make([]float64, nk)
	fg := func(grad, w []float64) float64 {
		wm := mat.NewDense(p, nk, w)
		act.Mul(phi, wm)
		var f float64
		for i := range n {
			l := multiclass.SoftmaxTo(prob, act.RawRowView(i))
			f -= act.At(i, y[i]) - l
			for c := range nk {
				g := prob[c]
				if c == y[i] {
					g--
				}
				gr.Set(i, c, g)
			}
		}
		for j := nk; j < len(w); j++ {
			f += 0.5 * alpha * w[j] * w[j]
		}
		if grad != nil {
			gm := mat.NewDense(p, nk, grad)
			gm.Mul(phi.T(), gr)
			for j := nk; j < len(w); j++ {
				grad[j] += alpha * w[j]
			}
		}
		return f
	}
	prob0 := optimize.Problem{Func: func(w []float64) float64 { return fg(nil, w) }, Grad: func(g, w []float64) { fg(g, w) }}
	res, err := optimize.Minimize(prob0, make([]float64, p*nk), &optimize.Settings{MajorIterations: 3000, GradientThreshold: 1e-6, Runtime: 10 * time.Minute}, &optimize.LBFGS{})
	if err != nil && res == nil {
		b.Fatal(err)
	}
	te := design(xte)
	nte, _ := te.Dims()
	out := mat.NewDense(nte, nk, nil)
	out.Mul(te, mat.NewDense(p, nk, res.X))
	var errs int
	var ll float64
	for i := range nte {
		multiclass.SoftmaxTo(prob, out.RawRowView(i))
		best := 0
		for c := range nk {
			if prob[c] > prob[best] {
				best = c
			}
		}
		if classes[best] != lte[i] {
			errs++
		}
		for c, name := range classes {
			if name == lte[i] {
				ll -= math.Log(math.Max(prob[c], 1e-15))
			}
		}
	}
	return float64(errs) / float64(nte), ll / float64(nte)
}

// BenchmarkMultiDigitsOutliers fits the default softmax model to digits at
// the learned width and counts its test errors among the rows with a
// standardised input beyond 6 in magnitude (a pixel almost constant in
// the training rows, which makes every kernel value at the row tiny)
// and among the others.
func BenchmarkMultiDigitsOutliers(b *testing.B) {
	xtr, ltr, xte, lte := realSet(b, "digits")
	var m *MultiClassifier
	for b.Loop() {
		m = &MultiClassifier{Kernel: Gaussian{Width: 0.61 * realWidth(xtr)}}
		if err := m.Fit(xtr, ltr); err != nil {
			b.Fatal(err)
		}
	}
	pred, err := m.Predict(xte)
	if err != nil {
		b.Fatal(err)
	}
	var out, outErr, inErr int
	for i, l := range lte {
		far := floats.Max(xte.RawRowView(i)) > 6 || -floats.Min(xte.RawRowView(i)) > 6
		wrong := pred[i] != l
		switch {
		case far:
			out++
			if wrong {
				outErr++
			}
		case wrong:
			inErr++
		}
	}
	b.ReportMetric(float64(out), "far-rows")
	b.ReportMetric(float64(outErr), "far-errors")
	b.ReportMetric(float64(inErr), "other-errors")
}
