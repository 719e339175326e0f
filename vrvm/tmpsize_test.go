package vrvm

import (
	"bytes"
	"testing"
)

func TestTmpFileSize(t *testing.T) {
	for _, n := range []int{4000, 20000, 1000000} {
		x, y := benchSinc(n, 1)
		r := &Regressor{Kernel: Gaussian{Width: 3}}
		if n > 20000 {
			r.Centres = 200
		}
		c0, _ := processCPU()
		if err := r.Fit(x, y); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.Save(&buf); err != nil {
			t.Fatal(err)
		}
		c1, _ := processCPU()
		fp := 0
		if r.aug.floor != nil {
			fp = len(r.aug.floor.Encode().Pivots)
		}
		t.Logf("n %d: file %d bytes, floor pivots %d, fit+save cpu %.2fs", n, buf.Len(), fp, (c1 - c0).Seconds())
	}
}
