package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestREPL feeds input to the read-eval-print loop and checks what it
// prints: values as ": value", errors without the pseudo file name, and
// input continued over lines until it is complete.
func TestREPL(t *testing.T) {
	for _, tc := range []struct {
		name   string
		input  string
		stdout string   // exact
		stderr []string // regular expressions, each must match
		failed bool
	}{{
		name:   "expression",
		input:  "1 + 2\n",
		stdout: ": 3\n",
	}, {
		name:   "statements",
		input:  "x := 20\nx += 22\nfmt.Println(\"x is\", x)\n",
		stdout: ": 20\n: 42\nx is 42\n: 8 <nil>\n",
	}, {
		name: "context calls",
		// r.Fit becomes r.FitContext with the evaluation's context; a
		// script type's Fit without a FitContext is called as written.
		input: "type mine struct{}\nfunc (mine) Fit(a, b int) int { return a + b }\nmine{}.Fit(40, 2)\n" +
			"var r = &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}\nvar d, _ = datasets.Sinc(30, 0.1, 1)\nr.Fit(d.X, d.T)\nr.Status()\n",
		stdout: ": 42\n: <nil>\n: converged\n",
	}, {
		name: "goroutine panic of a func variable",
		// Recovered and reported; the session and its variables go on
		// (see also goroutinepanic).
		input:  "keep := 7\ngo func() { panic(\"boom\") }()\nf := func(a, b int) { panic(a + b) }\ngo f(keep, 1)\ntime.Sleep(200 * time.Millisecond)\nkeep\n",
		stdout: ": 7\n: func(int, int)\n: 7\n",
		stderr: []string{`panic in a goroutine: boom \(the goroutine ended`, `panic in a goroutine: 8 \(the goroutine ended`},
	}, {
		name: "multiline",
		input: `func twice(x float64) float64 {
	return 2 * x
}
twice(
	21,
)
s := ` + "`a\nb`" + `
len(s)
`,
		stdout: ": 42\n: a\nb\n: 3\n",
	}, {
		name: "packages",
		// Imported without an import statement, compiled packages and
		// the standard library alike.
		input: `m := mat.NewDense(2, 2, []float64{4, 1, 1, 3})
mat.Det(m)
vrvm.Gaussian{Width: 2}.Eval([]float64{0}, []float64{2})
math.Exp(-1)
d, err := datasets.Sinc(3, 0.1, 1)
len(d.T)
`,
		stdout: "^: ⎡4  1⎤\n  ⎣1  3⎦\n: 11.000000000000002\n: 0.36787944117144233\n: 0.36787944117144233\n: datasets.Dataset: 3 rows × 1 input \\(x\\), target t <nil>\n: 3\n$",
	}, {
		name: "declarations",
		// Only values are printed, not declarations.
		input:  "type point struct{ X, Y float64 }\nfunc (p point) Norm() float64 { return math.Hypot(p.X, p.Y) }\nvar p = point{3, 4}\nconst c = 1\np.Norm()\n",
		stdout: ": 5\n",
	}, {
		name: "collisions",
		// draw and palette are gonum/plot's; rand is ambiguous.
		input: `draw.CircleGlyph{}
palette.Heat(2, 1).Colors()[0] != nil
import idraw "image/draw"
idraw.Src
rand.Int()
`,
		stdout: ": draw.CircleGlyph{}\n: true\n: 1\n",
		stderr: []string{`undefined: rand`},
		failed: true,
	}, {
		name: "reimport",
		// Pasted code repeats imports: those already in effect are
		// dropped, the others evaluated.
		input: `import "fmt"
import "gonum.org/v1/plot/vg/draw"
import (
	"math"
	"gonum.org/v1/plot/palette"
	"math/rand/v2"
)
import "math/rand/v2"
draw.CircleGlyph{}
rand.IntN(5) < 5
`,
		stdout: ": draw.CircleGlyph{}\n: true\n",
	}, {
		name:   "import",
		input:  "import \"math/rand/v2\"\nrand.New(rand.NewPCG(1, 2)).IntN(1000) < 1000\n",
		stdout: ": true\n",
	}, {
		name:   "error",
		input:  "y := undefinedName + 1\n\"continues\"\n",
		stdout: ": continues\n",
		stderr: []string{`(?m)^1:\d+: `},
		failed: true,
	}, {
		name: "columns",
		// Positions in the input as typed: not in yaegi's pseudo file
		// ("foo" was at 1:28), nor moved by the REPL's rewrite.
		input: "foo\n  foo\nx := (1 + ]\nfunc f() int { return undefinedY }\n" +
			"type T struct{ a undefinedZ }\nmath.Sqrt(2) + undefinedW\nvar v int = \"s\"\n go undefinedG(1)\n" +
			"r := &vrvm.Regressor{}\nr.Fit(nil, undefinedV)\n",
		stdout: "^: vrvm.Regressor[^\n]*\n$",
		stderr: []string{`(?m)^1:1: undefined: foo\n1:3: undefined: foo\n1:11: expected operand, found ']'\n1:23: undefined: undefinedY\n` +
			`1:18: undefined: undefinedZ\n1:16: undefined: undefinedW\n1:13: cannot convert "s" to int\n1:5: undefined: undefinedG\n1:12: undefined: undefinedV\n$`},
		failed: true,
	}, {
		name: "faileddecl",
		// A declaration that does not compile declares nothing, and the
		// session goes on (z used to be half declared, and the next input
		// failed in yaegi with an index out of range).
		input:  "x := undefinedThing\nx\nz := 1 + \"a\"\nz\nvar s []int = map[int]int{}\ns\nconst c = 1 / 0\nc\n:vars\nw := 1\nw\n",
		stdout: "no variables\n: 1\n: 1\n",
		stderr: []string{`^1:6: undefined: undefinedThing\n1:1: undefined: x\n1:6: invalid operation: mismatched types untyped int and untyped string\n1:1: undefined: z\n` +
			`1:15: cannot use type map\[int\]int as type \[\]int in assignment\n1:1: undefined: s\n1:11: invalid operation: division by zero\n1:1: undefined: c\n$`},
		failed: true,
	}, {
		name: "compilepanic",
		// yaegi panics on some inputs it cannot compile: not a panic of
		// the program.
		input:  "var a [-1]int\na\n1\n",
		stdout: ": 1\n",
		stderr: []string{`^the interpreter \(yaegi\) cannot compile this input: reflect: negative length passed to ArrayOf\n1:1: undefined: a\n$`},
		failed: true,
	}, {
		name: "goroutinepanic",
		// A panic in a goroutine of the session ends the goroutine, not
		// the session; go statements keep Go's evaluation order.
		input: `keep := 42
done := make(chan bool)
go func() { defer close(done); panic("boom") }()
<-done
func bad(n int, s ...string) { defer func() { done <- true }(); panic(fmt.Sprint("bad ", n, s)) }
done = make(chan bool)
n := 3
go bad(n, "a", "b")
n = 4
<-done
xs := []string{"c"}
go bad(n, xs...)
<-done
ch := make(chan int)
go func(v int) { ch <- 2 * v }(21)
<-ch
keep
`,
		stdout: "^: 42\n: chan bool\n: (true|false)\n: chan bool\n: 3\n: 4\n: true\n: \\[\"c\"\\]\n: true\n: chan int\n: 42\n: 42\n$",
		stderr: []string{`(?m)^panic in a goroutine: boom \(the goroutine ended; the session goes on\)$`,
			`(?m)^panic in a goroutine: bad 3 \[a b\] `, `(?m)^panic in a goroutine: bad 4 \[c\] `},
	}, {
		name:   "syntax",
		input:  "x := (1 + ]\n\"continues\"\n",
		stdout: ": continues\n",
		stderr: []string{`(?m)^\d+:\d+: expected operand`},
		failed: true,
	}, {
		name:   "panic",
		input:  "mat.NewDense(2, 2, []float64{1})\n\"continues\"\n",
		stdout: ": continues\n",
		stderr: []string{`^1:1: panic: mat: dimension mismatch \[in gonum\.org/v1/gonum/mat\.NewDense\]\n$`},
		failed: true,
	}, {
		name: "results",
		// Every result of a call, the error included.
		input: `r := &vrvm.Regressor{}
r.Kernel = vrvm.Gaussian{Width: 3}
d, _ := datasets.Sinc(20, 0.1, 1)
r.Fit(d.X, d.T)
r.Predict(nil)
func pair() (int, error) { return 2, errors.New("two") }
pair()
`,
		// (The estimator and the kernel print by String if they have
		// it, else as literals.)
		stdout: "^: [^\n]*Regressor[^\n]*\n: [^\n]*[Ww]idth[^\n]*\n: datasets.Dataset: 20 rows × 1 input \\(x\\), target t\n: <nil>\n: \\[\\] \\[\\] vrvm: [^\n]+\n: 2 two\n$",
	}, {
		name: "assignments",
		// The variables an assignment set, not a stale value; nothing
		// after a for statement.
		input: `d, err := datasets.Sinc(3, 0.1, 1)
n := 0
for k := 1; k <= 4; k++ { n += k }
n
x, _ := 1.5, 2
x++
m := map[string]int{}
m["a"] = len("abc")
`,
		stdout: "^: datasets.Dataset: 3 rows × 1 input \\(x\\), target t <nil>\n: 0\n: 10\n: 1.5\n: 2.5\n: map\\[\\]\n: 3\n$",
	}, {
		name: "stringer",
		// String where a value has it: compiled types and types
		// declared at the prompt.
		input: `vrvm.Converged
time.Duration(1500) * time.Millisecond
type named struct{ n int }
func (v named) String() string { return fmt.Sprint("named #", v.n) }
named{7}
&named{8}
errors.New("an error")
`,
		stdout: ": converged\n: 1.5s\n: named #7\n: named #8\n: an error\n",
	}, {
		name: "readable",
		// Composite literals of the exported fields, long slices and
		// matrices shortened.
		input: `type point struct{ X, y float64 }
point{3, 4}
[]point{{1, 2}}
make([]float64, 100)
mat.NewDense(2, 2, []float64{1, 2, 3, 4})
map[string][]int{"b": {1}, "a": nil}
`,
		stdout: ": point{X: 3, y: 4}\n: [point{X: 1, y: 2}]\n: [0 0 0 0 0 0 … (94 more)]\n: ⎡1  2⎤\n  ⎣3  4⎦\n: map[\"a\":[] \"b\":[1]]\n",
	}, {
		name: "returns",
		// yaegi's defect with builtin calls in a return statement is
		// worked around (see TestYaegiReturnBuiltins).
		input: `func dims(a, b []int) (int, int) { return len(a), len(b) }
dims([]int{1}, []int{1, 2, 3})
func mk(n int) ([]int, int) { return make([]int, n), cap(make([]int, 1, 5)) }
mk(2)
`,
		stdout: ": 1 3\n: [0 0] 5\n",
	}, {
		name: "panicsite",
		// A panic statement: its value and its position in the input
		// that declared it, on one line.
		input: `func check(x int) int {
	if x > 1 {
		panic(fmt.Errorf("x = %d", x))
	}
	return x
}
check(1)
check(2)
"continues"
`,
		stdout: ": 1\n: continues\n",
		stderr: []string{`^3:3: panic: x = 2 \[in main\.check\]\n$`},
		failed: true,
	}, {
		name: "panicruntime",
		// A run-time error in interpreted code: one line with the
		// position of the statement and the function.
		input:  "func at(s []int, k int) int { return s[k] }\nat(nil, 3)\n",
		stderr: []string{`^1:31: panic: .*index out of range.* \[in main\.at\]\n$`},
		failed: true,
	}, {
		name:   "vars",
		input:  "x := 2\ntype point struct{ X, Y float64 }\np := point{1, 2}\nvar e error\n:vars\n",
		stdout: ": 2\n: point{X: 1, Y: 2}\ne  error  <nil>\np  point  point{X: 1, Y: 2}\nx  int    2\n",
	}, {
		name:   "doc",
		input:  ":doc vrvm.Regressor\n",
		stdout: "^type Regressor struct \\{\n.*\tKernel Kernel\n.*\n\n    Regressor ",
	}, {
		name:   "docmethod",
		input:  "r := &vrvm.Regressor{}\n:doc r.Fit\n:doc r.Kernel\n:doc mat.NewDense\n",
		stdout: "^: [^\n]*Regressor[^\n]*\nfunc \\(r \\*Regressor\\) Fit\\(x mat.Matrix, t \\[\\]float64\\) error\n\n    \\S.*\ntype Regressor struct .*\nfunc NewDense\\(r, c int, data \\[\\]float64\\) \\*Dense\n",
	}, {
		name:   "docmissing",
		input:  ":doc nosuch.Thing\n",
		stderr: []string{`^no documentation for nosuch.Thing: nosuch is not a package or a variable of the session\n$`},
	}, {
		name:   "unfinished",
		input:  "func f() {\n",
		stderr: []string{`expected '}', found 'EOF'`},
		failed: true,
	}, {
		name:   "help",
		input:  ":help\n",
		stdout: "^Enter Go code: .*:quit",
	}, {
		name:   "quit",
		input:  "1\n:quit\n2\n",
		stdout: ": 1\n",
	}, {
		name:   "unknown",
		input:  ":load x.go\n",
		stderr: []string{`unknown command :load`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			// A goroutine's panic is reported by that goroutine after its
			// own deferred calls (which may already have let the session
			// go on), so stderr is written concurrently and read once
			// every expected line is there, or after 10 s.
			stderr := &syncBuffer{mu: make(chan struct{}, 1)}
			lines := newPipeLines(strings.NewReader(tc.input))
			i, err := newREPLInterpreter(lines, &stdout, stderr)
			if err != nil {
				t.Fatal(err)
			}
			failed := repl(i, lines, &stdout, stderr, nil)
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				all := true
				for _, re := range tc.stderr {
					all = all && regexp.MustCompile(re).MatchString(stderr.String())
				}
				if all {
					break
				}
			}
			if failed != tc.failed {
				t.Errorf("failed = %t, want %t; stderr:\n%s", failed, tc.failed, stderr.String())
			}
			if strings.HasPrefix(tc.stdout, "^") {
				if !regexp.MustCompile("(?s)" + tc.stdout).MatchString(stdout.String()) {
					t.Errorf("stdout does not match %q:\n%s", tc.stdout, stdout.String())
				}
			} else if stdout.String() != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tc.stdout)
			}
			for _, re := range tc.stderr {
				if !regexp.MustCompile(re).MatchString(stderr.String()) {
					t.Errorf("stderr does not match %s:\n%s", re, stderr.String())
				}
			}
			if len(tc.stderr) == 0 && stderr.String() != "" {
				t.Errorf("unexpected stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestREPLInterrupt checks that an interrupt cancels a running evaluation.
func TestREPLInterrupt(t *testing.T) {
	var out bytes.Buffer
	lines := newPipeLines(strings.NewReader(""))
	i, err := newREPLInterpreter(lines, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	interrupt := make(chan os.Signal, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		interrupt <- os.Interrupt
	}()
	done := make(chan error, 1)
	go func() {
		_, err := evalInterruptible(i.Interpreter, "n := 0\nfor {\n\tn++\n}\n", interrupt, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("interrupted evaluation returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the interrupt did not stop the evaluation")
	}
	// The interpreter is usable afterwards.
	if v, err := evalInterruptible(i.Interpreter, "6 * 7", interrupt, nil); err != nil || v.Interface() != 42 {
		t.Errorf("after the interrupt: %v, %v; want 42", v, err)
	}
}

// TestREPLCommand pipes programs into "vrvm repl": no prompt is printed, the
// exit status tells whether an evaluation failed, and os.Exit works.
func TestREPLCommand(t *testing.T) {
	bin := buildVrvm(t)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	stdout, stderr, status := execute(t, dir, "r := &vrvm.Regressor{}\nr.Kernel = vrvm.Gaussian{Width: 3}\nd, _ := datasets.Sinc(30, 0.1, 1)\nr.Fit(d.X, d.T)\nr.Status()\n", bin, "repl")
	if status != 0 {
		t.Errorf("exit status %d, want 0; stderr:\n%s", status, stderr)
	}
	if !strings.HasSuffix(stdout, ": <nil>\n: converged\n") {
		t.Errorf("stdout:\n%s", stdout)
	}

	if _, stderr, status := execute(t, dir, "undefinedName\n1\n", bin, "repl"); status != 1 || !strings.Contains(stderr, "undefined") {
		t.Errorf("an evaluation failed: exit status %d, want 1; stderr:\n%s", status, stderr)
	}

	if stdout, _, status := execute(t, dir, "fmt.Println(\"bye\")\nos.Exit(4)\nfmt.Println(\"not reached\")\n", bin, "repl"); status != 4 || stdout != "bye\n: 4 <nil>\n" {
		t.Errorf("os.Exit(4): exit status %d, stdout %q", status, stdout)
	}

	if _, err := os.Stat(filepath.Join(dir, "cache", "vrvm", "repl_history")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("piped input wrote a history file (stat: %v)", err)
	}
}

// TestREPLTerminal runs "vrvm repl" on a pseudo-terminal (with script(1)
// from util-linux): the prompts, the line editor and the history file.
func TestREPLTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	bin := buildVrvm(t)
	dir := t.TempDir()
	cmd := exec.Command(script, "-qec", "exec "+bin+" repl", "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "TERM=xterm")
	// A 3-character line with an error (column 1) and a goroutine that
	// panics before the session goes on.
	const input = "40 + 2\nfoo\ngo func() { panic(\"boom\") }()\ntime.Sleep(300 * time.Millisecond)\nfunc f() int {\nreturn 7 }\nf()\n:quit\n"
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := strings.ReplaceAll(string(out), "\r", "")
	// The terminal echoes the input as it arrives, so the order of
	// prompts and input is not fixed.
	for _, want := range []string{"> ", "... ", ": 42\n", "> 1:1: undefined: foo\n", "panic in a goroutine: boom", ": 7\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, text)
		}
	}
	history, err := os.ReadFile(filepath.Join(dir, "cache", "vrvm", "repl_history"))
	if err != nil {
		t.Fatal(err)
	}
	if want := input; string(history) != want {
		t.Errorf("history file:\n%s\nwant:\n%s", history, want)
	}
}

// TestREPLComplete checks the completions offered for the word before the
// cursor: members of packages, methods and fields of session variables
// (compiled and script types, through fields), and identifiers.
func TestREPLComplete(t *testing.T) {
	var out bytes.Buffer
	lines := newPipeLines(strings.NewReader(`r := &vrvm.Regressor{}
type point struct{ X, Y float64 }
func (p point) Norm() float64 { return math.Hypot(p.X, p.Y) }
p := point{3, 4}
sessionCounter := 1
`))
	i, err := newREPLInterpreter(lines, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	if repl(i, lines, &out, &out, nil) {
		t.Fatalf("the session failed:\n%s", out.String())
	}
	for _, tc := range []struct {
		line  string
		pos   int // -1: the end of line
		head  string
		want  []string // exactly, in order
		first string   // instead of want: the first, and all with the prefix
		tail  string
	}{
		// r.Predict first, then the other methods with the prefix, if
		// any (PredictDesign…).
		{line: "r.Pre", pos: -1, first: "r.Predict"},
		{line: "x := r.Pre(d.X)", pos: 10, head: "x := ", first: "r.Predict", tail: "(d.X)"},
		{line: "r.Ker", pos: -1, want: []string{"r.Kernel"}},
		{line: "r.Kernel.Ev", pos: -1, want: []string{"r.Kernel.Eval"}},
		{line: "mat.NewDe", pos: -1, want: []string{"mat.NewDense"}},
		{line: "fmt.Sprintl", pos: -1, want: []string{"fmt.Sprintln"}},
		{line: "vrvm.Regressor.FitC", pos: -1, want: []string{"vrvm.Regressor.FitContext"}},
		{line: "p.N", pos: -1, want: []string{"p.Norm"}},
		{line: "p.", pos: -1, want: []string{"p.Norm", "p.X", "p.Y"}},
		{line: "fmt.Println(sessionC", pos: -1, head: "fmt.Println(", want: []string{"sessionCounter"}},
		{line: "datas", pos: -1, want: []string{"datasets"}},
		{line: "poi", pos: -1, want: []string{"point"}},
		{line: "nosuch.", pos: -1},
		// No word: Tab indents pasted code.
		{line: "", pos: 0, want: []string{"\t"}},
		{line: "\treturn", pos: 1, head: "\t", want: []string{"\t"}, tail: "return"},
	} {
		pos := tc.pos
		if pos < 0 {
			pos = len(tc.line)
		}
		head, got, tail := i.complete(tc.line, pos)
		ok := reflect.DeepEqual(got, tc.want)
		if tc.first != "" {
			ok = len(got) > 0 && got[0] == tc.first
			for _, c := range got {
				ok = ok && strings.HasPrefix(c, tc.line[len(tc.head):pos])
			}
		}
		if head != tc.head || tail != tc.tail || !ok {
			t.Errorf("complete(%q, %d) = %q, %q, %q; want %q, %q%s, %q", tc.line, pos, head, got, tail, tc.head, tc.want, tc.first, tc.tail)
		}
	}
}

// TestREPLTerminalComplete types Tab on a pseudo-terminal (script(1)): the
// line editor completes r.Pre to r.Predict and r.Fi to r.Fit, the first
// completions, the completed lines are evaluated, and a Tab at the start
// of a line (pasted code) stays a tab.
func TestREPLTerminalComplete(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	bin := buildVrvm(t)
	dir := t.TempDir()
	// A terminal without a size is one liner cannot edit on: it
	// falls back to reading lines, and Tab is a character.
	cmd := exec.Command(script, "-qec", "stty cols 120 rows 40 && exec "+bin+" repl", "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "TERM=xterm")
	cmd.Stdin = strings.NewReader("r := &vrvm.Regressor{}\nr.Pre\t(nil)\n:doc r.Fi\t\nfunc two() int {\n\treturn 2\n}\ntwo()\n:quit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := strings.ReplaceAll(string(out), "\r", "")
	for _, want := range []string{": [] [] vrvm: ", "func (r *Regressor) Fit(x mat.Matrix", ": 2\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, text)
		}
	}
	history, err := os.ReadFile(filepath.Join(dir, "cache", "vrvm", "repl_history"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "r := &vrvm.Regressor{}\nr.Predict(nil)\n:doc r.Fit\nfunc two() int {\n\treturn 2\n}\ntwo()\n:quit\n"; string(history) != want {
		t.Errorf("history file:\n%s\nwant:\n%s", history, want)
	}
}

// TestREPLReadableEstimator prints fitted estimators at the prompt: by
// their String method if they have one, otherwise as a composite literal
// of their exported fields; either way a few short lines, no pointer
// address and no list of more than printElems elements.
func TestREPLReadableEstimator(t *testing.T) {
	var stdout, stderr bytes.Buffer
	lines := newPipeLines(strings.NewReader(`d, _ := datasets.Sinc(50, 0.1, 1)
r := &vrvm.Regressor{}
r.Kernel = vrvm.Gaussian{Width: 3}
err := r.Fit(d.X, d.T)
r
rp, _ := datasets.Ripley(60, 2)
c := &vrvm.Classifier{}
err = c.Fit(rp.X, rp.T)
c
`))
	i, err := newREPLInterpreter(lines, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if repl(i, lines, &stdout, &stderr, nil) {
		t.Fatalf("the session failed:\n%s", stderr.String())
	}
	out := stdout.String()
	// The values of r and c, after err (<nil>).
	values := regexp.MustCompile(`(?m)^: <nil>\n((?:: [^\n]*\n)(?:  [^\n]*\n)*)`).FindAllStringSubmatch(out, -1)
	if len(values) != 2 {
		t.Fatalf("no estimators printed after the fits:\n%s", out)
	}
	list := regexp.MustCompile(`\[([^][]*)\]`)
	for _, m := range values {
		v := m[1]
		if n := strings.Count(v, "\n"); n > 6 {
			t.Errorf("%d lines:\n%s", n, v)
		}
		if strings.Contains(v, "0x") || len(v) > 400 {
			t.Errorf("an address or a long dump:\n%s", v)
		}
		for _, l := range list.FindAllStringSubmatch(v, -1) {
			if n := len(strings.Fields(strings.Split(l[1], "…")[0])); n > printElems {
				t.Errorf("a list of %d elements: %s", n, l[0])
			}
		}
		if !strings.Contains(v, "Regressor") && !strings.Contains(v, "Classifier") {
			t.Errorf("the value does not name its type:\n%s", v)
		}
	}
	t.Logf("\n%s", out)
}

var updateREADME = flag.Bool("update-readme", false, "TestREADMESession: rewrite the README's session with the output of this build")

// transcriptLines reads the input lines of a session from a list and
// writes each with its prompt to out, the output of the REPL too, so that
// out is the session as a terminal shows it.
type transcriptLines struct {
	lines []string
	out   io.Writer
}

func (t *transcriptLines) ReadLine(prompt string) (string, error) {
	if len(t.lines) == 0 {
		return "", io.EOF
	}
	line := t.lines[0]
	t.lines = t.lines[1:]
	fmt.Fprintf(t.out, "%s%s\n", prompt, line)
	return line, nil
}
func (t *transcriptLines) AddHistory(string) {}
func (t *transcriptLines) Close() error      { return nil }

// TestREADMELength keeps the README to the 250 lines a first reading
// takes; the rest belongs in docs/.
func TestREADMELength(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250", n)
	}
}

// TestREADMESession replays the REPL session of the README (the text
// block after "A session"): the README shows what the REPL prints. With
// -update-readme it rewrites the block instead (after a change of the
// library that changes what the session prints):
//
//	go test ./cmd/vrvm -run TestREADMESession -update-readme
func TestREADMESession(t *testing.T) {
	const path = "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k := bytes.Index(readme, []byte("A session"))
	if k < 0 {
		t.Fatal(`the README has no "A session"`)
	}
	open := bytes.Index(readme[k:], []byte("```text\n"))
	if open < 0 {
		t.Fatal("no text block after \"A session\" in the README")
	}
	start := k + open + len("```text\n")
	n := bytes.Index(readme[start:], []byte("```\n"))
	if n < 0 {
		t.Fatal("the text block after \"A session\" does not end")
	}
	block := string(readme[start : start+n])

	var input []string
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			input = append(input, line[2:])
		case strings.HasPrefix(line, "... "):
			input = append(input, line[4:])
		}
	}
	var out bytes.Buffer
	lines := &transcriptLines{lines: input, out: &out}
	i, err := newREPLInterpreter(lines, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	repl(i, lines, &out, &out, nil)
	if out.String() == block {
		return
	}
	if !*updateREADME && sameUpToRounding(out.String(), block, 1e-9) {
		// The session's numbers come from fits whose last digits depend on
		// the processor's products (internal/dense: FMA or gonum's BLAS).
		t.Logf("the session matches the README up to rounding (relative 1e-9); -update-readme re-records it")
		return
	}
	if *updateREADME {
		updated := append(append(append([]byte{}, readme[:start]...), out.Bytes()...), readme[start+n:]...)
		if err := os.WriteFile(path, updated, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated the session in %s", path)
		return
	}
	t.Errorf("the session of the README (update it with -update-readme) prints\n%s\nthe README shows\n%s", out.String(), block)
}

// numberRE matches a decimal number, with an optional exponent.
var numberRE = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)

// sameUpToRounding reports whether got and want are the same text but for
// numbers, and their numbers agree to tol relative to the larger
// magnitude (absolute below 1e-300).
func sameUpToRounding(got, want string, tol float64) bool {
	if numberRE.ReplaceAllString(got, "#") != numberRE.ReplaceAllString(want, "#") {
		return false
	}
	g, w := numberRE.FindAllString(got, -1), numberRE.FindAllString(want, -1)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		a, errA := strconv.ParseFloat(g[i], 64)
		b, errB := strconv.ParseFloat(w[i], 64)
		if errA != nil || errB != nil {
			if g[i] != w[i] {
				return false
			}
			continue
		}
		if math.Abs(a-b) > tol*math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300) {
			return false
		}
	}
	return true
}

func TestSameUpToRounding(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		same      bool
	}{
		{"x = 0.12345678901234\n", "x = 0.12345678901233\n", true},
		{"x = 0.1234\n", "x = 0.1235\n", false},
		{"x = 1.5e-3 y\n", "x = 1.5000000000001e-03 y\n", true},
		{"x = 1\n", "y = 1\n", false},
		{"[1 2 3]", "[1 2]", false},
		{"converged after 12 iterations", "converged after 13 iterations", false},
	} {
		if got := sameUpToRounding(tc.got, tc.want, 1e-9); got != tc.same {
			t.Errorf("sameUpToRounding(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.same)
		}
	}
}

// TestREPLTerminalInterruptFit runs "vrvm repl" on a pseudo-terminal (with
// script(1)) and presses Ctrl-C during a plain r.Fit of 10,000 rows: the
// compiled fit stops (the process's CPU time stops growing within a
// second), the prompt returns and the model reports Canceled.
func TestREPLTerminalInterruptFit(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to read the CPU time of the REPL from")
	}
	bin := buildVrvm(t)
	dir := t.TempDir()
	// exec: a shell left waiting (dash, when $SHELL is /bin/sh) gets the
	// Ctrl-C too and, once the REPL has quit, ends itself by SIGINT, so
	// script(1) would report 130 for a REPL that exited 0.
	cmd := exec.Command(script, "-qec", "exec "+bin+" repl", "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "TERM=xterm")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The Monitor says when the fit iterates, so that Ctrl-C stops the
	// iterations (one before the first iteration, during the design,
	// leaves Status Canceled with no posterior: TestREPLInterruptDesign).
	io.WriteString(in, "d, _ := datasets.Sinc(10000, 0.1, 1)\n"+
		"iterating := false\n"+
		"r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, Centres: 1000, NoPrune: true, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30, "+
		"Monitor: func(p vrvm.Progress) bool { if !iterating { iterating = true; fmt.Println(\"fit\", \"iterating\") }; return false }}\n"+
		"r.Fit(d.X, d.T)\n")
	for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), "fit iterating"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the fit did not start iterating within a minute; output:\n%s", out.String())
		}
	}
	repl := descendantRunning(cmd.Process.Pid, bin)
	if repl == 0 {
		t.Fatalf("no process of %s under script(1); output:\n%s", bin, out.String())
	}
	// The fit runs: its CPU time grows (slowly on a busy machine, where
	// the REPL may get little of a core for a while).
	before, start := cpuOf(t, repl), time.Now()
	for cpuOf(t, repl)-before < 50*time.Millisecond {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("the fit does not seem to run (%v of CPU in 20 s); output:\n%s", cpuOf(t, repl)-before, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	io.WriteString(in, "\x03")
	time.Sleep(time.Second)
	stopped := cpuOf(t, repl)
	time.Sleep(time.Second)
	if more := cpuOf(t, repl) - stopped; more > 100*time.Millisecond {
		t.Errorf("the REPL used %v of CPU in the second from 1 s to 2 s after Ctrl-C: the fit goes on", more)
	}
	io.WriteString(in, "r.Status()\n:quit\n")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := strings.ReplaceAll(out.String(), "\r", "")
	if !strings.Contains(text, ": canceled\n") {
		t.Errorf("after Ctrl-C, r.Status() is not canceled; output:\n%s", text)
	}
}

// descendantRunning returns the pid of a descendant of pid that runs the
// executable bin (script(1) starts it through a shell, which may or may
// not exec it), or 0.
func descendantRunning(pid int, bin string) int {
	want, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return 0
	}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", p))
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, field := range strings.Fields(string(b)) {
				n, err := strconv.Atoi(field)
				if err != nil {
					continue
				}
				if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", n)); err == nil && exe == want {
					return n
				}
				queue = append(queue, n)
			}
		}
	}
	return 0
}

// cpuOf returns the user and system CPU time of process pid.
func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 13 {
		t.Fatalf("short /proc/%d/stat: %s", pid, b)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %s", pid, b)
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}
