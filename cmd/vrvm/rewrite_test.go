package main

import (
	"bytes"
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
		if _, err := useHooks(i); err != nil {
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

	fixed := rewriteScript("returns.go", returnBuiltins)
	if !strings.Contains(fixed, "return (len(a)), (len(b))") {
		t.Errorf("rewritten:\n%s", fixed)
	}
	if got := results(eval(fixed)); !reflect.DeepEqual(got, want) {
		t.Errorf("rewritten: got %v, want %v", got, want)
	}
}

// TestRewriteKeepsLines checks that the rewritten script has its lines
// where they were, so that the interpreter's positions are the script's.
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
	switch {
	default:
		panic("no")
	}
}
`
	got := rewriteScript("lines.go", src)
	gl, sl := strings.Split(got, "\n"), strings.Split(src, "\n")
	if len(gl) != len(sl) {
		t.Fatalf("%d lines rewritten, %d in the source:\n%s", len(gl), len(sl), got)
	}
	for k := range sl {
		if strings.TrimSpace(sl[k]) != "" && !strings.Contains(gl[k], strings.Fields(sl[k])[0]) {
			t.Errorf("line %d: %q became %q", k+1, sl[k], gl[k])
		}
	}
	for _, want := range []string{
		`package main; import _vrvm "vrvm.internal/rt" // the clause`,
		"\treturn (len(a)),\n\t\t(cap(a))\n",
		`_vrvm.At("lines.go:12:3"); panic(fmt.Sprint("x ", x))`,
		`_vrvm.At("lines.go:16:3"); panic("no")`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten script lacks %q:\n%s", want, got)
		}
	}
	if src := "package main\n\nfunc main() {\n"; rewriteScript("bad.go", src) != src {
		t.Error("a script that does not parse was rewritten")
	}
}
