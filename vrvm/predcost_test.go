package vrvm

import (
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/augment"
)

// TestPredictCostLargeFit measures (issue 49) the CPU time of augmented
// predictions at 5,000 rows after a default Regressor's fit of
// smoothProblem(N, 1), N from VRVM_PREDCOST_ROWS (skipped when unset):
// the exact form, the default (above 2,048 rows, where (A12) is not met
// within the cap, the floor alone of (A19)), the low-rank form forced at
// 256 and 512 pivots, their sd and mean differences from the exact form,
// the plain prediction, and at how many rows the GP floor (A18) binds
// over the exact augmented variance.
func TestPredictCostLargeFit(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VRVM_PREDCOST_ROWS"))
	if n <= 0 {
		t.Skip("VRVM_PREDCOST_ROWS unset")
	}
	x, y := smoothProblem(n, 1)
	c0, _ := processCPU()
	r := &Regressor{}
	if err := r.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	c1, _ := processCPU()
	t.Logf("N = %d: %d active, fit %.2f s CPU", n, len(r.ActiveSet()), (c1 - c0).Seconds())
	xt, _ := smoothProblem(5000, 2)
	var m0, v0 []float64
	for i, s := range []augment.Settings{{Exact: true}, {}, {MaxRank: 256, Force: true}, {MaxRank: 512, Force: true}} {
		c := cloneUnprepared(r, s)
		c1, _ := processCPU()
		m, v, err := c.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		c2, _ := processCPU()
		if _, _, err := c.Predict(xt); err != nil {
			t.Fatal(err)
		}
		c3, _ := processCPU()
		if i == 0 {
			m0, v0 = m, v
			floorBinding(t, c, xt)
		}
		sd, mr := sdError(m, v, m0, v0)
		t.Logf("%+v: rank %d (floor alone %v), first Predict %.2f s, second %.2f s CPU; sd within %.3g, mean within %.3g sd of the exact form",
			s, c.aug.rankOf(), c.aug.floorOnly, (c2 - c1).Seconds(), (c3 - c2).Seconds(), sd, mr)
	}
}

// cloneUnprepared returns a Regressor with r's fit and a fresh copy of
// its augmentation, not yet prepared, with the low-rank settings s.
func cloneUnprepared(r *Regressor, s augment.Settings) *Regressor {
	a0 := r.aug
	c := &Regressor{regressionFit: r.regressionFit}
	c.aug = &augmentation{x: a0.x, beta: a0.beta, data: append([]float64(nil), a0.data...), alphaStar: a0.alphaStar, tau: a0.tau, lowRank: s}
	return c
}

// floorBinding logs, for the prepared Regressor c, the CPU time of its
// augmented latent prediction at xt without the floor and of the plain
// one, and at how many rows the floor (A18) raises the variance.
func floorBinding(t *testing.T, c *Regressor, xt mat.Matrix) {
	fl := c.aug.floor
	c.aug.floor = nil
	c4, _ := processCPU()
	_, vu, err := c.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	c5, _ := processCPU()
	_, vp, err := c.LatentPlain(xt)
	if err != nil {
		t.Fatal(err)
	}
	c6, _ := processCPU()
	c.aug.floor = fl
	_, vf, err := c.Latent(xt)
	if err != nil {
		t.Fatal(err)
	}
	bind, ratio := 0, 0.0
	for j := range vu {
		if vf[j] > vu[j] {
			bind++
			ratio = max(ratio, vf[j]/vu[j])
		}
	}
	t.Logf("augmented without the floor %.2f s, plain %.2f s CPU; the floor binds at %d of %d rows (largest ratio %.3g); mean latent variance plain %.4g, augmented %.4g, floored %.4g",
		(c5 - c4).Seconds(), (c6 - c5).Seconds(), bind, len(vu), ratio, meanOf(vp), meanOf(vu), meanOf(vf))
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
