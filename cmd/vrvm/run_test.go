package main

import (
	"bytes"
	_ "embed"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// buildVrvm builds the vrvm command into a temporary directory and returns
// the path of the binary.
func buildVrvm(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vrvm")
	goBuild(t, bin, ".")
	return bin
}

// goBuild runs "go build -o out target".
func goBuild(t *testing.T, out, target string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, target)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", target, err, msg)
	}
}

// execute runs a command in dir with the given standard input and returns
// its standard output, standard error and exit status.
func execute(t *testing.T, dir, stdin string, name string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	return o.String(), e.String(), status
}

// writeScript writes src to a file name in dir and returns its path.
func writeScript(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunCommand runs scripts through the vrvm binary and checks what the
// script sees (os.Args, flags), what it prints, and the exit status and
// diagnostics of os.Exit, compilation errors and panics.
func TestRunCommand(t *testing.T) {
	bin := buildVrvm(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		src    string
		args   []string
		status int
		stdout string   // exact
		stderr []string // regular expressions, each must match
	}{{
		name: "args",
		src: `package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int("n", 1, "count")
	flag.Parse()
	fmt.Println(os.Args)
	fmt.Println(*n, flag.Args())
}
`,
		args:   []string{"-n", "3", "a", "b c"},
		stdout: "[args.go -n 3 a b c]\n3 [a b c]\n",
	}, {
		name: "exit",
		src: `package main

import (
	"fmt"
	"os"
)

func main() {
	defer fmt.Println("deferred calls do not run")
	fmt.Println("before")
	os.Exit(7)
}
`,
		status: 7,
		stdout: "before\n",
	}, {
		name: "fatal",
		src: `package main

import "log"

func main() { log.Fatal("giving up") }
`,
		status: 1,
		stderr: []string{`giving up`},
	}, {
		name: "compile",
		src: `package main

func main() {
	var x int = "one"
	_ = x
}
`,
		status: 1,
		stderr: []string{`^\S*compile\.go:4:\d+: cannot convert "one" to int`},
	}, {
		name: "syntax",
		src: `package main

func main() {
	x := 
}
`,
		status: 1,
		stderr: []string{`^\S*syntax\.go:5:1: `},
	}, {
		name: "import",
		src: `package main

import "example.com/not/available"

func main() { available.F() }
`,
		status: 1,
		stderr: []string{`import\.go:3:8: .*example\.com/not/available`},
	}, {
		name: "panic",
		src: `package main

import "gonum.org/v1/gonum/mat"

func square(n int) *mat.Dense {
	return mat.NewDense(n, n, []float64{1, 2, 3})
}

func main() {
	square(2)
}
`,
		status: 2,
		stderr: []string{
			// The statement, the value, the interpreted functions
			// unwound.
			`^\S*panic\.go:6:2: panic: mat: dimension mismatch\n\tin main\.square\n\tin main\.main\n\n`,
			`(?m)^goroutine \d+ \[running\]:$`,    // the stack
			`gonum\.org/v1/gonum/mat\.NewDense\(`, // through the library
		},
	}, {
		name: "kernelpanic",
		src: `package main

import (
	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)

type bad struct{}

func (bad) Eval(x, y []float64) float64 {
	var none []float64
	return none[len(x)]
}

func main() {
	r := &vrvm.Regressor{}
	r.Kernel = bad{}
	r.Fit(mat.NewDense(3, 1, []float64{1, 2, 3}), []float64{1, 2, 4})
}
`,
		status: 2,
		stderr: []string{
			`^\S*kernelpanic\.go:12:2: panic: reflect: slice index out of range\n\tin main\.Eval\n`,
			// The compiled fit called the script's Eval through the
			// interface wrapper of the symbol set.
			`symbols\._github_com_vrvm_vrvm_vrvm_Kernel\.Eval`,
			`github\.com/vrvm/vrvm/vrvm\.\(\*Regressor\)\.Fit`,
		},
	}, {
		name: "panicerr",
		// A panic statement: the value, not a reflect.Value, and its
		// position, with the functions it unwound and no Go stack.
		src: `package main

import (
	"errors"
	"fmt"
)

func check(x int) error {
	if x > 1 {
		return errors.New("too big")
	}
	return nil
}

func mustCheck(x int) {
	fmt.Println("checking", x)
	if err := check(x); err != nil {
		panic(err)
	}
}

func main() {
	mustCheck(1)
	mustCheck(2)
}
`,
		status: 2,
		stdout: "checking 1\nchecking 2\n",
		stderr: []string{`^panicerr\.go:18:3: panic: too big\n\tin main\.mustCheck\n\tin main\.main\n$`},
	}, {
		name: "dims",
		// A mat.Matrix written in the script with the idiomatic Dims,
		// which yaegi v0.16.1 alone gets wrong (TestYaegiReturnBuiltins):
		// the compiled mat.Sum reads it through the wrapper.
		src: `package main

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

type grid struct{ rows [][]float64 }

func (g grid) Dims() (r, c int)         { return len(g.rows), len(g.rows[0]) }
func (g grid) At(i, j int) float64      { return g.rows[i][j] }
func (g grid) T() mat.Matrix            { return mat.Transpose{Matrix: g} }

func main() {
	var m mat.Matrix = grid{[][]float64{{1, 2, 3}, {4, 5, 6}}}
	fmt.Println(m.Dims())
	fmt.Println(mat.Sum(m))
}
`,
		stdout: "2 3\n21\n",
	}, {
		name: "unsupported",
		src: `package main

import "fmt"

func main() {
	for i := range 3 {
		fmt.Println(i)
	}
}
`,
		status: 1,
		stderr: []string{`unsupported\.go: the interpreter \(yaegi\) failed on a construct it does not support`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			script := writeScript(t, dir, tc.name+".go", tc.src)
			stdout, stderr, status := execute(t, dir, "", bin, append([]string{"run", filepath.Base(script)}, tc.args...)...)
			if status != tc.status {
				t.Errorf("exit status %d, want %d\nstderr:\n%s", status, tc.status, stderr)
			}
			if tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			for _, re := range tc.stderr {
				if !regexp.MustCompile(re).MatchString(stderr) {
					t.Errorf("stderr does not match %s:\n%s", re, stderr)
				}
			}
		})
	}

	t.Run("usage", func(t *testing.T) {
		if _, stderr, status := execute(t, dir, "", bin, "run"); status != 2 || !strings.Contains(stderr, "Usage: vrvm run script.go") {
			t.Errorf("vrvm run without a script: status %d, stderr:\n%s", status, stderr)
		}
		if _, stderr, status := execute(t, dir, "", bin, "run", "missing.go"); status != 1 || !strings.Contains(stderr, "missing.go") {
			t.Errorf("vrvm run missing.go: status %d, stderr:\n%s", status, stderr)
		}
	})
}

// TestConsistent runs each program compiled by the Go tool chain and
// interpreted by "vrvm run", and requires identical standard output and
// identical files written: every digit of the lower bound, its trace, the
// weights, relevance vectors and predictions, and the bytes of a PNG. It is
// the counterpart for our symbols of yaegi's interp_consistent_test.go.
func TestConsistent(t *testing.T) {
	bin := buildVrvm(t)
	for _, tc := range []struct {
		name   string
		target string // package directory or file for go build
		script string // file for vrvm run
		args   []string
		files  []string // written by the program, compared too
	}{
		{name: "fits", target: "./testdata/consistent/fits.go", script: "testdata/consistent/fits.go"},
		{name: "sinc", target: "../../examples/sinc", script: "../../examples/sinc/sinc.go"},
		{name: "ripley", target: "../../examples/ripley", script: "../../examples/ripley/ripley.go", args: []string{"-maxiter", "2000", "-grid", "40", "map.png"}, files: []string{"map.png"}},
		{name: "customkernel", target: "../../examples/customkernel", script: "../../examples/customkernel/customkernel.go"},
		{name: "streaming", target: "../../examples/streaming", script: "../../examples/streaming/streaming.go", args: []string{"-rows", "60000", "-heap=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, err := filepath.Abs(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			compiledDir, interpretedDir := t.TempDir(), t.TempDir()
			prog := filepath.Join(t.TempDir(), tc.name)
			goBuild(t, prog, tc.target)

			cOut, cErr, cStatus := execute(t, compiledDir, "", prog, tc.args...)
			iOut, iErr, iStatus := execute(t, interpretedDir, "", bin, append([]string{"run", script}, tc.args...)...)
			if cStatus != 0 || iStatus != 0 {
				t.Fatalf("exit status compiled %d, interpreted %d\ncompiled stderr:\n%s\ninterpreted stderr:\n%s", cStatus, iStatus, cErr, iErr)
			}
			if cOut == "" {
				t.Fatal("the compiled program printed nothing")
			}
			if cOut != iOut {
				t.Errorf("outputs differ at line %d\ncompiled:\n%s\ninterpreted:\n%s", firstDiffLine(cOut, iOut), cOut, iOut)
			}
			if cErr != iErr {
				t.Errorf("standard errors differ\ncompiled:\n%s\ninterpreted:\n%s", cErr, iErr)
			}
			for _, f := range tc.files {
				c, err := os.ReadFile(filepath.Join(compiledDir, f))
				if err != nil {
					t.Fatal(err)
				}
				i, err := os.ReadFile(filepath.Join(interpretedDir, f))
				if err != nil {
					t.Fatal(err)
				}
				if len(c) == 0 || !bytes.Equal(c, i) {
					t.Errorf("%s: compiled and interpreted files differ (%d and %d bytes)", f, len(c), len(i))
				}
			}
		})
	}
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

// evalScript interprets src, a file of package main without a main
// function, with the symbols of "vrvm run" and rewritten as "vrvm run"
// rewrites it, and returns the interpreter.
func evalScript(t testing.TB, src string) *interp.Interpreter {
	t.Helper()
	var stderr bytes.Buffer
	i, err := newInterpreter(interp.Options{Stdout: &stderr, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(rewriteScript("script.go", src, &positionTable{})); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return i
}

// symbol returns the value of the script's global name.
func symbol(t testing.TB, i *interp.Interpreter, name string) reflect.Value {
	t.Helper()
	v, err := i.Eval(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestScriptKernel checks that a kernel type defined in a script satisfies
// vrvm.Kernel through yaegi's interface wrapper and is the kernel the
// compiled fit uses: the interpreted Gaussian gives the fit of the library's
// Gaussian, and it is called.
func TestScriptKernel(t *testing.T) {
	i := evalScript(t, `package main

import (
	"math"

	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)

type gaussian struct {
	width float64
	calls *int
}

func (k gaussian) Eval(x, y []float64) float64 {
	*k.calls++
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	return math.Exp(-d2 / (k.width * k.width))
}

var _ vrvm.Kernel = gaussian{}

var Calls int

// Fit assigns the kernel field; FitVar goes through a variable of the
// interface type. (A script value in a composite literal of a compiled
// struct, vrvm.Regressor{Kernel: gaussian{}}, is not converted by yaegi
// v0.16.1.)
func Fit(x *mat.Dense, t []float64) (*vrvm.Regressor, error) {
	r := &vrvm.Regressor{}
	r.Kernel = gaussian{width: 3, calls: &Calls}
	return r, r.Fit(x, t)
}

func FitVar(x *mat.Dense, t []float64) (*vrvm.Regressor, error) {
	var k vrvm.Kernel = &gaussian{width: 3, calls: &Calls}
	r := &vrvm.Regressor{Kernel: k}
	return r, r.Fit(x, t)
}
`)
	data, err := datasets.Sinc(60, 0.1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}
	if err := want.Fit(data.X, data.T); err != nil {
		t.Fatal(err)
	}
	test := mat.NewDense(3, 1, []float64{-5, 0.5, 6})
	wm, _, err := want.Predict(test)
	if err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"Fit", "FitVar"} {
		t.Run(name, func(t *testing.T) {
			symbol(t, i, "Calls").SetInt(0)
			fit := symbol(t, i, name).Interface().(func(*mat.Dense, []float64) (*vrvm.Regressor, error))
			got, err := fit(data.X, data.T)
			if err != nil {
				t.Fatal(err)
			}
			if n := int64(len(data.T)); symbol(t, i, "Calls").Int() < n*n {
				t.Errorf("the script kernel was called %d times, want at least N² = %d", symbol(t, i, "Calls").Int(), n*n)
			}
			if _, ok := got.Kernel.(vrvm.Gaussian); ok {
				t.Fatal("the fit used the library's Gaussian")
			}

			// The same operations in the same order: equal up to
			// rounding, which may differ where the compiler fuses a
			// multiply and an add.
			const tol = 1e-9
			if !scalar.EqualWithinAbsOrRel(got.LowerBound(), want.LowerBound(), tol, tol) {
				t.Errorf("lower bound %v with the script kernel, %v with vrvm.Gaussian", got.LowerBound(), want.LowerBound())
			}
			if g, w := got.RelevanceVectors(), want.RelevanceVectors(); !reflect.DeepEqual(g, w) {
				t.Errorf("relevance vectors %v with the script kernel, %v with vrvm.Gaussian", g, w)
			}
			gm, _, err := got.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			for k := range gm {
				if !scalar.EqualWithinAbsOrRel(gm[k], wm[k], tol, tol) {
					t.Errorf("prediction %d: %v with the script kernel, %v with vrvm.Gaussian", k, gm[k], wm[k])
				}
			}
		})
	}
}

// TestScriptXYer checks that a type defined in a script satisfies
// plotter.XYer and that the compiled plotters read its points.
func TestScriptXYer(t *testing.T) {
	i := evalScript(t, `package main

import "gonum.org/v1/plot/plotter"

type parabola struct{ n int }

func (p parabola) Len() int { return p.n }

func (p parabola) XY(i int) (x, y float64) {
	x = float64(i) - 2
	return x, x*x + 0.5
}

var _ plotter.XYer = parabola{}

func Copy() (plotter.XYs, error) { return plotter.CopyXYs(parabola{5}) }

func Scatter() (*plotter.Scatter, error) { return plotter.NewScatter(parabola{4}) }

func Range() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(parabola{5}) }
`)
	want := plotter.XYs{{X: -2, Y: 4.5}, {X: -1, Y: 1.5}, {X: 0, Y: 0.5}, {X: 1, Y: 1.5}, {X: 2, Y: 4.5}}

	got, err := symbol(t, i, "Copy").Interface().(func() (plotter.XYs, error))()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CopyXYs = %v, want %v", got, want)
	}

	s, err := symbol(t, i, "Scatter").Interface().(func() (*plotter.Scatter, error))()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.XYs, want[:4]) {
		t.Errorf("NewScatter points = %v, want %v", s.XYs, want[:4])
	}

	xmin, xmax, ymin, ymax := symbol(t, i, "Range").Interface().(func() (float64, float64, float64, float64))()
	if xmin != -2 || xmax != 2 || ymin != 0.5 || ymax != 4.5 {
		t.Errorf("XYRange = %v %v %v %v, want -2 2 0.5 4.5", xmin, xmax, ymin, ymax)
	}
}

//go:embed benchfit_test.go
var benchFitSource string

// BenchmarkInterpretedFit times benchFit, a script's data preparation, fit
// and prediction, compiled and interpreted in turn in the same iteration,
// and reports the mean time of each and their ratio, interpreted/compiled,
// on the clock and in CPU time of the process (steadier on a shared
// machine). Most of the time is spent in the compiled fit either way.
func BenchmarkInterpretedFit(b *testing.B) {
	i := evalScript(b, benchFitSource)
	interpreted := symbol(b, i, "benchFit").Interface().(func(int) float64)
	for _, n := range []int{500} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			var onCompiled, onInterpreted timing
			for k := 0; b.Loop(); k++ {
				var c, v float64
				if k%2 == 0 {
					onCompiled.time(func() { c = benchFit(n) })
					onInterpreted.time(func() { v = interpreted(n) })
				} else {
					onInterpreted.time(func() { v = interpreted(n) })
					onCompiled.time(func() { c = benchFit(n) })
				}
				if c != v {
					b.Fatalf("compiled %v, interpreted %v", c, v)
				}
			}
			reportRatio(b, onCompiled, onInterpreted)
		})
	}
}

