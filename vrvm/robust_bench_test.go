package vrvm

import (
	"slices"
	"testing"
)

// BenchmarkRobustSinc is the sweep behind TestRobustSinc, over seeds
// 1–20: the RMS error against sin(x)/x of RobustRegressor divided by
// Regressor's (both at their defaults) on the same 100 rows, with 10 %
// of the targets replaced by outliers and clean, reported as the median
// and the largest ratio of each.
//
//	go test -run '^$' -bench RobustSinc -benchtime 1x ./vrvm/
func BenchmarkRobustSinc(b *testing.B) {
	xt := sincGrid(1000)
	for range b.N {
		ratios := map[float64][]float64{}
		for seed := uint64(1); seed <= 20; seed++ {
			for _, frac := range []float64{0.1, 0} {
				x, y := robustSinc(100, frac, seed)
				g, r := &Regressor{}, &RobustRegressor{}
				if err := g.Fit(x, y); err != nil {
					b.Fatal(err)
				}
				if err := r.Fit(x, y); err != nil {
					b.Fatal(err)
				}
				mg, _, _ := g.Predict(xt)
				mr, _, _ := r.Predict(xt)
				ratio := sincRMS(mr, xt) / sincRMS(mg, xt)
				ratios[frac] = append(ratios[frac], ratio)
				b.Logf("seed %d, outliers %.0f%%: RMS %.4f / %.4f = %.3f, ν %.3g, %s after %d iterations",
					seed, 100*frac, sincRMS(mr, xt), sincRMS(mg, xt), ratio, r.DegreesOfFreedom(), r.Status(), r.Iterations())
			}
		}
		for frac, name := range map[float64]string{0.1: "outliers", 0: "clean"} {
			v := slices.Clone(ratios[frac])
			slices.Sort(v)
			b.ReportMetric(v[len(v)/2], name+"-median-ratio")
			b.ReportMetric(v[len(v)-1], name+"-max-ratio")
		}
	}
}
