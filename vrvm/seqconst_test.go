package vrvm

import "testing"

// TestConstantClassifierRestart checks (S13): on two balanced classes in
// 200 inputs, 8 of which carry them, the binary classifier's default fit
// at the median distance kept at most one function (training error near
// 50%, chance); after such a fit the bias start (S8) keeps many, with a
// full-model bound higher by far more than the restart's margin.
func TestConstantClassifierRestart(t *testing.T) {
	x, labels := heldProblem(1, 300, 200, 2, 8, 0.5)
	y := make([]float64, len(labels))
	for i, l := range labels {
		if l == "c1" {
			y[i] = 1
		}
	}
	width := MedianDistance(x)
	fit := func(on bool) (*Classifier, float64) {
		defer func(v bool) { seqBiasStart = v }(seqBiasStart)
		seqBiasStart = on
		c := &Classifier{Kernel: Gaussian{Width: width}}
		if err := c.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		p, err := c.ProbPlugin(x)
		if err != nil {
			t.Fatal(err)
		}
		var e float64
		for i, v := range p {
			if (v > 0.5) != (y[i] == 1) {
				e++
			}
		}
		return c, e / float64(len(p))
	}
	off, eOff := fit(false)
	on, eOn := fit(true)
	t.Logf("width %.3g: without (S13) %d functions, full bound %.2f, training error %.3f; with %d, %.2f, %.3f",
		width, len(off.ActiveSet()), off.FullModelBound(), eOff, len(on.ActiveSet()), on.FullModelBound(), eOn)
	if len(off.RelevanceVectors()) > 1 || eOff < 0.4 {
		t.Fatalf("without (S13) %d functions and training error %.3f: the problem no longer shows the constant fit", len(off.ActiveSet()), eOff)
	}
	if len(on.RelevanceVectors()) < 5 || eOn > 0.1 {
		t.Errorf("with (S13): %d relevance vectors, training error %.3f", len(on.RelevanceVectors()), eOn)
	}
	if !(on.FullModelBound() > off.FullModelBound()+20) {
		t.Errorf("full bound %.2f with (S13), %.2f without", on.FullModelBound(), off.FullModelBound())
	}
}
