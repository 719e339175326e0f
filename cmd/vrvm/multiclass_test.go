package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMultiClassCLI fits a three-class model with text labels and checks
// that predict writes one probability column per class, named by label,
// rows summing to one, and the labels.
func TestMultiClassCLI(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 18))
	var b strings.Builder
	b.WriteString("x1,x2,species\n")
	names := []string{"red", "green", "blue"}
	centres := [][2]float64{{0, 0}, {3, 0}, {0, 3}}
	for i := range 60 {
		c := i % 3
		fmt.Fprintf(&b, "%.4f,%.4f,%s\n", centres[c][0]+rnd.NormFloat64()*0.7, centres[c][1]+rnd.NormFloat64()*0.7, names[c])
	}
	if err := os.WriteFile(filepath.Join(dir, "three.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runIn(t, dir, "fit", "-task", "classification", "-target", "species", "-o", "m.json", "three.csv")
	if code != 0 {
		t.Fatalf("fit: status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "multi-class classification") {
		t.Errorf("fit did not report a multi-class model: %s", stderr)
	}
	out, stderr, code := runIn(t, dir, "predict", "-model", "m.json", "three.csv")
	if code != 0 {
		t.Fatalf("predict: status %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "p_blue,p_green,p_red,label" {
		t.Fatalf("header %q, want p_blue,p_green,p_red,label", lines[0])
	}
	if len(lines) != 61 {
		t.Fatalf("%d output lines, want 61", len(lines))
	}
	data := strings.Split(b.String(), "\n")[1:]
	wrong := 0
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		var s float64
		for _, v := range f[:3] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || p < 0 || p > 1 {
				t.Fatalf("line %d: bad probability %q", i+2, v)
			}
			s += p
		}
		if math.Abs(s-1) > 1e-9 {
			t.Errorf("line %d: probabilities sum to %v", i+2, s)
		}
		if want := data[i][strings.LastIndex(data[i], ",")+1:]; f[3] != want {
			wrong++
		}
	}
	if wrong > 6 {
		t.Errorf("%d of 60 training rows misclassified", wrong)
	}
}
