package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peterh/liner"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/vrvm/vrvm/jupyter/source"
	"github.com/vrvm/vrvm/symbols"
)

func init() {
	register(&command{
		name:  "repl",
		short: "interactive Go prompt with the vrvm, gonum and plot packages",
		run:   replCommand,
	})
}

const replUsage = `Usage: vrvm repl

Repl reads Go statements, declarations and expressions, evaluates each as
soon as it is complete, and prints after ": " every result of an
expression (": [] [] vrvm: no rows to predict" for the three results of
Predict), the variables an assignment or x++ set, and nothing for a
declaration or another statement. It knows the packages of "vrvm run"
and uses them under their names without an import statement, the
standard library and

%s

draw and palette are gonum/plot's (import image/draw or
image/color/palette under another name); a name that standard packages
share (rand, template, scanner) needs an import. Importing a package that
is already imported under the same name does nothing, so Go code with its
import block can be pasted.

A value with a String or Error method is printed by it, a matrix as a
matrix (its corners if it is large), anything else as a composite literal
of its exported fields that are not zero, with slices and maps cut after
%d elements ("… (94 more)"); pointers print as & and what they point to.
An error is printed on one line: a compilation error at its line:column
in the input, a panic at the line:column of the statement that panicked
(in the input that declared it), with its value and the function. An
input that does not compile declares nothing. A panic in a goroutine
started at the prompt is printed and ends that goroutine only.

When standard input is a terminal the prompt is "> ", "... " while the
input is incomplete, with line editing, Tab completion (names, package
members, fields and methods) and a history kept in
%s.
Otherwise (a pipe or a file) no prompt is printed and the exit status is 1
if any evaluation failed.
`

const replHelp = `Enter Go code: statements, declarations (func, type, var, const, import)
and expressions. Input that is not yet complete (an open brace or
parenthesis, an unterminated raw string) continues on the next line.
Every result of an expression, or the variables an assignment set, is
printed as ": value". Tab completes names, package members, fields and
methods.

Commands, at the start of an input:
  :doc NAME  the documentation of a package, a member (vrvm.Regressor,
             mat.NewDense), a method or field (vrvm.Regressor.Fit), or of
             the type, method or field of a variable (r, r.Fit, r.Kernel)
  :vars      the variables of the session with their types and values
  :help      this text
  :quit      leave (so does end of input, Ctrl-D)

Ctrl-C abandons the input being typed, or interrupts a running evaluation;
an interrupted r.Fit stops within its cancellation latency and leaves r with
Status Canceled before the next prompt.
`

// replCommand is the "repl" command.
func replCommand(args []string, stdout, stderr io.Writer) int {
	history := historyPath()
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		where := history
		if where == "" {
			where = "no file (the user cache directory is unknown)"
		}
		fmt.Fprintf(fs.Output(), replUsage, symbolPackages(), printElems, where)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "vrvm repl: unexpected arguments %q\n", fs.Args())
		return 2
	}

	var lines lineReader
	interactive := isTerminal(os.Stdin)
	if interactive {
		lines = newTermLines(history)
	} else {
		lines = newPipeLines(os.Stdin)
	}

	i, err := newREPLInterpreter(lines, stdout, stderr)
	if err != nil {
		_ = lines.Close()
		fmt.Fprintf(stderr, "vrvm repl: %v\n", err)
		return 1
	}
	if t, ok := lines.(*termLines); ok {
		t.state.SetWordCompleter(i.complete)
	}

	// A Ctrl-C while an evaluation runs cancels it. While a line is read
	// the terminal is in raw mode and Ctrl-C arrives as a key instead.
	var interrupt chan os.Signal
	if interactive {
		interrupt = make(chan os.Signal, 1)
		signal.Notify(interrupt, os.Interrupt)
		defer signal.Stop(interrupt)
	}

	failed := repl(i, lines, stdout, stderr, interrupt)
	if err := lines.Close(); err != nil {
		fmt.Fprintf(stderr, "vrvm repl: %v\n", err)
	}
	if failed && !interactive {
		return 1
	}
	return 0
}

