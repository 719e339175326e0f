package paper

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func TestTarget(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		g    Target
		want string
	}{
		{Target{What: "RMS", Value: 0.0365, Lo: -inf, Hi: 0.05, Format: "%.4f"}, "RMS 0.0365 ≤ 0.0500: met"},
		{Target{What: "kernels", Value: 12, Lo: -inf, Hi: 10, Format: "%.1f"}, "kernels 12.0 ≤ 10.0: MISSED"},
		{Target{What: "noise", Value: 0.1017, Lo: 0.09, Hi: 0.11, Format: "%.4f"}, "noise 0.1017 in 0.0900–0.1100: met"},
		{Target{What: "x", Value: 1, Lo: 2, Hi: inf, Format: "%g"}, "x 1 ≥ 2: MISSED"},
		{Target{What: "x", Value: math.NaN(), Lo: -inf, Hi: 1, Format: "%g"}, "x NaN ≤ 1: MISSED"},
	} {
		if got := c.g.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	runs := [][]Run{
		{{Error: 1, Kernels: 4, Noise: 0.1, Status: vrvm.Converged, Time: time.Second}, {Error: 3, Kernels: 6, Noise: 0.3, Status: vrvm.IterationLimit, Time: time.Second}},
		{{Error: 2, Kernels: 5, Noise: 0.2, Status: vrvm.Converged, Time: 2 * time.Second}, {Error: 2, Kernels: 5, Noise: 0.2, Status: vrvm.Converged, Time: time.Second}},
	}
	// Every status is counted, the last one too.
	bias := []Run{{Error: 1, Status: vrvm.Converged}, {Error: 1, Status: vrvm.InterceptOnly}, {Error: 1, Status: vrvm.IterationLimit}}
	if got, want := (&Row{Measured: true, Runs: bias}).Statuses(), "1 converged, 1 iteration limit reached, 1 converged to the bias alone (no relevance vector)"; got != want {
		t.Errorf("Statuses %q, want %q", got, want)
	}
	tb := &Table{Number: 9, Title: "test", Setup: []string{"setup line"}, ErrorName: "err", Regression: true,
		Rows: rows([3]Score{{5, 50, nan}, {4, 40, 0.4}, {3, 30, 0.3}}, runs), errFormat: "%.2f", noiseFormat: "%.3f",
		Targets: []Target{{What: "VRVM err", Value: 2, Lo: math.Inf(-1), Hi: 1, Format: "%.1f"}}}
	tb.Notes = append(tb.Notes, statusNote(tb))
	got := tb.Markdown()
	for _, want := range []string{
		"### Table 9: test\n\n- setup line\n",
		"| SVM | – | 5.00 | – | 50.0 | – | – | quoted from the paper | – |",
		"| RVM | 2.00 | 4.00 | 5.0 | 40.0 | 0.200 | 0.400 | 1 converged, 1 iteration limit reached | 2.0 s |",
		"| VRVM | 2.00 | 3.00 | 5.0 | 30.0 | 0.200 | 0.300 | 2 converged | 3.0 s |",
		"- VRVM err 2.0 ≤ 1.0: MISSED",
		"1 of the 2 RVM fits.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, got)
		}
	}
	if m := tb.Missed(); len(m) != 1 {
		t.Errorf("Missed: %v", m)
	}
}

func TestScaler(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 5, 2, 5, 3, 5, 4, 5})
	s := newScaler(x)
	y := s.apply(x)
	m, sd := newScaler(y).mean, newScaler(y).sd
	if math.Abs(m[0]) > 1e-15 || math.Abs(sd[0]-1) > 1e-15 || m[1] != 0 || y.At(0, 1) != 0 {
		t.Errorf("standardised: means %v, sds %v", m, sd)
	}
}

func TestTally(t *testing.T) {
	if got := tally([]float64{3, 2, 3, 4}, []float64{1, 2, 3, 4}); got != "2 (×1), 3 (×2), 4 (×1)" {
		t.Errorf("tally %q", got)
	}
}

// TestTable1 runs Table 1 with a low iteration limit: the plumbing, not
// the numbers.
func TestTable1(t *testing.T) {
	useData(t)
	var lines atomic.Int64
	tb, err := Table1(context.Background(), Options{MaxIter: 30, Progress: func(string) { lines.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if lines.Load() != 75 || len(tb.Rows) != 4 || len(tb.Row(VRVM).Runs) != 25 || len(tb.Row(VRVMSequential).Runs) != 25 || len(tb.Targets) != 3 {
		t.Fatalf("%d progress lines, %d rows", lines.Load(), len(tb.Rows))
	}
	for _, r := range tb.Rows[1:] {
		if !(r.Ours.Error > 0 && r.Ours.Error < 1 && r.Ours.Noise > 0) || r.Statuses() == "" {
			t.Errorf("%s: %+v, %s", r.Model, r.Ours, r.Statuses())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Table3(ctx, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Table3: %v", err)
	}
}

// useData points VRVM_DATA at the project's data files or skips the test.
func useData(t *testing.T) {
	t.Helper()
	for _, d := range []string{os.Getenv(datasets.EnvDir), filepath.Join("..", "..", "..", "shared", "data")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "sinc_N100_25sets.csv")); err == nil {
			abs, err := filepath.Abs(d)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(datasets.EnvDir, abs)
			return
		}
	}
	t.Skip("no data directory; set VRVM_DATA to shared/data")
}
