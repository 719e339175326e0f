package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// TestFormatValue checks how the REPL prints values of compiled types.
func TestFormatValue(t *testing.T) {
	// Compiled types of this test, without a String method (the
	// estimators of vrvm have one).
	type settings struct {
		Name    string
		MaxIter int
		Tol     float64
		Next    *settings
	}
	type node struct {
		Name string
		Next *node
		hide int
	}
	cycle := &node{Name: "a"}
	cycle.Next = cycle
	tenth, fifth := 0.1, 0.2
	big := make(map[int]bool)
	for k := range 10 {
		big[k] = true
	}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "<nil>"},
		{"string", "a\nb", "a\nb"},
		{"nested string", []string{"a\nb"}, `["a\nb"]`},
		{"nil slice", []float64(nil), "[]"},
		{"nil map", map[string]int(nil), "map[]"},
		{"nil pointer", (*settings)(nil), "<nil>"},
		{"float", tenth + fifth, "0.30000000000000004"},
		{"float32", float32(0.1), "0.1"},
		{"long slice", make([]int, 100), "[0 0 0 0 0 0 … (94 more)]"},
		{"short slice", []float64{1.5, 2}, "[1.5 2]"},
		{"map", big, "map[0:true 1:true 2:true 3:true 4:true 5:true … (4 more)]"},
		{"error", errors.New("bad"), "bad"},
		{"stringer", time.Second, "1s"},
		{"stringer field", struct{ D time.Duration }{time.Minute}, "{D: 1m0s}"},
		{"struct", settings{Name: "a", Tol: 1e-6}, `main.settings{Name: "a", Tol: 1e-06}`},
		{"zero fields omitted", &settings{MaxIter: 5}, "&main.settings{MaxIter: 5}"},
		{"unexported hidden", node{Name: "x", hide: 3}, `main.node{Name: "x"}`},
		{"cycle", cycle, `&main.node{Name: "a", Next: &main.node{Name: "a", Next: &main.node{Name: "a", Next: &main.node{Name: "a", Next: &main.node{…}}}}}`},
		{"matrix", mat.NewDense(2, 1, []float64{1, 0.5}), "⎡  1⎤\n  ⎣0.5⎦"},
		{"empty matrix", &mat.Dense{}, "&mat.Dense{}"},
		{"matrix field", struct{ M *mat.Dense }{mat.NewDense(3, 2, nil)}, "{M: &mat.Dense{3×2}}"},
		{"func", strings.ToUpper, "func(string) string"},
	} {
		if got := formatValue(tc.v, nil); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}

	large := formatValue(mat.NewDense(20, 30, nil), nil)
	if lines := strings.Count(large, "\n"); !strings.HasPrefix(large, "Dims(20, 30)\n") || lines > 10 || !strings.Contains(large, "...") {
		t.Errorf("a large matrix, %d lines:\n%s", lines, large)
	}
	long := formatValue([]string{strings.Repeat("x", 10*printString)}, nil)
	if len(long) > printString+10 || !strings.HasSuffix(long, `…"]`) {
		t.Errorf("a long nested string: %d bytes: %s", len(long), long)
	}
	huge := make([][]string, 50)
	for k := range huge {
		huge[k] = []string{strings.Repeat("y", printString)}
	}
	if s := formatValue(huge, nil); len(s) > printTotal+len("…") {
		t.Errorf("%d bytes printed, at most %d", len(s), printTotal)
	}
}