// newREPLInterpreter returns the interpreter of "vrvm run" with the
// packages imported under their names, as yaegi's REPL does. os.Exit
// closes lines (restoring the terminal, saving the history) before it ends
// the process.
func newREPLInterpreter(lines lineReader, stdout, stderr io.Writer) (*replInterp, error) {
	panics := &panicFilter{w: stderr}
	i, err := newInterpreter(interp.Options{
		Args:   []string{"repl"},
		Stdin:  os.Stdin,
		Stdout: stdout,
		Stderr: panics,
	})
	if err != nil {
		return nil, err
	}
	err = i.Use(interp.Exports{"os/os": {"Exit": reflect.ValueOf(func(code int) {
		_ = lines.Close()
		os.Exit(code)
	})}})
	if err != nil {
		return nil, err
	}
	imports, err := autoImport(i)
	if err != nil {
		return nil, err
	}
	// After autoImport, which would import the hooks under their name.
	h, err := useHooks(i, stderr)
	if err != nil {
		return nil, err
	}
	if _, err := i.Eval(fmt.Sprintf("import %s %q\nvar %s int", rtName, rtPath, posVar)); err != nil {
		return nil, err
	}
	return &replInterp{Interpreter: i, imports: imports, hooks: h, panics: panics, positions: &positionTable{}, session: newSession(),
		contextMethods: contextMethods()}, nil
}

// replInterp is the interpreter of the REPL, the import declarations it
// has evaluated and what the session declared.
type replInterp struct {
	*interp.Interpreter
	imports   importSet
	hooks     *hooks
	panics    *panicFilter
	positions *positionTable // of the statements of the inputs
	session   *session
	// contextMethods are the compiled methods and functions M whose
	// calls become calls of their sibling MContext (see contextCalls).
	contextMethods map[string]string
}

// autoImport makes every package the interpreter knows usable under its
// name without an import statement, as yaegi's REPL does with ImportUsed.
// ImportUsed gives a name that several packages share to none of them;
// autoImport gives it to the package of symbols.Symbols if there is one:
// draw is gonum/plot's vg/draw, palette is plot/palette. A name shared by
// standard packages only (rand, template, scanner…) needs an import.
func autoImport(i *interp.Interpreter) (importSet, error) {
	i.ImportUsed()
	byName := map[string]map[string]bool{} // last element of the import path → import paths
	for _, exports := range []interp.Exports{stdlib.Symbols, symbols.Symbols} {
		for key := range exports {
			dir := path.Dir(key)
			if dir == "." || strings.HasPrefix(dir, "github.com/traefik/yaegi/") {
				continue // yaegi's own entries
			}
			name := path.Base(dir)
			if byName[name] == nil {
				byName[name] = map[string]bool{}
			}
			byName[name][dir] = true
		}
	}
	var imports []string
	for _, dirs := range byName {
		if len(dirs) < 2 {
			continue
		}
		var ours []string
		for dir := range dirs {
			if _, ok := symbols.Symbols[dir+"/"+path.Base(dir)]; ok {
				ours = append(ours, dir)
			}
		}
		if len(ours) == 1 {
			imports = append(imports, ours[0])
		}
	}
	sort.Strings(imports)
	set := importSet{}
	for _, p := range imports {
		if _, err := i.Eval(fmt.Sprintf("import %q", p)); err != nil {
			return nil, err
		}
		set[p] = path.Base(p)
	}
	return set, nil
}

// An importSet holds the packages imported by import declarations at the
// prompt, import path → name. yaegi rejects a second import of a package
// under the same name ("redeclared in this block"); Go code pasted at the
// prompt often repeats imports, so the REPL drops those.
type importSet map[string]string

// filter returns src without the imports of packages already imported
// under the same name, and the imports it keeps. ok is false, and src is to
// be evaluated as it is, unless src consists of import declarations only.
func (s importSet) filter(src string) (out string, kept importSet, ok bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+src, 0)
	if err != nil || len(f.Decls) == 0 {
		return src, nil, false
	}
	for _, d := range f.Decls {
		if g, isGen := d.(*ast.GenDecl); !isGen || g.Tok != token.IMPORT {
			return src, nil, false
		}
	}
	kept = importSet{}
	var b strings.Builder
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return src, nil, false
		}
		name := packageName(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name != "" && s[p] == name {
			continue
		}
		if spec.Name != nil {
			b.WriteString(spec.Name.Name + " ")
		}
		b.WriteString(spec.Path.Value + "\n")
		if name != "" {
			kept[p] = name
		}
	}
	if b.Len() == 0 {
		return "", kept, true
	}
	return "import (\n" + b.String() + ")\n", kept, true
}

