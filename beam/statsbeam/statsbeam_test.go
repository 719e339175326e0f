package statsbeam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

func runPrism(ctx context.Context, p *beam.Pipeline) error {
	_, err := prism.Execute(ctx, p)
	return err
}

// countingPrism runs pipelines on Prism, adding the calls of
// StatsFn.MergeAccumulators (the MergesCounter metric) to *merges.
func countingPrism(merges *int64) Runner {
	return func(ctx context.Context, p *beam.Pipeline) error {
		r, err := prism.Execute(ctx, p)
		if err != nil {
			return err
		}
		for _, c := range r.Metrics().AllMetrics().Counters() {
			if c.Key.Namespace == "statsbeam" && c.Key.Name == MergesCounter {
				*merges += c.Result()
			}
		}
		return nil
	}
}

// shards writes k CSV files of n rows each (inputs x1, x2; target y, or
// labels 0/1) and returns their glob and the rows in memory.
func shards(t *testing.T, k, n int, cls bool) (glob string, x *mat.Dense, y []float64) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(46, 1))
	x = mat.NewDense(k*n, 2, nil)
	y = make([]float64, k*n)
	for s := range k {
		var b strings.Builder
		b.WriteString("x1,x2,y\n")
		for i := range n {
			r := s*n + i
			x1, x2 := 6*rng.Float64()-3, 6*rng.Float64()-3
			f := math.Sin(x1) * math.Cos(x2)
			v := f + 0.1*rng.NormFloat64()
			if cls {
				v = 0
				if rng.Float64() < 1/(1+math.Exp(-3*f)) {
					v = 1
				}
			}
			fmt.Fprintf(&b, "%.10g,%.10g,%.10g\n", x1, x2, v)
			// The values as written.
			fmt.Sscan(fmt.Sprintf("%.10g %.10g %.10g", x1, x2, v), &x1, &x2, &v)
			x.Set(r, 0, x1)
			x.Set(r, 1, x2)
			y[r] = v
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "*.csv"), x, y
}

// inMemory returns the basis of the first pass's output in work, and
// the rows standardised by it.
func inMemory(t *testing.T, work string, x *mat.Dense, y []float64, cls bool) (Basis, *mat.Dense, []float64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(work, "first.bin"))
	if err != nil {
		t.Fatal(err)
	}
	fa, err := DecodeFirst(data)
	if err != nil {
		t.Fatal(err)
	}
	n, d := x.Dims()
	b, _, _ := NewBasis(fa, d, cls)
	// The first pass's moments against the rows'.
	for j := range d + 1 {
		var m, v float64
		for i := range n {
			if j < d {
				m += x.At(i, j)
			} else {
				m += y[i]
			}
		}
		m /= float64(n)
		for i := range n {
			e := y[i] - m
			if j < d {
				e = x.At(i, j) - m
			}
			v += e * e
		}
		if math.Abs(fa.Mean[j]-m) > 1e-10*math.Max(1, math.Abs(m)) || math.Abs(fa.M2[j]-v) > 1e-10*v {
			t.Errorf("column %d: mean %v, M2 %v; rows' %v, %v", j, fa.Mean[j], fa.M2[j], m, v)
		}
	}
	if fa.N != int64(n) || len(fa.Rows) != len(b.Centres)/d*(d+1) {
		t.Errorf("first pass: %d rows, sample of %d", fa.N, len(fa.Rows)/(d+1))
	}
	xs := mat.NewDense(n, d, nil)
	ts := make([]float64, n)
	for i := range n {
		for j := range d {
			xs.Set(i, j, (x.At(i, j)-b.Mean[j])/b.SD[j])
		}
		ts[i] = (y[i] - b.TMean) / b.TSD
	}
	return b, xs, ts
}

