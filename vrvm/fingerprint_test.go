package vrvm

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fingerprintCase is one seeded fit of TestFingerprint.
type fingerprintCase struct {
	name string
	fit  func() (fingerprinted, error)
}

// fingerprinted is what TestFingerprint records of a fitted model.
type fingerprinted interface {
	Status() Status
	Iterations() int
	BoundTrace() []float64
	Save(w io.Writer) error
}

// fingerprintFriedman draws n rows of Friedman #1 (5 relevant inputs of
// 7, noise sd 1), the inputs uniform on [0, 1].
func fingerprintFriedman(n int, seed uint64) (*mat.Dense, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, 7, nil)
	t := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rnd.Float64()
		}
		t[i] = 10*math.Sin(math.Pi*r[0]*r[1]) + 20*(r[2]-0.5)*(r[2]-0.5) + 10*r[3] + 5*r[4] + rnd.NormFloat64()
	}
	return x, t
}

// fingerprintCases returns the fits of TestFingerprint: every estimator,
// each solver and likelihood, on small seeded problems.
func fingerprintCases() []fingerprintCase {
	var cs []fingerprintCase
	add := func(name string, fit func() (fingerprinted, error)) {
		cs = append(cs, fingerprintCase{name, fit})
	}
	sx, st := benchSinc(60, 7)
	fx, ft := fingerprintFriedman(120, 5)
	rx, rt := benchRipley(80, 3)
	bx, bl := blobs(4, 60, 3, 2)
	g := Gaussian{Width: 3}
	for _, sv := range []Method{Sequential{}, PaperSchedule{}, Newton{}} {
		add("Regressor/sinc/"+sv.String(), func() (fingerprinted, error) {
			r := &Regressor{Kernel: g, Method: sv, MaxIter: 3000}
			return r, r.Fit(sx, st)
		})
		add("Classifier/ripley/"+sv.String(), func() (fingerprinted, error) {
			c := &Classifier{Kernel: Gaussian{Width: 0.5}, Method: sv, MaxIter: 3000}
			return c, c.Fit(rx, rt)
		})
	}
	add("Regressor/sinc/noprune", func() (fingerprinted, error) {
		r := &Regressor{Kernel: g, NoPrune: true, MaxIter: 200}
		return r, r.Fit(sx, st)
	})
	add("Regressor/sinc/default-width", func() (fingerprinted, error) {
		r := &Regressor{}
		return r, r.Fit(sx, st)
	})
	add("Regressor/friedman/default", func() (fingerprinted, error) {
		r := &Regressor{}
		return r, r.Fit(fx, ft)
	})
	add("Regressor/sinc/polynomial", func() (fingerprinted, error) {
		r := &Regressor{Kernel: Polynomial{Degree: 3}}
		return r, r.Fit(sx, st)
	})
	add("Classifier/ripley/default", func() (fingerprinted, error) {
		c := &Classifier{}
		return c, c.Fit(rx, rt)
	})
	add("Classifier/ripley/noprune", func() (fingerprinted, error) {
		c := &Classifier{Kernel: Gaussian{Width: 0.5}, NoPrune: true, MaxIter: 100}
		return c, c.Fit(rx, rt)
	})
	for _, lik := range []MultiLikelihood{Softmax, SoftmaxAdaptive, Probit} {
		for _, sv := range []Method{Sequential{}, PaperSchedule{}} {
			add(fmt.Sprintf("MultiClassifier/blobs/%v/%v", lik, sv), func() (fingerprinted, error) {
				c := &MultiClassifier{Kernel: Gaussian{Width: 1}, Likelihood: lik, Method: sv, MaxIter: 2000}
				return c, c.Fit(bx, bl)
			})
		}
	}
	add("MultiClassifier/blobs/default", func() (fingerprinted, error) {
		c := &MultiClassifier{}
		return c, c.Fit(bx, bl)
	})
	for _, sv := range []Method{Sequential{}, PaperSchedule{}} {
		add("RVMRegressor/sinc/"+sv.String(), func() (fingerprinted, error) {
			r := &RVMRegressor{Kernel: g, Method: sv}
			return r, r.Fit(sx, st)
		})
		add("RVMClassifier/ripley/"+sv.String(), func() (fingerprinted, error) {
			c := &RVMClassifier{Kernel: Gaussian{Width: 0.5}, Method: sv}
			return c, c.Fit(rx, rt)
		})
	}
	return append(cs, fingerprintMoreCases(sx, st, fx, ft, rx, rt, bx, bl)...)
}