// packageName returns the name of the compiled package with the import path
// p, or "" if the interpreter does not know it.
func packageName(p string) string {
	for _, exports := range []interp.Exports{symbols.Symbols, stdlib.Symbols} {
		for key := range exports {
			if path.Dir(key) == p {
				return path.Base(key)
			}
		}
	}
	return ""
}

// repl runs the read-eval-print loop until the end of input or :quit. It
// reports whether any evaluation failed.
func repl(i *replInterp, lines lineReader, stdout, stderr io.Writer, interrupt <-chan os.Signal) (failed bool) {
	var src string // input read so far for the current evaluation
	for {
		prompt := "> "
		if src != "" {
			prompt = "... "
		}
		line, err := lines.ReadLine(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			src = "" // Ctrl-C: abandon the input
			continue
		case errors.Is(err, io.EOF):
			if strings.TrimSpace(src) != "" {
				// Report what is wrong with the unfinished input.
				if _, err := evalInterruptible(i.Interpreter, src, interrupt, i.hooks); err != nil {
					i.report(stderr, err)
					failed = true
				}
			}
			return failed
		case err != nil:
			fmt.Fprintf(stderr, "vrvm repl: %v\n", err)
			return true
		}
		lines.AddHistory(line)

		if src == "" {
			quit, ok := i.command(strings.TrimSpace(line), stdout, stderr)
			if quit {
				return failed
			}
			if ok {
				continue
			}
		}

		src += line + "\n"
		eval, kept, isImport := i.imports.filter(src)
		if isImport && eval == "" {
			src = "" // imported already
			continue
		}
		results, shown, err := i.eval(eval, interrupt)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) && len(list) > 0 && incomplete(list[0], line) {
				continue // read one more line
			}
			i.report(stderr, err)
			failed = true
		} else {
			for p, name := range kept {
				i.imports[p] = name
			}
			i.session.declare(i.Interpreter, eval)
			if shown {
				fmt.Fprintln(stdout, ":", formatResults(results, i.session.typeNames()))
			}
		}
		src = ""
	}
}

// command runs the REPL command cmd, an input that starts with ":", and
// reports whether it was one (ok) and whether it is :quit. An empty input
// is a command that does nothing.
func (i *replInterp) command(cmd string, stdout, stderr io.Writer) (quit, ok bool) {
	name, arg, _ := strings.Cut(cmd, " ")
	arg = strings.TrimSpace(arg)
	switch {
	case cmd == "":
	case name == ":quit" || name == ":q":
		return true, true
	case name == ":help" || name == ":h" || name == ":?":
		fmt.Fprint(stdout, replHelp)
	case name == ":vars":
		fmt.Fprint(stdout, i.session.vars(i.Interpreter))
	case name == ":doc":
		if arg == "" {
			fmt.Fprintln(stderr, ":doc needs a name, such as :doc vrvm.Regressor or :doc r.Fit")
			break
		}
		text, err := i.doc(arg)
		if err != nil {
			fmt.Fprintln(stderr, err)
			break
		}
		fmt.Fprint(stdout, text)
	case strings.HasPrefix(cmd, ":"):
		fmt.Fprintf(stderr, "unknown command %s; :help lists the commands\n", name)
	default:
		return false, false
	}
	return false, true
}

// eval evaluates src, an input of the REPL, and returns the values to
// print, if shown. The input is rewritten first (see replInput); if the
// form with the call that shows the values does not compile (a call of a
// function without results, an untyped constant that overflows int), the
// input is evaluated without it and shows nothing. The calls of compiled
// methods with a sibling that takes a context are rewritten by name (see
// contextCalls); if the rewritten input does not compile, it is evaluated
// as written.
func (i *replInterp) eval(src string, interrupt <-chan os.Signal) (results []any, shown bool, err error) {
	methods := i.contextMethods
	with, _ := replInput(src, i.imports, &positionTable{}, methods)
	if without, _ := replInput(src, i.imports, &positionTable{}, nil); with.text == without.text {
		methods = nil // no call to rewrite
	}
	if needsPrecheck(src) {
		// A failed declaration must define nothing (see replerror.go),
		// nor may a context rewrite that does not compile.
		if err := precheck(i.Interpreter, src); err != nil {
			return nil, false, err
		}
		if methods != nil && precheck(i.Interpreter, with.text) != nil {
			methods = nil
		}
	}
	results, shown, err = i.evalRewritten(src, interrupt, methods)
	if err == nil || !compileError(err) || methods == nil {
		return results, shown, err
	}
	// A script type's Fit without a FitContext does not compile with the
	// rewrite.
	if r, sh, err2 := i.evalRewritten(src, interrupt, nil); err2 == nil || !compileError(err2) {
		return r, sh, err2
	}
	return results, shown, err
}

