package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// pqRow is a row of writeShards' data in a Parquet file.
type pqRow struct {
	X1 float64 `parquet:"x1"`
	X2 float64 `parquet:"x2"`
	Y  float64 `parquet:"y"`
}

// writeParquet writes rows to path with Snappy pages, rowGroup rows per
// row group (the reader reads a group by batches of parquetrows.Batch).
func writeParquet[T any](t *testing.T, path string, rows []T, rowGroup int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(int64(rowGroup)), parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// csvToParquet writes the rows of the CSV file writeShards wrote as a
// Parquet file (the same float64 values: the CSV's, parsed).
func csvToParquet(t *testing.T, csvPath, pqPath string, rowGroup int) []pqRow {
	t.Helper()
	c := readColumns(t, csvPath, "x1", "x2", "y")
	rows := make([]pqRow, len(c[0]))
	for i := range rows {
		rows[i] = pqRow{c[0][i], c[1][i], c[2][i]}
	}
	writeParquet(t, pqPath, rows, rowGroup)
	return rows
}

// TestFitStreamParquet: a directory of a CSV shard and two Parquet shards
// (several row groups, each read in batches) is one data set: its model is
// byte for byte the model of the same rows as CSV shards, and a Parquet
// file alone fits; a text target with -labels is read from Parquet.
func TestFitStreamParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csvDir, mixed := filepath.Join(dir, "csv"), filepath.Join(dir, "mixed")
	os.Mkdir(csvDir, 0o755)
	os.Mkdir(mixed, 0o755)
	writeShards(t, csvDir, 3000, 3, false, 11)
	g0, _ := os.ReadFile(filepath.Join(csvDir, "part-0.csv"))
	os.WriteFile(filepath.Join(mixed, "part-0.csv"), g0, 0o644)
	csvToParquet(t, filepath.Join(csvDir, "part-1.csv"), filepath.Join(mixed, "part-1.parquet"), 300)
	csvToParquet(t, filepath.Join(csvDir, "part-2.csv"), filepath.Join(mixed, "part-2.parquet"), 5000)
	args := []string{"fit", "-stream", "-target", "y", "-centres", "60", "-width", "1"}
	_, e, code := runIn(t, dir, append(args, "-o", "csv.json", "csv")...)
	if code != 0 {
		t.Fatal(e)
	}
	_, e, code = runIn(t, dir, append(args, "-o", "mixed.json", "mixed")...)
	if code != 0 {
		t.Fatal(e)
	}
	t.Log(e)
	if !strings.Contains(e, "pass 2 (statistics): 3000 rows") || !strings.Contains(e, "in 3 files") {
		t.Errorf("stderr %q", e)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "csv.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "mixed.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("CSV shards and mixed CSV/Parquet shards of the same rows give different models")
	}
	if _, e, code := runIn(t, dir, append(args, "-quiet", "-o", "one.json", "mixed/part-1.parquet")...); code != 0 || e != "" {
		t.Errorf("one Parquet file: %d %q", code, e)
	}

	type labelRow struct {
		X1 float64 `parquet:"x1"`
		X2 float64 `parquet:"x2"`
		Y  string  `parquet:"y"`
	}
	clsDir := filepath.Join(dir, "cls")
	os.Mkdir(clsDir, 0o755)
	writeShards(t, clsDir, 2000, 1, true, 12)
	c := readColumns(t, filepath.Join(clsDir, "part-0.csv"), "x1", "x2", "y")
	rows := make([]labelRow, len(c[0]))
	for i := range rows {
		rows[i] = labelRow{c[0][i], c[1][i], []string{"no", "yes"}[int(c[2][i])]}
	}
	writeParquet(t, filepath.Join(dir, "labels.parquet"), rows, 700)
	_, e, code = runIn(t, dir, "fit", "-stream", "-task", "classification", "-target", "y", "-labels", "no,yes", "-centres", "40", "-width", "1", "-o", "c.json", "labels.parquet")
	if code != 0 || !strings.Contains(e, "converged after") {
		t.Errorf("labels: %d %q", code, e)
	}
}

// TestFitStreamParquetBadInput: a truncated Parquet file, a corrupted
// page, a shard whose columns differ, a text value that is not a number
// and a missing (null) value stop the fit with an error naming the file
// and the row (or the rows of the batch being read), and no model.
func TestFitStreamParquetBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeShards(t, dir, 4000, 2, false, 13)
	c := readColumns(t, filepath.Join(dir, "part-1.csv"), "x1", "x2", "y")
	good := filepath.Join(dir, "good.parquet")
	csvToParquet(t, filepath.Join(dir, "part-1.csv"), good, 1000)
	goodBytes, _ := os.ReadFile(good)
	type textRow struct {
		X1 float64 `parquet:"x1"`
		X2 string  `parquet:"x2"`
		Y  float64 `parquet:"y"`
	}
	type nullRow struct {
		X1 float64  `parquet:"x1"`
		X2 *float64 `parquet:"x2,optional"`
		Y  float64  `parquet:"y"`
	}
	type otherRow struct {
		X1 float64 `parquet:"x1"`
		X3 float64 `parquet:"x3"`
		Y  float64 `parquet:"y"`
	}
	for name, tc := range map[string]struct {
		write func(path string)
		want  []string
	}{
		"truncated": {func(p string) { os.WriteFile(p, goodBytes[:len(goodBytes)-40], 0o644) },
			[]string{"part-1.parquet: not a readable Parquet file (truncated or corrupt?", "footer"}},
		"corrupt": {func(p string) {
			bad := bytes.Clone(goodBytes)
			for i := len(bad) / 2; i < len(bad)/2+64; i++ {
				bad[i] ^= 0x5a
			}
			os.WriteFile(p, bad, 0o644)
		}, []string{"part-1.parquet: rows ", "(row group "}},
		"columns": {func(p string) { writeParquet(t, p, []otherRow{{1, 2, 3}, {2, 1, 0}}, 10) },
			[]string{"part-1.parquet: columns x1,x3,y", "the columns of the first, part-0.csv"}},
		"text": {func(p string) {
			rows := make([]textRow, len(c[0]))
			for i := range rows {
				rows[i] = textRow{c[0][i], "0.5", c[2][i]}
			}
			rows[1800].X2 = "abc"
			writeParquet(t, p, rows, 1000)
		}, []string{"part-1.parquet: row 1801", `column "x2"`, "not a number"}},
		"null": {func(p string) {
			rows := make([]nullRow, len(c[0]))
			for i := range rows {
				if i != 999 {
					rows[i] = nullRow{c[0][i], &c[1][i], c[2][i]}
				}
			}
			writeParquet(t, p, rows, 700)
		}, []string{"part-1.parquet: row 1000", `column "x2"`, "missing value"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := t.TempDir()
			g0, _ := os.ReadFile(filepath.Join(dir, "part-0.csv"))
			os.WriteFile(filepath.Join(d, "part-0.csv"), g0, 0o644)
			tc.write(filepath.Join(d, "part-1.parquet"))
			_, errOut, code := runIn(t, d, "fit", "-stream", "-target", "y", "-centres", "20", "-width", "1", "-o", "m.json", ".")
			t.Log(errOut)
			if code != 1 {
				t.Errorf("status %d", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if _, err := os.Stat(filepath.Join(d, "m.json")); err == nil {
				t.Error("a model was written")
			}
		})
	}
}
