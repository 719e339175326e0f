package vrvm

import "testing"

// TestConstantClassifierRestart checks (S13): on two balanced classes in
// many inputs, a few of which carry them, the binary classifier's first
// fit kept at most one function (training error 50%, chance), or two
// functions without the bias that explain little (training error above
// half the constant classifier's); after such a fit the bias start (S8)
// keeps many, with a full-model bound higher by far more than the
// restart's margin and a training error below half the constant's.
func TestConstantClassifierRestart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		seed        uint64
		d, inf      int
		sep, width  float64 // width in units of the MedianDistance
		maxFirst    int     // the first fit's relevance vectors, at most
		minFirstErr float64 // the first fit's training error, at least
	}{
		{"one function", 1, 200, 8, 0.5, 1, 1, 0.4},
		{"two functions", 3, 50, 5, 0.5, 1.4, 2, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, labels := heldProblem(c.seed, 300, c.d, 2, c.inf, c.sep)
			y := make([]float64, len(labels))
			for i, l := range labels {
				if l == "c1" {
					y[i] = 1
				}
			}
			width := c.width * MedianDistance(x)
			fit := func(on bool) (*Classifier, float64) {
				f := &Classifier{Kernel: Gaussian{Width: width}, NoAugment: true, ctl: controls{noBiasStart: !on}}
				if err := f.Fit(x, y); err != nil {
					t.Fatal(err)
				}
				p, err := f.ProbPlugin(x)
				if err != nil {
					t.Fatal(err)
				}
				var e float64
				for i, v := range p {
					if (v > 0.5) != (y[i] == 1) {
						e++
					}
				}
				return f, e / float64(len(p))
			}
			off, eOff := fit(false)
			on, eOn := fit(true)
			t.Logf("width %.3g: without (S13) %d functions, full bound %.2f, training error %.3f; with %d, %.2f, %.3f",
				width, len(off.ActiveSet()), off.FullModelBound(), eOff, len(on.ActiveSet()), on.FullModelBound(), eOn)
			if len(off.RelevanceVectors()) > c.maxFirst || eOff < c.minFirstErr {
				t.Fatalf("without (S13) %d relevance vectors and training error %.3f: the problem no longer shows the nearly constant fit",
					len(off.RelevanceVectors()), eOff)
			}
			if len(on.RelevanceVectors()) < 5 || eOn > 0.25 {
				t.Errorf("with (S13): %d relevance vectors, training error %.3f", len(on.RelevanceVectors()), eOn)
			}
			if !(on.FullModelBound() > off.FullModelBound()+20) {
				t.Errorf("full bound %.2f with (S13), %.2f without", on.FullModelBound(), off.FullModelBound())
			}
		})
	}
}