// evalRewritten is eval with the given context methods (see
// contextCalls); an error's position is that of src.
func (i *replInterp) evalRewritten(src string, interrupt <-chan os.Signal, methods map[string]string) (results []any, shown bool, err error) {
	plain, show := replInput(src, i.imports, i.positions, methods)
	i.hooks.reset()
	i.panics.take() // lines of panics recovered by earlier inputs
	if v := i.Globals()[posVar]; v.CanSet() {
		v.SetInt(0) // no statement of this input has started
	}
	if show.text != "" {
		_, err = evalInterruptible(i.Interpreter, show.text, interrupt, i.hooks)
		if err == nil || !compileError(err) {
			i.hooks.mu.Lock()
			defer i.hooks.mu.Unlock()
			return i.hooks.results, i.hooks.shown && err == nil, err
		}
	}
	_, err = evalInterruptible(i.Interpreter, plain.text, interrupt, i.hooks)
	return nil, false, mapEvalError(err, src, plain.text, plain.ins)
}

// compileError reports whether err, returned by an evaluation, comes from
// compiling the input rather than from running it.
func compileError(err error) bool {
	var p interp.Panic
	if errors.As(err, &p) {
		return compilePanic(p)
	}
	return !errors.Is(err, context.Canceled)
}

// report writes the error of an evaluation to w on one line: a
// compilation error with its position in the input, a panic with its value
// and where it happened.
func (i *replInterp) report(w io.Writer, err error) {
	frames := i.panics.take()
	var p interp.Panic
	if errors.As(err, &p) && compilePanic(p) {
		// Not a panic of the program: the interpreter failed on the input.
		fmt.Fprintf(w, "the interpreter (yaegi) cannot compile this input: %s\n", panicValue(p.Value))
		return
	}
	if !errors.As(err, &p) {
		reportEvalError(w, err, interp.DefaultSourceName)
		return
	}
	where := compiledCaller(p.Callers)
	if len(frames) > 0 && frames[0].name != "main" { // main: the input itself
		if where != "" {
			where += ", called from "
		}
		where += frames[0].name
	}
	if where != "" {
		where = " [in " + where + "]"
	}
	if site := i.positions.current(i.Interpreter); site != "" {
		fmt.Fprintf(w, "%s: ", site)
	}
	fmt.Fprintf(w, "panic: %s%s\n", panicValue(p.Value), where)
}

// evalInterruptible evaluates src; a value received from interrupt while it
// runs cancels the evaluation. A panic is returned as an interp.Panic.
func evalInterruptible(i *interp.Interpreter, src string, interrupt <-chan os.Signal, h *hooks) (reflect.Value, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if h != nil {
		h.setContext(ctx) // for the compiled calls the input makes (contextCalls)
	}
	// Drop an interrupt that arrived between evaluations.
	select {
	case <-interrupt:
	default:
	}
	// The goroutine that waits for an interrupt ends before the
	// evaluation returns, so that none is left to take the interrupt
	// meant for the next evaluation.
	done := make(chan struct{})
	var waiter sync.WaitGroup
	defer waiter.Wait()
	defer close(done)
	waiter.Add(1)
	go func() {
		defer waiter.Done()
		select {
		case <-interrupt:
			cancel()
		case <-done:
		}
	}()
	v, err := i.EvalWithContext(ctx, src)
	if ctx.Err() != nil && h != nil && !h.awaitCalls(callGrace) {
		fmt.Fprintf(h.stderr, "vrvm repl: the interrupted call has not returned after %v; it goes on in the background\n", callGrace)
	}
	return v, err
}

// callGrace is how long the REPL waits, after Ctrl-C, for an interrupted
// compiled call to return before it reads the next input.
const callGrace = 10 * time.Second

