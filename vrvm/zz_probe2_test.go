package vrvm

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestZZDigits(t *testing.T) {
	name := os.Getenv("ZZSET")
	xtr, ltr, xte, lte := realSet(t, name)
	st := time.Now()
	mi, _ := strconv.Atoi(os.Getenv("ZZITER"))
	var c *MultiClassifier
	wm, _ := strconv.ParseFloat(os.Getenv("ZZW"), 64)
	pa, _ := strconv.ParseFloat(os.Getenv("ZZPA"), 64)
	c = &MultiClassifier{Kernel: Gaussian{Width: wm * realWidth(xtr)}, MaxIter: mi, PruneAlpha: pa, Monitor: func(p Progress) bool {
		if p.Iteration%25 == 0 {
			t.Logf("it %d bound %.6f change %.3g active %d  %v", p.Iteration, p.Bound, p.Change, p.Active, time.Since(st))
		}
		return false
	}}
	if err := c.Fit(xtr, ltr); err != nil {
		t.Fatal(err)
	}
	e, _ := c.ErrorRate(xte, lte)
	ll, _ := c.LogLoss(xte, lte)
	t.Logf("w %v pa %v bound %.3f %v %d iters err %.4f ll %.4f rv %d %v", wm, pa, c.LowerBound(), c.Status(), c.Iterations(), e, ll, len(c.RelevanceVectors()), time.Since(st))
}
