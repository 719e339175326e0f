package vrvm

import (
	"testing"
	"time"
)

func TestZZProbe(t *testing.T) {
	xtr, ltr, xte, lte := realSet(t, "iris")
	st := time.Now()
	c := &MultiClassifier{Kernel: Gaussian{Width: realWidth(xtr)}, Monitor: func(p Progress) bool {
		if p.Iteration%100 == 0 || p.Iteration < 30 {
			t.Logf("it %d bound %.6f change %.3g active %d", p.Iteration, p.Bound, p.Change, p.Active)
		}
		return false
	}}
	if err := c.Fit(xtr, ltr); err != nil {
		t.Fatal(err)
	}
	e, _ := c.ErrorRate(xte, lte)
	ll, _ := c.LogLoss(xte, lte)
	t.Logf("%v %d iters err %.4f ll %.4f rv %d %v", c.Status(), c.Iterations(), e, ll, len(c.RelevanceVectors()), time.Since(st))
}
