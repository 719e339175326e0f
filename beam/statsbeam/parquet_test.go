package statsbeam

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
)

type pqRow struct {
	X1 float64 `parquet:"x1"`
	X2 float64 `parquet:"x2"`
	Y  float64 `parquet:"y"`
}

// parquetShards writes the rows of x and y as k Parquet files of row
// groups of 70 rows and returns their glob.
func parquetShards(t *testing.T, x *mat.Dense, y []float64, k int) string {
	t.Helper()
	dir := t.TempDir()
	n := len(y) / k
	for s := range k {
		rows := make([]pqRow, n)
		for i := range rows {
			r := s*n + i
			rows[i] = pqRow{x.At(r, 0), x.At(r, 1), y[r]}
		}
		if err := parquet.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.parquet", s)), rows, parquet.MaxRowsPerRowGroup(70)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "*.parquet")
}

// TestParquetPrism: the pipelines on Prism read Parquet shards (several
// row groups each) into the statistics of the same rows as CSV shards:
// equal to the in-memory sums to 1e-10 relative, the same fit to 1e-8
// in the bound; a shard whose columns differ stops the pipeline with an
// error naming it.
func TestParquetPrism(t *testing.T) {
	_, x, y := shards(t, 3, 150, false)
	glob := parquetShards(t, x, y, 3)
	work := t.TempDir()
	m, _, err := Fit(context.Background(), Config{Input: glob, Target: "y", Centres: 40, Seed: 3, Width: 1, Block: 64, Work: work}, runPrism)
	if err != nil {
		t.Fatal(err)
	}
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
	if got.Rows() != 450 {
		t.Fatalf("%d rows", got.Rows())
	}
	checkStats(t, &got, want)
	r := &vrvm.Regressor{}
	if err := r.FitStats(lib, want); err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(m.LowerBound()-r.LowerBound()) / math.Abs(r.LowerBound()); !(d <= 1e-8) {
		t.Errorf("bound %.12g, in memory %.12g", m.LowerBound(), r.LowerBound())
	}

	type other struct {
		X1 float64 `parquet:"x1"`
		X3 float64 `parquet:"x3"`
		Y  float64 `parquet:"y"`
	}
	bad := filepath.Join(filepath.Dir(glob), "part-9.parquet")
	if err := parquet.WriteFile(bad, []other{{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	_, _, err = Fit(context.Background(), Config{Input: glob, Target: "y", Centres: 40, Seed: 3, Width: 1, Work: t.TempDir()}, runPrism)
	if err == nil || !strings.Contains(err.Error(), "part-9.parquet: columns x1,x3,y") {
		t.Errorf("a shard whose columns differ: %v", err)
	}
}
