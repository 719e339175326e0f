package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"go/scanner"
	"io"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unrestricted"

	"github.com/vrvm/vrvm/symbols"
)

func init() {
	register(&command{
		name:  "run",
		short: "interpret a Go program with the compiled vrvm, gonum and plot packages",
		run:   runCommand,
	})
}

const runUsage = `Usage: vrvm run script.go [arguments]

Run interprets the Go program script.go (package main, with a main
function) with yaegi. The program may import the whole standard library,
the vrvm packages, gonum (mat, floats, stat, stat/distuv, optimize) and
gonum/plot: these are the compiled packages, so a fit runs at compiled
speed. Other imports are not available. Build constraints such as
"//go:build ignore" are not applied to script.go, as with "go run file.go".

Inside the program os.Args is script.go followed by the arguments, and the
flag package parses them. The program has the environment, standard input
and output of vrvm. os.Exit ends vrvm with the given status.

Exit status: that of os.Exit if the program calls it; 0 when main returns;
1 when the program does not compile (the message names file:line:column)
or the interpreter fails on it;
2 when it panics: the position of the statement of the script that
panicked, the panic value and the interpreted functions the panic
unwound, innermost first,

	script.go:18:3: panic: too big
		in main.mustCheck
		in main.main

then, for a panic of a compiled package or of the runtime, the goroutine
stack, as for a compiled program. The position is that of the innermost
statement that started of those that may panic (with a call, an index,
a selector, a type assertion or a division); statements of deferred
function literals are not tracked.

Types defined in the script satisfy the interfaces of the compiled
packages (vrvm.Kernel, plotter.XYer, plot.Plotter…), with two exceptions
of yaegi v0.16.1: a script value in a composite literal of a compiled
struct is not converted to an interface field, and neither is one passed
directly as a variadic interface argument of a compiled function. Assign
the field, or go through a variable of the interface type:

	r := &vrvm.Regressor{Kernel: myKernel{}} // panics: reflect.Set
	r := &vrvm.Regressor{}; r.Kernel = myKernel{} // works
	var k vrvm.Kernel = myKernel{}; r := &vrvm.Regressor{Kernel: k} // works

yaegi also keeps one loop variable for all iterations (the semantics before
Go 1.22) and does not support range over an integer.

yaegi v0.16.1 gets a return statement with several results wrong when one
of them is a call of a builtin function (len, cap, min, max, append, make,
new, complex, real, imag, copy, recover): the builtin's value goes to the
first result, so that

	func (g grid) Dims() (r, c int) { return len(g.rows), len(g.rows[0]) }

returns the number of columns twice, "return n, len(s)" returns n twice
and "return make([]int, n), len(s)" panics. "vrvm run" and "vrvm repl"
put such calls in parentheses before interpreting the source, which
avoids the defect; in Go interpreted by yaegi in another program, write
"return (len(a)), (len(b))" or assign the results to variables first.
Only columns move on the lines rewritten, never line numbers.
`

// runCommand is the "run" command.
func runCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), runUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "vrvm run: no script given")
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	if fi, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "vrvm run: %v\n", err)
		return 1
	} else if !fi.Mode().IsRegular() {
		fmt.Fprintf(stderr, "vrvm run: %s is not a file\n", path)
		return 1
	}

	// The interpreter hands the script its own copy of os.Args, but the
	// compiled flag package reads the process's os.Args and
	// flag.CommandLine: set both, as cmd/yaegi does, so that flag.Parse in
	// the script sees the script's arguments.
	scriptArgs := fs.Args()
	os.Args = scriptArgs
	flag.CommandLine = flag.NewFlagSet(path, flag.ExitOnError)
	flag.CommandLine.SetOutput(stderr)

	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "vrvm run: %v\n", err)
		return 1
	}
	panics := &panicFilter{w: stderr}
	positions := &positionTable{}
	i, err := newInterpreter(interp.Options{
		Args:   scriptArgs,
		Stdin:  os.Stdin,
		Stdout: stdout,
		Stderr: panics,
		// The script as rewritten by rewriteScript; other files (none,
		// as only compiled packages can be imported) as they are.
		SourcecodeFilesystem: scriptFS{path: path, src: []byte(rewriteScript(path, string(src), positions))},
	})
	if err != nil {
		fmt.Fprintf(stderr, "vrvm run: %v\n", err)
		return 1
	}
	if err := evalPath(i, path); err != nil {
		var p interp.Panic
		if errors.As(err, &p) {
			return reportPanic(stderr, p, positions.current(i), panics.take())
		}
		return reportEvalError(stderr, err, "")
	}
	return 0
}

