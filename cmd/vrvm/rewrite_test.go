package main

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// returnBuiltins declares functions whose return statements have several
// results, some of them builtin calls, and calls them.
const returnBuiltins = `package main

func dims(a, b []int) (int, int) { return len(a), len(b) }

func later(a []int, b int) (int, int) { return b, len(a) }

func mixed() ([]int, int) { return make([]int, 2), len("abc") }

var (
	R, C = dims([]int{1}, []int{1, 2, 3})
	B, L = later([]int{1}, 3)
)

func Mixed() (s []int, n int, err any) {
	defer func() { err = recover() }()
	s, n = mixed()
	return
}
`

// TestYaegiReturnBuiltins pins a defect of yaegi v0.16.1 that "vrvm run"
// and the REPL work around: a builtin call among several results of a
// return statement stores its value in the first result slot, so that
// "return len(a), len(b)" returns len(b) twice (an idiomatic Dims of a
// mat.Matrix written in a script gets wrong dimensions), "return b, len(a)"
// returns b twice, and "return make(…), len(…)" panics. The test fails
// when an upgrade of yaegi fixes the defect: then remove the parentheses
// of fixes (rewrite.go) and the notes in runUsage and the README.
// With the rewrite of rewriteScript the results are right.
func TestYaegiReturnBuiltins(t *testing.T) {
	eval := func(src string) *interp.Interpreter {
		t.Helper()
		var out bytes.Buffer
		i, err := newInterpreter(interp.Options{Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := useHooks(i, io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return i
	}
	results := func(i *interp.Interpreter) []any {
		var r []any
		for _, name := range []string{"R", "C", "B", "L"} {
			r = append(r, symbol(t, i, name).Interface())
		}
		mixed := symbol(t, i, "Mixed").Interface().(func() ([]int, int, any))
		s, n, err := mixed()
		return append(r, s, n, err != nil)
	}

	want := []any{1, 3, 3, 1, []int{0, 0}, 3, false}
	if got := results(eval(returnBuiltins)); reflect.DeepEqual(got, want) {
		t.Errorf("yaegi now returns builtin results right (%v): the workaround in rewrite.go can go", got)
	} else if got[0] != 3 || got[1] != 3 || got[2] != 3 || got[3] != 3 || got[6] != true {
		t.Errorf("yaegi's defect changed: got %v (R C B L s n panicked), v0.16.1 gives 3 3 3 3 and a panic", got)
	}

	fixed := rewriteScript("returns.go", returnBuiltins, &positionTable{})
	if !strings.Contains(fixed, "return (len(a)), (len(b))") {
		t.Errorf("rewritten:\n%s", fixed)
	}
	if got := results(eval(fixed)); !reflect.DeepEqual(got, want) {
		t.Errorf("rewritten: got %v, want %v", got, want)
	}
}

// TestRewriteKeepsLines checks that the rewritten script has its lines
// where they were, and its statements their columns, so that the
// interpreter's positions are the script's, and that the statements that
// may panic are numbered with their positions.
func TestRewriteKeepsLines(t *testing.T) {
	src := `package main // the clause

import "fmt"

func f(a []int) (int, int) {
	return len(a),
		cap(a)
}

func main() {
	if x, _ := f(nil); x > 0 {
		panic(fmt.Sprint("x ", x))
	}
	s := 0.0
	for k := 0; k < 3; k++ {
		s += float64(k) * 2
	}
	switch {
	default:
		panic("no")
	}
	defer func() {
		recover()
	}()
}
`
	table := &positionTable{}
	got := rewriteScript("lines.go", src, table)
	gl, sl := strings.Split(got, "\n"), strings.Split(src, "\n")
	if len(gl) != len(sl)+2 || gl[len(sl)] != "var _vrvmP int" {
		t.Fatalf("%d lines rewritten, %d in the source, and not the declaration of _vrvmP after them:\n%s", len(gl), len(sl), got)
	}
	for k := range sl {
		// Each line of the source starts the line rewritten, but for
		// the parentheses of the return statement.
		if k != 5 && k != 6 && !strings.HasPrefix(gl[k], sl[k]) {
			t.Errorf("line %d: %q became %q", k+1, sl[k], gl[k])
		}
	}
	for _, want := range []string{
		"\treturn (len(a)),\n\t\t(cap(a))\n",
		"func main() {; _vrvmP = 1;\n\tif x, _ := f(nil)",
		"x > 0 {; _vrvmP = 2;\n\t\tpanic(fmt.Sprint",
		"\ts := 0.0\n\tfor k := 0; k < 3; k++ {\n\t\ts += float64(k) * 2\n", // cannot panic
		"default:; _vrvmP = 3;\n\t\tpanic(\"no\")",
		"\t\trecover()\n", // a deferred literal
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten script lacks %q:\n%s", want, got)
		}
	}
	if want := []string{"", "lines.go:11:2", "lines.go:12:3", "lines.go:20:3"}; !reflect.DeepEqual(table.pos, want) {
		t.Errorf("positions %q, want %q", table.pos, want)
	}
	if src := "package main\n\nfunc main() {\n"; rewriteScript("bad.go", src, &positionTable{}) != src {
		t.Error("a script that does not parse was rewritten")
	}
}

func TestContextCalls(t *testing.T) {
	methods := map[string]string{"Fit": "FitContext", "Run": "RunContext"}
	for _, c := range []struct{ src, want string }{
		{"err := r.Fit(x, t)\n", "err := r.FitContext(_vrvm.Context(), x, t)\n"},
		{"paper.Run()\n", "paper.RunContext(_vrvm.Context())\n"},
		{"if err := r.Fit(x,\n\tt); err != nil {\n}\n", "if err := r.FitContext(_vrvm.Context(), x,\n\tt); err != nil {\n}\n"},
		{"Fit(x)\nr.Predict(x)\n", ""}, // not a selector; no sibling
		// The goroutine outlives the input's context; its arguments do not.
		{"go r.Fit(x, t)\n", ""},
		{"go func() { r.Fit(x, t) }()\n", ""},
		{"go f(r.Fit(x, t))\n", "_vrvm.Go(f, r.FitContext(_vrvm.Context(), x, t))\n"},
	} {
		got, _ := replInput(c.src, nil, &positionTable{}, methods)
		if c.want == "" && strings.Contains(got.text, "Context(") || !strings.Contains(got.text, strings.TrimSuffix(c.want, "\n")) {
			t.Errorf("replInput(%q) = %q, want it to contain %q", c.src, got.text, c.want)
		}
		if got, _ := replInput(c.src, nil, &positionTable{}, nil); strings.Contains(got.text, "Context(") {
			t.Errorf("replInput(%q) without methods = %q", c.src, got.text)
		}
	}
}

// TestGoFixes checks that the go statements of the REPL become calls of
// the hooks that start the goroutine and recover its panic (see goFixes),
// the arguments as written, the context rewrite left out (see
// contextCalls), and that a builtin is left alone.
func TestGoFixes(t *testing.T) {
	methods := map[string]string{"Fit": "FitContext"}
	for _, c := range []struct{ src, want string }{
		{"go f(x, 2)\n", "_vrvm.Go(f, x, 2)\n"},
		{"go f()\n", "_vrvm.Go(f)\n"},
		{"go func() { work() }()\n", "_vrvm.Go(func() {; _vrvmP = 1; work() })\n"},
		{"go r.Fit(x,\n\tt)\n", "_vrvm.Go(r.Fit, x,\n\tt)\n"},
		{"go g(xs...)\n", "_vrvm.GoSpread(g, xs)\n"},
		{"go println(1)\n", "go println(1)\n"},
		{"func h() { go f(1) }\n", "func h() { _vrvm.Go(f, 1) }\n"},
	} {
		for _, m := range []map[string]string{methods, nil} {
			if got, _ := replInput(c.src, nil, &positionTable{}, m); got.text != c.want {
				t.Errorf("replInput(%q, methods %v):\n got %q\nwant %q", c.src, m, got.text, c.want)
			}
		}
	}
}
