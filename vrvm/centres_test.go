package vrvm

import (
	"bytes"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// TestCentres: a subset of centres gives a fit (of each binary estimator,
// the variational and the type-II ones) whose relevance vectors are
// training rows among the subset, the same subset on a refit, the default
// subset only above design.DefaultMaxCentres, and errors for a negative Centres
// and for LearnKernel with a subset.
func TestCentres(t *testing.T) {
	t.Parallel()
	d, err := datasets.Friedman1(400, 10, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	sub := design.CentreRows(400, 50, true)
	if len(sub) != 50 {
		t.Fatalf("%d centres, want 50", len(sub))
	}
	in := map[int]bool{}
	for _, r := range sub {
		in[r] = true
	}
	for _, m := range []Estimator{&Regressor{Kernel: Gaussian{Width: 1}, Centres: 50}, &Classifier{Kernel: Gaussian{Width: 1}, Centres: 50},
		&RVMRegressor{Kernel: Gaussian{Width: 1}, Centres: 50}, &RVMClassifier{Kernel: Gaussian{Width: 1}, Centres: 50}} {
		tt := d.T
		if m.Task() == Classification {
			tt = make([]float64, len(d.T))
			for i, v := range d.T {
				if v > 14 {
					tt[i] = 1
				}
			}
		}
		if err := m.FitContext(t.Context(), d.X, tt); err != nil {
			t.Fatal(err)
		}
		if len(m.RelevanceVectors()) == 0 {
			t.Errorf("%T: no relevance vector", m)
		}
		for _, r := range m.ActiveSet() {
			if !in[r] {
				t.Errorf("%T: active row %d is not a centre", m, r)
			}
		}
		first := m.ActiveSet()
		if err := m.FitContext(t.Context(), d.X, tt); err != nil {
			t.Fatal(err)
		}
		if sequential.ActiveKey(first) != sequential.ActiveKey(m.ActiveSet()) {
			t.Errorf("%T: refit changed the active set %v → %v", m, first, m.ActiveSet())
		}
	}
	if design.CentreRows(design.DefaultMaxCentres, 0, true) != nil || design.CentreRows(400, 400, true) != nil || design.CentreRows(design.DefaultMaxCentres+1, 0, false) != nil {
		t.Error("a subset where every input should be a centre")
	}
	if got := len(design.CentreRows(design.DefaultMaxCentres+1, 0, true)); got != design.DefaultMaxCentres {
		t.Errorf("default subset of %d centres, want %d", got, design.DefaultMaxCentres)
	}
	var oe *OptionError
	if err := (&Regressor{Centres: -1}).Fit(d.X, d.T); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres −1: %v", err)
	}
	// learnByBound: learning by the bound (K1)–(K8) needs every row as a
	// centre; a Regressor's LearnKernel learns by the dense model's
	// evidence (E2)–(E6) since issue 47, which fits the subset.
	if err := (&Regressor{Centres: 50, LearnKernel: true, ctl: controls{learnByBound: true}}).Fit(d.X, d.T); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres 50 with LearnKernel: %v", err)
	}
	if err := (&RVMClassifier{Centres: -1}).Fit(d.X, make([]float64, len(d.T))); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("RVMClassifier Centres −1: %v", err)
	}
}

// TestMultiCentres: MultiClassifier's Centres as Classifier's: relevance
// vectors among the subset for the softmax and probit models, the same
// subset on a refit, predictions of a saved and loaded model equal to the
// fitted one's, a fit on every row when Centres is at least the number of
// rows, and errors for a negative Centres and for learning the kernel on
// every row with a subset.
func TestMultiCentres(t *testing.T) {
	t.Parallel()
	x, labels := blobs(3, 240, 3, 2.5)
	sub := design.CentreRows(240, 40, true)
	in := map[int]bool{}
	for _, r := range sub {
		in[r] = true
	}
	for _, lik := range []MultiLikelihood{Softmax, Probit} {
		c := &MultiClassifier{Kernel: Gaussian{Width: 1}, Centres: 40, Likelihood: lik}
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		if len(c.RelevanceVectors()) == 0 {
			t.Errorf("likelihood %d: no relevance vector", lik)
		}
		for _, r := range c.RelevanceVectors() {
			if !in[r] {
				t.Errorf("likelihood %d: relevance vector %d is not a centre", lik, r)
			}
		}
		if e, err := c.ErrorRate(x, labels); err != nil || e > 0.2 {
			t.Errorf("likelihood %d: training error %v, %v", lik, e, err)
		}
		first := sequential.ActiveKey(c.RelevanceVectors())
		p, err := c.Prob(x)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := c.Save(&buf); err != nil {
			t.Fatal(err)
		}
		l, err := LoadMultiClassifier(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if q, err := l.Prob(x); err != nil || !mat.Equal(p, q) {
			t.Errorf("likelihood %d: loaded model's probabilities differ (%v)", lik, err)
		}
		if err := c.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		if got := sequential.ActiveKey(c.RelevanceVectors()); got != first {
			t.Errorf("likelihood %d: refit changed the relevance vectors %s → %s", lik, first, got)
		}
	}
	all := &MultiClassifier{Kernel: Gaussian{Width: 1}}
	same := &MultiClassifier{Kernel: Gaussian{Width: 1}, Centres: 240}
	if err := all.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if err := same.Fit(x, labels); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(all.Mean(), same.Mean()) {
		t.Error("Centres equal to the number of rows changed the fit")
	}
	var oe *OptionError
	if err := (&MultiClassifier{Centres: -1}).Fit(x, labels); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres −1: %v", err)
	}
	if err := (&MultiClassifier{Centres: 40, LearnKernel: true, Kernel: Gaussian{}}).Fit(x, labels); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres 40 with LearnKernel on every row: %v", err)
	}
}
