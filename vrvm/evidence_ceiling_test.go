package vrvm

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// TestEvidenceCeiling measures the ceiling of issue 47 (docs/benchmarks.md):
// length scales learned by the dense model's evidence (E2)+(E4) with no
// guard, then the sparse model fitted at them. It runs only with
// VRVM_CEILING set (it takes minutes) and prints its figures.
func TestEvidenceCeiling(t *testing.T) {
	if os.Getenv("VRVM_CEILING") == "" {
		t.Skip("set VRVM_CEILING=1 to measure")
	}
	dir, err := datasets.Dir()
	if err != nil {
		t.Skip(err)
	}
	rows := 500
	if os.Getenv("VRVM_CEILING") == "all" {
		rows = -1
	}
	if v, err := strconv.Atoi(os.Getenv("VRVM_CEILING_ROWS")); err == nil {
		rows = v
	}
	restarts := os.Getenv("VRVM_CEILING_ONE") == ""
	var tr, te *datasets.Dataset
	tr, _ = datasets.Friedman1(1000, 10, 1, 1)
	te, _ = datasets.Friedman1(5000, 10, 0, 2)
	xd, td := readSplitFloat(t, filepath.Join(dir, "realworld", "diabetes_train.csv"))
	xdt, tdt := readSplitFloat(t, filepath.Join(dir, "realworld", "diabetes_test.csv"))
	standardise(xd, xdt)
	for _, c := range []struct {
		name  string
		x, xt *mat.Dense
		y, yt []float64
	}{{"diabetes", xd, xdt, td, tdt}, {"friedman", tr.X, te.X, tr.T, te.T}} {
		if o := os.Getenv("VRVM_CEILING_ONLY"); o != "" && o != c.name {
			continue
		}
		for _, ard := range []bool{false, true} {
			if !ard && os.Getenv("VRVM_CEILING_ARD") != "" {
				continue
			}
			c0, _ := processCPU()
			xs, ts := learnRows(c.x, c.y, rows)
			r, e, err := denseWidth(context.Background(), xs, ts, MedianDistance(xs))
			if err != nil {
				t.Fatal(err)
			}
			ef, err := learnByEvidence(context.Background(), xs, ts, ard, r, nil, KernelLearning{}, restarts)
			if err != nil {
				t.Fatal(err)
			}
			c1, _ := processCPU()
			m := &Regressor{Kernel: ef.kernel}
			if err := m.Fit(c.x, c.y); err != nil {
				t.Fatal(err)
			}
			c2, _ := processCPU()
			mu, v, _ := m.Predict(c.xt)
			var se float64
			var in int
			for i := range mu {
				d := mu[i] - c.yt[i]
				se += d * d
				if math.Abs(d) <= 2*math.Sqrt(v[i]) {
					in++
				}
			}
			fmt.Printf("%s ard=%v: W4 width %.4g E %.2f; E(E2+E4) %.2f (base %.2f); RMSE %.4f cov %.3f RVs %d; cpu evidence %.1fs (%d evaluations) fit %.1fs; %v\n",
				c.name, ard, r, e, ef.evidence, ef.base, math.Sqrt(se/float64(len(mu))), float64(in)/float64(len(mu)),
				len(m.RelevanceVectors()), (c1 - c0).Seconds(), ef.calls, (c2 - c1).Seconds(), ef.kernel)
		}
	}
}

// readSplitFloat reads a realworld regression CSV (header, target last).
func readSplitFloat(t testing.TB, path string) (*mat.Dense, []float64) {
	t.Helper()
	tb, err := datasets.ReadCSVFile(path, datasets.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cols := tb.Columns()
	d, err := tb.Dataset(cols[len(cols)-1])
	if err != nil {
		t.Fatal(err)
	}
	return d.X, d.T
}
