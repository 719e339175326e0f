package vrvm

import (
	"errors"
	"testing"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestCentres: a subset of centres gives a fit whose relevance vectors are
// training rows among the subset, the same subset on a refit, the default
// subset only above defaultMaxCentres, and errors for a negative Centres
// and for LearnKernel with a subset.
func TestCentres(t *testing.T) {
	d, err := datasets.Friedman1(400, 10, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	sub := centreRows(400, 50, true)
	if len(sub) != 50 {
		t.Fatalf("%d centres, want 50", len(sub))
	}
	in := map[int]bool{}
	for _, r := range sub {
		in[r] = true
	}
	for _, m := range []Estimator{&Regressor{Kernel: Gaussian{Width: 1}, Centres: 50}, &Classifier{Kernel: Gaussian{Width: 1}, Centres: 50}} {
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
		if activeKey(first) != activeKey(m.ActiveSet()) {
			t.Errorf("%T: refit changed the active set %v → %v", m, first, m.ActiveSet())
		}
	}
	if centreRows(defaultMaxCentres, 0, true) != nil || centreRows(400, 400, true) != nil || centreRows(defaultMaxCentres+1, 0, false) != nil {
		t.Error("a subset where every input should be a centre")
	}
	if got := len(centreRows(defaultMaxCentres+1, 0, true)); got != defaultMaxCentres {
		t.Errorf("default subset of %d centres, want %d", got, defaultMaxCentres)
	}
	var oe *OptionError
	if err := (&Regressor{Centres: -1}).Fit(d.X, d.T); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres −1: %v", err)
	}
	if err := (&Regressor{Centres: 50, LearnKernel: true}).Fit(d.X, d.T); !errors.As(err, &oe) || oe.Field != "Centres" {
		t.Errorf("Centres 50 with LearnKernel: %v", err)
	}
}
