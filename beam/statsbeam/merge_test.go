package statsbeam

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

func init() {
	register.DoFn2x0[[]float64, func([]float64)](&stallFn{})
}

// stallFn passes rows on, pausing Pause after every Every rows of a
// bundle: a bundle that makes no progress for two of Prism's progress
// ticks (100 ms) is split by Prism, and the residual runs as another
// bundle, with its own accumulator (as a block of the dense products
// taking longer than 0.2 s does on real data).
type stallFn struct {
	Every int
	Pause time.Duration
	n     int
}

func (f *stallFn) ProcessElement(row []float64, emit func([]float64)) {
	if f.n++; f.n%f.Every == 0 {
		time.Sleep(f.Pause)
	}
	emit(row)
}

// TestMergePrism: on Prism, with bundles split among its workers, the
// statistics pipeline's accumulators are merged (StatsFn.MergeAccumulators
// is called, by the runner's metrics) and the merged statistics equal the
// in-memory sums of the rows to 1e-10 relative.
func TestMergePrism(t *testing.T) {
	const nShards, rows = 4, 200
	glob, x, y := shards(t, nShards, rows, false)
	b := Basis{D: 2, Mean: []float64{0, 0}, SD: []float64{1, 1}, TSD: 1, Width: 1, Block: 64,
		Centres: mat.DenseCopyOf(x.Slice(0, 30, 0, 2)).RawMatrix().Data}
	out := filepath.Join(t.TempDir(), "stats.bin")
	p, s := beam.NewPipelineWithRoot()
	in, err := Rows(s, glob, "x1,x2,y", []string{"x1", "x2", "y"})
	if err != nil {
		t.Fatal(err)
	}
	stalled := beam.ParDo(s, &stallFn{Every: rows / 2, Pause: 350 * time.Millisecond}, in)
	beam.ParDo0(s, &WriteFn{URL: out}, beam.Combine(s, &StatsFn{Basis: b}, stalled))
	var merges int64
	if err := countingPrism(&merges)(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	t.Logf("MergeAccumulators called %d times", merges)
	if merges < 1 {
		t.Errorf("MergeAccumulators called %d times", merges)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got vrvm.Stats
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	lib := b.Library()
	phi, err := lib.Design(x)
	if err != nil {
		t.Fatal(err)
	}
	want := vrvm.NewStats(lib.Dim())
	if err := want.AddRows(phi, y); err != nil {
		t.Fatal(err)
	}
	if got.Rows() != nShards*rows {
		t.Fatalf("%d rows", got.Rows())
	}
	checkStats(t, &got, want)
}