// reportPanic writes the panic p of a script to w and returns the exit
// status 2: the position of the statement that panicked (site, "" if it is
// not known), the value, the interpreted functions the panic unwound,
// innermost first, and, unless the panic is a panic statement of the
// script, the Go stack, as a compiled program prints it.
func reportPanic(w io.Writer, p interp.Panic, site string, frames []frameLine) int {
	if site != "" {
		fmt.Fprintf(w, "%s: ", site)
	}
	fmt.Fprintf(w, "panic: %s\n", panicValue(p.Value))
	for _, f := range frames {
		fmt.Fprintf(w, "\tin %s\n", f.name)
	}
	if _, builtin := p.Value.(reflect.Value); !builtin {
		// yaegi's panic builtin panics with the reflect.Value of its
		// argument; other panics come from compiled code or the runtime.
		fmt.Fprintf(w, "\n%s", p.Stack)
	}
	return 2
}

// compiledCaller returns the innermost function of callers, the stack of a
// panic, that is compiled code of a package the script called: not the
// runtime, reflect, the interpreter, the symbol wrappers or this command.
func compiledCaller(callers []uintptr) string {
	frames := runtime.CallersFrames(callers)
	for {
		f, more := frames.Next()
		name := f.Function
		switch {
		case name == "", strings.HasPrefix(name, "runtime."), strings.HasPrefix(name, "reflect."),
			strings.HasPrefix(name, "github.com/traefik/yaegi/"), strings.HasPrefix(name, "github.com/vrvm/vrvm/symbols."),
			strings.HasPrefix(name, "main."), strings.HasPrefix(name, "sync."):
		default:
			return name
		}
		if !more {
			return ""
		}
	}
}

// scriptFS is the file system the interpreter reads the script from: the
// file path has the contents src, other files are read from disk.
type scriptFS struct {
	path string
	src  []byte
}

func (s scriptFS) Open(name string) (fs.File, error) {
	if name != s.path {
		return os.Open(name)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(s.src), info: memInfo{fi, int64(len(s.src))}}, nil
}

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	fs.FileInfo
	size int64
}

func (i memInfo) Size() int64 { return i.size }

// evalPath runs the program in the file path. A panic of the interpreter
// itself, outside the execution of the program (yaegi panics on some
// constructs it does not support while it compiles them), is returned as
// an *interpreterError.
func evalPath(i *interp.Interpreter, path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &interpreterError{path: path, value: r, stack: debug.Stack()}
		}
	}()
	_, err = i.EvalPath(path)
	return err
}

// An interpreterError is a panic of the interpreter while it compiled a
// program: a construct yaegi does not support rather than an error of the
// program.
type interpreterError struct {
	path  string
	value any
	stack []byte
}

func (e *interpreterError) Error() string {
	return fmt.Sprintf("%s: the interpreter (yaegi) failed on a construct it does not support: %s", e.path, panicValue(e.value))
}

// newInterpreter returns a yaegi interpreter that knows the standard
// library and the packages of symbols.Symbols. It is unrestricted, as a
// compiled program would be: os.Exit and log.Fatal end the process,
// os/exec is available and os.Getenv reads the real environment.
// opt.GoPath and opt.Unrestricted are set here.
func newInterpreter(opt interp.Options) (*interp.Interpreter, error) {
	opt.GoPath = build.Default.GOPATH
	opt.Unrestricted = true
	i := interp.New(opt)
	// unrestricted.Symbols replaces some stdlib.Symbols (os.Exit,
	// log.Fatal…) and must come after them.
	for _, s := range []interp.Exports{stdlib.Symbols, unrestricted.Symbols, symbols.Symbols} {
		if err := i.Use(s); err != nil {
			return nil, err
		}
	}
	return i, nil
}

// reportEvalError writes err, an error returned by an evaluation, to w in
// the form the Go tool chain uses, and returns the exit status for it: 2 for
// a panic of the program, 1 for anything else (a compilation error, or a
// failure of the interpreter). If trim is not empty, err comes from the
// REPL, whose input is the pseudo file trim: positions are printed without
// the file name, and of a list of syntax errors only the first.
func reportEvalError(w io.Writer, err error, trim string) int {
	strip := func(s string) string {
		if trim == "" {
			return s
		}
		return strings.ReplaceAll(s, trim+":", "")
	}
	var p interp.Panic
	if errors.As(err, &p) {
		// The interpreted call sites were already written to the
		// interpreter's standard error as the panic unwound them.
		fmt.Fprintf(w, "panic: %s\n\n%s", panicValue(p.Value), p.Stack)
		return 2
	}
	var ie *interpreterError
	if errors.As(err, &ie) {
		fmt.Fprintf(w, "%s\n\n%s", ie.Error(), ie.stack)
		return 1
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		if trim != "" {
			// At the prompt, the first error only, as yaegi's REPL:
			// the rest usually follows from it.
			list = list[:1]
		}
		for _, e := range list {
			fmt.Fprintln(w, strip(e.Error()))
		}
		return 1
	}
	fmt.Fprintln(w, strip(err.Error()))
	return 1
}

// panicValue formats a recovered panic value as the runtime prints it.
// yaegi's panic builtin panics with the reflect.Value of its argument.
func panicValue(v any) string {
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() || !rv.CanInterface() {
			return "<nil>"
		}
		v = rv.Interface()
	}
	switch v := v.(type) {
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case string:
		return v
	default:
		return formatValue(v, nil)
	}
}
