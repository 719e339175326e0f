package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRobustCLI: vrvm fit -noise student saves a Student-t model that vrvm
// predict loads, and its predictions of sin(x)/x from targets with
// outliers are closer than the Gaussian model's; -noise student is
// refused where it does not apply.
func TestRobustCLI(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(5, 44))
	var train, test strings.Builder
	train.WriteString("x,t\n")
	for i := range 80 {
		x := rnd.Float64()*20 - 10
		y := math.Sin(x)/x + 0.1*rnd.NormFloat64()
		if i%10 == 3 {
			y = rnd.Float64()*10 - 5
		}
		fmt.Fprintf(&train, "%v,%v\n", x, y)
	}
	test.WriteString("x\n")
	for i := range 41 {
		fmt.Fprintf(&test, "%v\n", -9.9+0.49*float64(i))
	}
	for name, s := range map[string]string{"train.csv": train.String(), "test.csv": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rms := map[string]float64{}
	for _, noise := range []string{"gaussian", "student"} {
		model := noise + ".json"
		_, errOut, code := runIn(t, dir, "fit", "-target", "t", "-noise", noise, "-o", model, "train.csv")
		if code != 0 {
			t.Fatalf("fit -noise %s: status %d\n%s", noise, code, errOut)
		}
		if got := strings.Contains(errOut, "Student-t noise: ν = "); got != (noise == "student") {
			t.Errorf("fit -noise %s: summary without (or with) ν:\n%s", noise, errOut)
		}
		out, errOut, code := runIn(t, dir, "predict", "-model", model, "test.csv")
		if code != 0 {
			t.Fatalf("predict with the -noise %s model: status %d\n%s", noise, code, errOut)
		}
		rows := readCSV(t, out)
		if len(rows) != 42 || strings.Join(rows[0], ",") != "mean,variance" {
			t.Fatalf("predict -noise %s: %d rows, header %v", noise, len(rows), rows[0])
		}
		var se float64
		for i, r := range rows[1:] {
			x := -9.9 + 0.49*float64(i)
			m, v := parse(t, r[0]), parse(t, r[1])
			if !(v > 0) {
				t.Errorf("-noise %s: variance %v at x = %v", noise, v, x)
			}
			se += (m - math.Sin(x)/x) * (m - math.Sin(x)/x)
		}
		rms[noise] = math.Sqrt(se / 41)
	}
	t.Logf("RMS against sin(x)/x: Gaussian noise %.4f, Student-t %.4f", rms["gaussian"], rms["student"])
	if !(rms["student"] < 0.5*rms["gaussian"]) {
		t.Errorf("RMS against sin(x)/x: Student-t %.4f, not below half the Gaussian model's %.4f", rms["student"], rms["gaussian"])
	}
	for _, args := range [][]string{
		{"-noise", "student", "-task", "classification"},
		{"-noise", "student", "-model", "rvm"},
		{"-noise", "student", "-width", "auto"},
		{"-noise", "student", "-paper-schedule"},
		{"-noise", "cauchy"},
	} {
		_, errOut, code := runIn(t, dir, append(append([]string{"fit", "-target", "t", "-o", "bad.json"}, args...), "train.csv")...)
		if code != 2 || !strings.Contains(errOut, "-noise") {
			t.Errorf("fit %v: status %d, stderr %q", args, code, errOut)
		}
	}
}