// contextMethods returns the methods and functions of the symbol set with
// a sibling that takes a context (source.ContextMethods).
func contextMethods() map[string]string {
	m := map[string]string{}
	for _, pkg := range symbols.Symbols {
		var types []reflect.Type
		funcs := map[string]reflect.Value{}
		for name, v := range pkg {
			switch {
			case !v.IsValid() || strings.HasPrefix(name, "_"):
			case v.Kind() == reflect.Pointer && v.IsNil() && !v.CanSet():
				types = append(types, v.Type().Elem()) // yaegi's (*T)(nil) for type T
			case v.Kind() == reflect.Func:
				funcs[name] = v
			}
		}
		for name, sib := range source.ContextMethods(types, funcs) {
			m[name] = sib
		}
	}
	return m
}

// incomplete reports whether the parse error e of input ending with line
// means that the input is unfinished rather than wrong, so that the next
// line should be appended. These are the rules of yaegi's own REPL
// (interp.ignoreScannerError, not exported).
func incomplete(e *scanner.Error, line string) bool {
	switch {
	case strings.HasSuffix(e.Msg, "found 'EOF'"):
		return true
	case e.Msg == "raw string literal not terminated":
		return true
	case strings.HasPrefix(e.Msg, "expected operand, found '}'") && !strings.HasSuffix(line, "}"):
		return true
	}
	return false
}

// A lineReader reads the input of the REPL one line at a time.
type lineReader interface {
	// ReadLine returns the next line without its end-of-line, io.EOF at
	// the end of input and liner.ErrPromptAborted when the user abandons
	// the line. prompt is shown if the input is a terminal.
	ReadLine(prompt string) (string, error)
	// AddHistory records a line in the history, if there is one.
	AddHistory(line string)
	// Close releases the input and saves the history.
	Close() error
}

// pipeLines reads lines from a non-terminal input; it shows no prompt and
// keeps no history.
type pipeLines struct{ s *bufio.Scanner }

func newPipeLines(r io.Reader) *pipeLines {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<24) // long generated lines
	return &pipeLines{s}
}

func (p *pipeLines) ReadLine(string) (string, error) {
	if p.s.Scan() {
		return p.s.Text(), nil
	}
	if err := p.s.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (p *pipeLines) AddHistory(string) {}
func (p *pipeLines) Close() error      { return nil }

// termLines reads lines from a terminal with line editing (liner) and a
// history file.
type termLines struct {
	state   *liner.State
	history string // file name; "" for no history file
	closed  bool
}

func newTermLines(history string) *termLines {
	t := &termLines{state: liner.NewLiner(), history: history}
	t.state.SetCtrlCAborts(true)
	t.state.SetMultiLineMode(true)
	if history != "" {
		if f, err := os.Open(history); err == nil {
			_, _ = t.state.ReadHistory(f)
			_ = f.Close()
		}
	}
	return t
}

func (t *termLines) ReadLine(prompt string) (string, error) {
	return t.state.Prompt(prompt)
}

func (t *termLines) AddHistory(line string) {
	if strings.TrimSpace(line) != "" {
		t.state.AppendHistory(line)
	}
}

// Close restores the terminal and writes the history file.
func (t *termLines) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var err error
	if t.history != "" {
		err = t.saveHistory()
	}
	if cerr := t.state.Close(); err == nil {
		err = cerr
	}
	return err
}

func (t *termLines) saveHistory() error {
	if err := os.MkdirAll(filepath.Dir(t.history), 0o755); err != nil {
		return err
	}
	f, err := os.Create(t.history)
	if err != nil {
		return err
	}
	if _, err := t.state.WriteHistory(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// symbolPackages lists the names of the packages of symbols.Symbols,
// wrapped and indented.
func symbolPackages() string {
	var names []string
	for key := range symbols.Symbols {
		names = append(names, path.Base(key))
	}
	sort.Strings(names)
	var b strings.Builder
	line := "\t"
	for k, name := range names {
		if k < len(names)-1 {
			name += ","
		}
		if len(line) > 1 && len(line)+1+len(name) > 64 {
			b.WriteString(line + "\n")
			line = "\t"
		}
		if len(line) > 1 {
			line += " "
		}
		line += name
	}
	b.WriteString(line)
	return b.String()
}

// historyPath returns the REPL history file, vrvm/repl_history in the
// user cache directory, or "" if there is no such directory.
func historyPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vrvm", "repl_history")
}

// isTerminal reports whether f is a character device, as yaegi decides
// whether to show a prompt.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