// TestRegressionPrism: the Beam pipelines on Prism, over four shards in
// blocks of 64 rows, give the statistics of the rows in memory (one
// block) to 1e-10 relative and the same fit to 1e-8 in the bound.
func TestRegressionPrism(t *testing.T) {
	glob, x, y := shards(t, 4, 150, false)
	work := t.TempDir()
	var merges int64
	m, meta, err := Fit(context.Background(), Config{Input: glob, Target: "y", Centres: 40, Seed: 3, Width: 1, Block: 64, Work: work}, countingPrism(&merges))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MergeAccumulators called %d times", merges)
	b, xs, ts := inMemory(t, work, x, y, false)
	b.Width = 1
	lib := b.Library()
	phi, err := lib.Design(xs)
	if err != nil {
		t.Fatal(err)
	}
	want := vrvm.NewStats(lib.Dim())
	if err := want.AddRows(phi, ts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(work, "stats.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var got vrvm.Stats
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if got.Rows() != 600 {
		t.Fatalf("%d rows", got.Rows())
	}
	r := &vrvm.Regressor{}
	if err := r.FitStats(lib, want); err != nil {
		t.Fatal(err)
	}
	d := math.Abs(m.LowerBound()-r.LowerBound()) / math.Abs(r.LowerBound())
	t.Logf("Beam: %v, bound %.12g; in memory %.12g (relative %.2g); meta %+v", m.Status(), m.LowerBound(), r.LowerBound(), d, meta.Inputs)
	if !(d <= 1e-8) {
		t.Errorf("bound %.12g, in memory %.12g", m.LowerBound(), r.LowerBound())
	}
	// The statistics themselves: a fit is a function of them, but compare
	// the encoded sums too.
	wb, _ := want.MarshalBinary()
	if len(wb) != len(data) {
		t.Fatalf("encodings of %d and %d bytes", len(data), len(wb))
	}
	var wg vrvm.Stats
	wg.UnmarshalBinary(wb)
	checkStats(t, &got, &wg)
}

// checkStats compares two statistics' encodings value by value to 1e-10
// relative to the largest.
func checkStats(t *testing.T, a, b *vrvm.Stats) {
	t.Helper()
	ea, _ := a.MarshalBinary()
	eb, _ := b.MarshalBinary()
	fa, fb := floats(ea[24:len(ea)-4]), floats(eb[24:len(eb)-4])
	var scale float64
	for _, v := range fb {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range fa {
		if math.Abs(fa[i]-fb[i]) > 1e-10*scale {
			t.Fatalf("value %d: %.17g, in memory %.17g", i, fa[i], fb[i])
		}
	}
}

func floats(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		var u uint64
		for k := 7; k >= 0; k-- {
			u = u<<8 | uint64(b[8*i+k])
		}
		v[i] = math.Float64frombits(u)
	}
	return v
}

// TestClassificationPrism: one pipeline per pass on Prism gives the
// predictions of FitPasses on the rows in memory, after the same number
// of passes, to 1e-6.
func TestClassificationPrism(t *testing.T) {
	glob, x, y := shards(t, 3, 150, true)
	work := t.TempDir()
	const passes = 4
	m, _, err := Fit(context.Background(), Config{Input: glob, Target: "y", Classify: true, Centres: 30, Seed: 5, Width: 1, MaxPasses: passes, Block: 50, Work: work}, runPrism)
	if err != nil {
		t.Fatal(err)
	}
	b, xs, _ := inMemory(t, work, x, y, true)
	b.Width = 1
	lib := b.Library()
	c := &vrvm.Classifier{}
	err = c.FitPasses(context.Background(), lib, vrvm.PassOptions{MaxPasses: passes}, func(_ context.Context, s *vrvm.ClassStats) error {
		phi, err := lib.Design(xs)
		if err != nil {
			return err
		}
		return s.AddRows(phi, y)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Beam: %v after %d passes; in memory %v after %d", m.Status(), m.Iterations(), c.Status(), c.Iterations())
	if m.Iterations() != c.Iterations() {
		t.Fatalf("%d passes, in memory %d", m.Iterations(), c.Iterations())
	}
	got, _, err := m.Latent(xs)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := c.Latent(xs)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("latent mean %d: %.12g, in memory %.12g", i, got[i], want[i])
		}
	}
}
