package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The test files in testdata were written by R's write.csv (boston.R) and
// pandas' to_csv (boston.py) from 140 rows of Boston: a row-name column, a
// quoted text column with commas and quotes (tract, not an input), a
// categorical input (chas: inland or river), missing values in rm, chas,
// lstat and the target medv; the files to score have no target (R) or an
// empty one (pandas), their columns in another order and an extra text
// column.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// vrvmBinary builds the command once for the tests that run it.
func vrvmBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vrvm-test-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "vrvm")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// runIn runs the command in dir and returns its output and status.
func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(vrvmBinary(t), args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// copyTestdata copies files of testdata into dir.
func copyTestdata(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// records reads a CSV file with encoding/csv, independently of the
// command's reader.
func records(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

var (
	bostonInputs = []string{"crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "tax", "ptratio", "lstat"}
	chasLevels   = []string{"inland", "river"} // sorted, the command's one-hot order
)

// cleanFiles writes by hand what the command should see: numeric files
// with chas as two 0/1 columns, the rows of the policy left out or filled
// with the training mean or most frequent category. It returns the rows
// of the file to score that stay (drop) and the paths written.
func cleanFiles(t *testing.T, dir, policy string) (kept []bool, train, score string) {
	t.Helper()
	tr := records(t, filepath.Join(dir, "boston_train_r.csv"))
	col := func(rows [][]string, name string) int {
		for j, c := range rows[0] {
			if c == name {
				return j
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}
	isNA := func(s string) bool { return s == "NA" }
	target := col(tr, "medv")
	// Training rows that stay.
	var rows [][]string
	for _, r := range tr[1:] {
		if isNA(r[target]) {
			continue
		}
		if policy == "drop" {
			ok := true
			for _, c := range bostonInputs {
				if isNA(r[col(tr, c)]) {
					ok = false
				}
			}
			if !ok {
				continue
			}
		}
		rows = append(rows, r)
	}
	// Fill values: the mean of the observed values, in file order; the
	// most frequent category.
	fill := map[string]string{}
	for _, c := range bostonInputs {
		j := col(tr, c)
		if c == "chas" {
			count := map[string]int{}
			for _, r := range rows {
				count[r[j]]++
			}
			fill[c] = "inland"
			if count["river"] > count["inland"] {
				fill[c] = "river"
			}
			continue
		}
		var sum float64
		k := 0
		for _, r := range rows {
			if !isNA(r[j]) {
				v, err := strconv.ParseFloat(r[j], 64)
				if err != nil {
					t.Fatal(err)
				}
				sum += v
				k++
			}
		}
		fill[c] = strconv.FormatFloat(sum/float64(k), 'g', -1, 64)
	}
	write := func(name string, src [][]string, srcRows [][]string, withTarget bool) string {
		var b strings.Builder
		var head []string
		for _, c := range bostonInputs {
			if c == "chas" {
				head = append(head, "chas_inland", "chas_river")
			} else {
				head = append(head, c)
			}
		}
		if withTarget {
			head = append(head, "medv")
		}
		b.WriteString(strings.Join(head, ",") + "\n")
		for _, r := range srcRows {
			var line []string
			for _, c := range bostonInputs {
				v := r[col(src, c)]
				if isNA(v) {
					v = fill[c]
				}
				if c == "chas" {
					for _, l := range chasLevels {
						line = append(line, map[bool]string{true: "1", false: "0"}[v == l])
					}
					continue
				}
				line = append(line, v)
			}
			if withTarget {
				line = append(line, r[col(src, "medv")])
			}
			b.WriteString(strings.Join(line, ",") + "\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train = write("clean_train_"+policy+".csv", tr, rows, true)
	sc := records(t, filepath.Join(dir, "boston_score_r.csv"))
	var scoreRows [][]string
	for _, r := range sc[1:] {
		ok := true
		for _, c := range bostonInputs {
			if isNA(r[col(sc, c)]) && policy == "drop" {
				ok = false
			}
		}
		kept = append(kept, ok)
		if ok {
			scoreRows = append(scoreRows, r)
		}
	}
	score = write("clean_score_"+policy+".csv", sc, scoreRows, false)
	return kept, train, score
}

// TestRealDataFiles: fit and predict on files as R and pandas write them
// give the predictions of the same model fitted on a hand-cleaned numeric
// file, under each missing-value rule.
func TestRealDataFiles(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, "boston_train_r.csv", "boston_score_r.csv", "boston_train_pandas.csv", "boston_score_pandas.csv")
	inputs := strings.Join(bostonInputs, ",")

	t.Run("error", func(t *testing.T) {
		for _, f := range []string{"boston_train_r.csv", "boston_train_pandas.csv"} {
			_, errOut, code := runIn(t, dir, "fit", "-target", "medv", "-inputs", inputs, "-categorical", "chas", "-o", "m.json", f)
			want := fmt.Sprintf("vrvm fit: %s:6: column \"rm\" (field 7): missing value; choose -missing drop or -missing impute\n", f)
			if code != 1 || errOut != want {
				t.Errorf("%s: status %d, stderr %q; want %q", f, code, errOut, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
			t.Error("a failed fit wrote a model")
		}
	})

	for _, policy := range []string{"drop", "impute"} {
		t.Run(policy, func(t *testing.T) {
			kept, cleanTrain, cleanScore := cleanFiles(t, dir, policy)
			_, errOut, code := runIn(t, dir, "fit", "-target", "medv", "-width", "3", "-o", "clean.json", cleanTrain)
			if code != 0 {
				t.Fatalf("clean fit: %s", errOut)
			}
			cleanOut, errOut, code := runIn(t, dir, "predict", "-model", "clean.json", cleanScore)
			if code != 0 {
				t.Fatalf("clean predict: %s", errOut)
			}
			want := readCSV(t, cleanOut)[1:]
			for _, w := range []struct{ train, score string }{
				{"boston_train_r.csv", "boston_score_r.csv"},
				{"boston_train_pandas.csv", "boston_score_pandas.csv"},
			} {
				model := policy + "-" + w.train + ".json"
				_, errOut, code := runIn(t, dir, "fit", "-target", "medv", "-inputs", inputs, "-categorical", "chas", "-missing", policy, "-width", "3", "-o", model, w.train)
				if code != 0 {
					t.Fatalf("fit %s: %s", w.train, errOut)
				}
				wantReport := map[string]string{
					"drop":   `vrvm fit: -missing drop: left out 6 rows of 100 (1 row without a target; 5 rows with a missing input: "chas" 1, "lstat" 1, "rm" 3)`,
					"impute": `vrvm fit: -missing impute: filled 5 cells ("chas" 1, "lstat" 1, "rm" 3)`,
				}[policy]
				if !strings.Contains(errOut, wantReport) {
					t.Errorf("fit %s: stderr %q lacks %q", w.train, errOut, wantReport)
				}
				out, errOut, code := runIn(t, dir, "predict", "-model", model, "-keep", "rownames,tract", w.score)
				if code != 0 {
					t.Fatalf("predict %s: %s", w.score, errOut)
				}
				wantReport = map[string]string{
					"drop":   `vrvm predict: 2 rows of 40 with a missing input ("rm" 2): predictions left empty`,
					"impute": `vrvm predict: filled 2 missing cells ("rm" 2)`,
				}[policy]
				if !strings.Contains(errOut, wantReport) {
					t.Errorf("predict %s: stderr %q lacks %q", w.score, errOut, wantReport)
				}
				got := readCSV(t, out)
				if strings.Join(got[0], ",") != "rownames,tract,mean,variance" || len(got) != 41 {
					t.Fatalf("predict %s: header %q, %d lines", w.score, got[0], len(got))
				}
				src := records(t, filepath.Join(dir, w.score))
				k := 0
				for i, row := range got[1:] {
					if row[0] != src[i+1][0] || row[1] != src[i+1][1] {
						t.Errorf("row %d: kept %q, %q; file has %q, %q", i, row[0], row[1], src[i+1][0], src[i+1][1])
					}
					if !kept[i] {
						if row[2] != "" || row[3] != "" {
							t.Errorf("row %d with a missing input: prediction %q", i, row[2:])
						}
						continue
					}
					const close = 1e-12
					for j := range 2 {
						g, c := parse(t, row[2+j]), parse(t, want[k][j])
						if math.Abs(g-c) > close*math.Abs(c) {
							t.Errorf("%s row %d: %v, hand-cleaned file %v", w.score, i, g, c)
						}
					}
					k++
				}
				if k != len(want) {
					t.Errorf("%d predictions, the hand-cleaned file has %d", k, len(want))
				}
			}
		})
	}

	t.Run("unseen category", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "boston_score_r.csv"))
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(b, []byte(`"inland"`))
		lake := append(append(append([]byte(nil), b[:i]...), `"lake"`...), b[i+len(`"inland"`):]...)
		if err := os.WriteFile(filepath.Join(dir, "lake.csv"), lake, 0o644); err != nil {
			t.Fatal(err)
		}
		model := "impute-boston_train_r.csv.json"
		_, errOut, code := runIn(t, dir, "predict", "-model", model, "lake.csv")
		want := `vrvm predict: lake.csv:2: column "chas" (field 10): category "lake" was not seen in training (categories inland, river); predict -unseen zero encodes it as all zeros` + "\n"
		if code != 1 || errOut != want {
			t.Errorf("status %d, stderr %q; want %q", code, errOut, want)
		}
		out, errOut, code := runIn(t, dir, "predict", "-model", model, "-unseen", "zero", "lake.csv")
		if code != 0 || !strings.Contains(errOut, "1 cell with a category not seen in training, encoded as all zeros") || len(readCSV(t, out)) != 41 {
			t.Errorf("-unseen zero: status %d, stderr %q", code, errOut)
		}
	})

	t.Run("unused text column", func(t *testing.T) {
		// Without -categorical, chas is text in a numeric input: the
		// error says what to do; tract, not an input, is never read.
		_, errOut, code := runIn(t, dir, "fit", "-target", "medv", "-inputs", inputs, "-missing", "drop", "-o", "m.json", "boston_train_r.csv")
		want := `vrvm fit: boston_train_r.csv:2: column "chas" (field 5): not a number: "inland"; name the column in -categorical to one-hot encode it, or leave it out of -inputs` + "\n"
		if code != 1 || errOut != want {
			t.Errorf("status %d, stderr %q; want %q", code, errOut, want)
		}
		_, errOut, code = runIn(t, dir, "fit", "-target", "medv", "-inputs", "crim,rm,lstat", "-missing", "drop", "-o", "small.json", "boston_train_r.csv")
		if code != 0 {
			t.Fatalf("fit with a text column not an input: %s", errOut)
		}
		// Predict reads only crim, rm and lstat.
		if _, errOut, code := runIn(t, dir, "predict", "-model", "small.json", "boston_score_pandas.csv"); code != 0 {
			t.Errorf("predict: %s", errOut)
		}
	})
}
