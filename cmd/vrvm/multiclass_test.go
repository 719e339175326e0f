package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMultiClassCLI fits a three-class model with text labels, and checks
// that the model file holds the class labels, that predict writes one
// probability column per class named by label, rows summing to one, and
// the most probable label, and that a second fit on numeric labels names
// its columns by the class numbers.
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
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("three.csv", b.String())
	_, stderr, code := runIn(t, dir, "fit", "-task", "classification", "-target", "species", "-o", "m.json", "three.csv")
	if code != 0 {
		t.Fatalf("fit: status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "multi-class classification") || !strings.Contains(stderr, "(3 classes)") {
		t.Errorf("fit did not report a three-class model: %s", stderr)
	}
	lm, err := readCLIModel(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	if lm.meta.Task != "multiclass" || strings.Join(lm.meta.Labels, ",") != "blue,green,red" || lm.est.mc == nil {
		t.Fatalf("model file: task %q, labels %q, multi-class %v", lm.meta.Task, lm.meta.Labels, lm.est.mc != nil)
	}
	out, stderr, code := runIn(t, dir, "predict", "-model", "m.json", "-keep", "species", "three.csv")
	if code != 0 {
		t.Fatalf("predict: status %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "species,p_blue,p_green,p_red,label" {
		t.Fatalf("header %q, want species,p_blue,p_green,p_red,label", lines[0])
	}
	if len(lines) != 61 {
		t.Fatalf("%d output lines, want 61", len(lines))
	}
	wrong := 0
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		var s float64
		best := 1
		for j, v := range f[1:4] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || p < 0 || p > 1 {
				t.Fatalf("line %d: bad probability %q", i+2, v)
			}
			s += p
			if q, _ := strconv.ParseFloat(f[best], 64); p > q {
				best = j + 1
			}
		}
		if math.Abs(s-1) > 1e-9 {
			t.Errorf("line %d: probabilities sum to %v", i+2, s)
		}
		if want := strings.TrimPrefix(strings.Split(lines[0], ",")[best], "p_"); f[4] != want {
			t.Errorf("line %d: label %q, the largest probability is %q's", i+2, f[4], want)
		}
		if f[4] != f[0] {
			wrong++
		}
	}
	if wrong > 6 {
		t.Errorf("%d of 60 training rows misclassified", wrong)
	}

	// Integer class numbers, written "2" or "2.0": columns p_1, p_2, p_10
	// in numeric order.
	num := strings.NewReplacer(",red\n", ",1\n", ",green\n", ",2.0\n", ",blue\n", ",10\n").Replace(b.String())
	write("num.csv", num)
	if _, stderr, code := runIn(t, dir, "fit", "-task", "classification", "-target", "species", "-o", "n.json", "num.csv"); code != 0 {
		t.Fatalf("fit: status %d: %s", code, stderr)
	}
	out, stderr, code = runIn(t, dir, "predict", "-model", "n.json", "num.csv")
	if code != 0 {
		t.Fatalf("predict: status %d: %s", code, stderr)
	}
	if h := strings.SplitN(out, "\n", 2)[0]; h != "p_1,p_2,p_10,label" {
		t.Errorf("header %q, want p_1,p_2,p_10,label", h)
	}
}

// TestMultiClassCLIErrors checks the errors of multi-class targets: a
// class with one row, a numeric label that is not an integer, options the
// multi-class model does not have, and a model file whose class labels
// were altered.
func TestMultiClassCLIErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("single.csv", "x,t\n1,a\n2,a\n3,b\n4,b\n5,c\n")
	write("half.csv", "x,t\n1,0\n2,1\n3,2.5\n4,2\n")
	write("ok.csv", "x,t\n1,a\n2,a\n3,b\n4,b\n5,c\n6,c\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"class with one row", []string{"fit", "-task", "classification", "-target", "t", "-o", "m.json", "single.csv"},
			`vrvm fit: single.csv:6: label "c" is the only row of its class; every class needs at least 2`},
		{"non-integer label", []string{"fit", "-task", "classification", "-target", "t", "-o", "m.json", "half.csv"},
			`vrvm fit: half.csv:4: column "t" (field 2): bad label "2.5": a numeric class label must be an integer (or write the labels as text)`},
		{"rvm", []string{"fit", "-task", "classification", "-target", "t", "-model", "rvm", "-o", "m.json", "ok.csv"},
			`vrvm fit: the multi-class model (more than two class labels) does not support -model rvm`},
		{"third label with -labels", []string{"fit", "-task", "classification", "-labels", "a,b", "-target", "t", "-o", "m.json", "ok.csv"},
			`vrvm fit: ok.csv:6: column "t" (field 2): bad label "c", want "a" or "b" (-labels)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runIn(t, dir, c.args...)
			if code != 1 || strings.TrimSpace(stderr) != c.want {
				t.Errorf("status %d, stderr %q; want 1, %q", code, stderr, c.want)
			}
		})
	}
	// The kernel is learned as for two classes: by default, with -width
	// auto and with -kernel ard.
	for _, args := range [][]string{{}, {"-width", "auto"}, {"-kernel", "ard"}} {
		a := append([]string{"fit", "-task", "classification", "-target", "t", "-o", "m.json"}, args...)
		_, stderr, code := runIn(t, dir, append(a, "ok.csv")...)
		if code != 0 || !strings.Contains(stderr, "kernel learned by the bound") {
			t.Errorf("fit %v: status %d, stderr %q; want 0 and the learned kernel", args, code, stderr)
		}
	}
	if _, stderr, code := runIn(t, dir, "fit", "-task", "classification", "-target", "t", "-o", "m.json", "ok.csv"); code != 0 {
		t.Fatalf("fit: status %d: %s", code, stderr)
	}
	// Relabel class "b" in the metadata and fix the checksum: the labels
	// no longer match the model's.
	data, err := os.ReadFile(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"b"`, `"z"`, 1)
	if bad == string(data) {
		t.Fatal("no label to alter")
	}
	write("bad.json", resum(t, bad))
	_, stderr, code := runIn(t, dir, "predict", "-model", "bad.json", "ok.csv")
	if code != 1 || !strings.Contains(stderr, "class labels") {
		t.Errorf("altered labels: status %d, stderr %q", code, stderr)
	}
}

// resum returns the library model file s with its checksum recomputed
// (SHA-256 of the compact payload followed by the compact metadata).
func resum(t *testing.T, s string) string {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &env); err != nil {
		t.Fatal(err)
	}
	var p, m bytes.Buffer
	if err := json.Compact(&p, env["payload"]); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&m, env["meta"]); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(p.Bytes(), m.Bytes()...))
	env["sha256"], _ = json.Marshal(hex.EncodeToString(sum[:]))
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