// fingerprintMoreCases returns the fits of the type-II RVM, the robust
// regressor, and those that end by MaxIter or the Monitor.
func fingerprintMoreCases(sx *mat.Dense, st []float64, fx *mat.Dense, ft []float64, rx *mat.Dense, rt []float64, bx *mat.Dense, bl []string) []fingerprintCase {
	var cs []fingerprintCase
	add := func(name string, fit func() (fingerprinted, error)) {
		cs = append(cs, fingerprintCase{name, fit})
	}
	g := Gaussian{Width: 3}
	add("RVMRegressor/friedman/default", func() (fingerprinted, error) {
		r := &RVMRegressor{}
		return r, r.Fit(fx, ft)
	})
	add("RVMClassifier/ripley/default", func() (fingerprinted, error) {
		c := &RVMClassifier{}
		return c, c.Fit(rx, rt)
	})
	stop := func(k int) func(Progress) bool { return func(p Progress) bool { return p.Iteration >= k } }
	add("Regressor/sinc/limit", func() (fingerprinted, error) {
		r := &Regressor{Kernel: g, MaxIter: 20}
		return r, r.Fit(sx, st)
	})
	add("Classifier/ripley/monitor", func() (fingerprinted, error) {
		c := &Classifier{Kernel: Gaussian{Width: 0.5}, Monitor: stop(10)}
		return c, c.Fit(rx, rt)
	})
	dx, dt := benchRipley(250, 9)
	for i := range 40 { // repeated rows (seqdup.go)
		dx.SetRow(i+40, dx.RawRowView(i))
		dt[i+40] = dt[i]
	}
	add("Classifier/ripley250/duplicates", func() (fingerprinted, error) {
		c := &Classifier{}
		return c, c.Fit(dx, dt)
	})
	add("MultiClassifier/blobs/monitor", func() (fingerprinted, error) {
		c := &MultiClassifier{Kernel: Gaussian{Width: 1}, Monitor: stop(5)}
		return c, c.Fit(bx, bl)
	})
	add("RVMRegressor/sinc/limit", func() (fingerprinted, error) {
		r := &RVMRegressor{Kernel: g, MaxIter: 5}
		return r, r.Fit(sx, st)
	})
	add("RVMClassifier/ripley250/monitor", func() (fingerprinted, error) {
		c := &RVMClassifier{Kernel: Gaussian{Width: 0.3}, Monitor: stop(30)}
		return c, c.Fit(dx, dt)
	})
	add("RVMClassifier/ripley250/default", func() (fingerprinted, error) {
		c := &RVMClassifier{}
		return c, c.Fit(dx, dt)
	})
	add("RobustRegressor/sinc", func() (fingerprinted, error) {
		r := &RobustRegressor{Kernel: g}
		return r, r.Fit(sx, st)
	})
	return cs
}

// TestFingerprint writes, for every fit of fingerprintCases, its status,
// iterations, bound trace and a SHA-256 of its saved model to the file
// named by VRVM_FINGERPRINT, so that a refactoring of the solvers can be
// checked to leave every number unchanged (diff two such files). Without
// the variable it is skipped.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	path := os.Getenv("VRVM_FINGERPRINT")
	if path == "" {
		t.Skip("VRVM_FINGERPRINT not set")
	}
	var out strings.Builder
	for _, c := range fingerprintCases() {
		m, err := c.fit()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			fmt.Fprintf(&out, "%s error %v\n", c.name, err)
			continue
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Errorf("%s: Save: %v", c.name, err)
		}
		tr := m.BoundTrace()
		if len(tr) == 0 {
			t.Errorf("%s: empty bound trace", c.name)
		}
		h := sha256.New()
		for _, v := range tr {
			fmt.Fprintf(h, "%x\n", math.Float64bits(v))
		}
		last := math.NaN()
		if len(tr) > 0 {
			last = tr[len(tr)-1]
		}
		fmt.Fprintf(&out, "%s status=%v iters=%d trace=%d last=%.17g tracehash=%x model=%x\n",
			c.name, m.Status(), m.Iterations(), len(tr), last, h.Sum(nil)[:12], sha256.Sum256(buf.Bytes()))
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