// BenchmarkScriptKernel compares a fit with the library's Gaussian kernel
// to one with the same kernel written in a script, whose every evaluation
// is a call from compiled into interpreted code.
func BenchmarkScriptKernel(b *testing.B) {
	i := evalScript(b, benchFitSource)
	interpreted := symbol(b, i, "benchKernelFit").Interface().(func(int, bool) float64)
	for _, n := range []int{100, 500} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			var onCompiled, onInterpreted timing
			for b.Loop() {
				onCompiled.time(func() { benchKernelFit(n, false) })
				onInterpreted.time(func() { interpreted(n, true) })
			}
			reportRatio(b, onCompiled, onInterpreted)
		})
	}
}

// timing accumulates the clock and CPU time of calls.
type timing struct {
	clock, cpu time.Duration
	cpuOK      bool
}

func (t *timing) time(f func()) {
	cpu0, ok0 := processCPU()
	start := time.Now()
	f()
	t.clock += time.Since(start)
	cpu1, ok1 := processCPU()
	t.cpu += cpu1 - cpu0
	t.cpuOK = ok0 && ok1
}

func reportRatio(b *testing.B, compiled, interpreted timing) {
	n := float64(b.N)
	b.ReportMetric(float64(compiled.clock.Nanoseconds())/n, "compiled-ns/op")
	b.ReportMetric(float64(interpreted.clock.Nanoseconds())/n, "interpreted-ns/op")
	b.ReportMetric(float64(interpreted.clock)/float64(compiled.clock), "interpreted/compiled")
	if compiled.cpuOK && interpreted.cpuOK && compiled.cpu > 0 {
		b.ReportMetric(float64(interpreted.cpu)/float64(compiled.cpu), "interpreted/compiled-cpu")
	}
}
