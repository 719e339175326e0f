package vrvm

import (
	"strconv"
	"testing"
)

// BenchmarkPredictAugmented predicts the mean and variance at 100,000
// points of [−10, 10] from models of sinc fitted on 1,000, 4,000, 20,000
// and 10⁶ rows (width 3; the 10⁶-row fit on 200 centres, a cheap
// fixed-width fit), plain (LatentPlain) and augmented (Latent, (A6) by
// the low-rank form (A10)–(A13)), reporting the process CPU per
// prediction of the 100,000 points (cpu-s/op) beside the time on the
// clock. The low-rank form is built before the timed loop.
func BenchmarkPredictAugmented(b *testing.B) {
	xt := sincGrid(100000)
	for _, n := range []int{1000, 4000, 20000, 1000000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			x, t := benchSinc(n, 1)
			r := &Regressor{Kernel: Gaussian{Width: 3}}
			if n > 20000 {
				r.Centres = 200
			}
			if err := r.Fit(x, t); err != nil {
				b.Fatal(err)
			}
			for _, mode := range []string{"plain", "augmented"} {
				predict := r.LatentPlain
				if mode == "augmented" {
					predict = r.Latent
				}
				b.Run(mode, func(b *testing.B) {
					if _, _, err := predict(xt); err != nil {
						b.Fatal(err)
					}
					c0, ok := processCPU()
					for b.Loop() {
						if _, _, err := predict(xt); err != nil {
							b.Fatal(err)
						}
					}
					if c1, _ := processCPU(); ok {
						b.ReportMetric((c1-c0).Seconds()/float64(b.N), "cpu-s/op")
					}
				})
			}
		})
	}
}
