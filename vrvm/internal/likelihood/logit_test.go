package likelihood

import "testing"

// TestExplainsLittle checks the gate of (S13) on activations given by
// hand: a fit explains little when its training errors are at least
// explainsLittleFrac times the smaller class's rows.
func TestExplainsLittle(t *testing.T) {
	t.Parallel()
	lik := func(t, act []float64) *Logit {
		l := NewLogit(t, 1)
		copy(l.act, act)
		return l
	}
	labels := []float64{0, 0, 0, 0, 0, 0, 1, 1, 1, 1} // the constant errs on 4 rows
	for _, c := range []struct {
		name string
		act  []float64
		want bool
	}{
		{"every row right", []float64{-1, -1, -1, -1, -1, -1, 1, 1, 1, 1}, false},
		{"one error", []float64{-1, -1, -1, -1, -1, 1, 1, 1, 1, 1}, false},
		{"two errors, half the constant's", []float64{1, -1, -1, -1, -1, -1, -1, 1, 1, 1}, true},
		{"the constant", []float64{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, true},
	} {
		if got := explainsLittle(lik(labels, c.act)); got != c.want {
			t.Errorf("%s: explainsLittle = %v, want %v", c.name, got, c.want)
		}
	}
	if explainsLittle(lik([]float64{1, 1, 1}, []float64{-1, -1, -1})) {
		t.Error("one class: explainsLittle = true; with no errors to remove, the gate must stay shut")
	}
}
