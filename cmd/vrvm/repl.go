package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/peterh/liner"
	"github.com/traefik/yaegi/interp"
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
soon as it is complete, and prints the value of each evaluation as
": value", as yaegi's REPL does. It knows the packages of "vrvm run"; they
are imported under their package name without an import statement (mat,
floats, stat, distuv, optimize, plot, plotter, vg, vrvm, datasets…) except
where two names collide (math/rand and crypto/rand): import those
explicitly.

When standard input is a terminal the prompt is "> ", "... " while a
statement is incomplete, with line editing and a history kept in
%s.
Otherwise (a pipe or a file) no prompt is printed and the exit status is 1
if any evaluation failed.
`

const replHelp = `Enter Go code: statements, declarations (func, type, var, const, import)
and expressions. Input that is not yet complete (an open brace or
parenthesis, an unterminated raw string) continues on the next line.
The value of each evaluation is printed as ": value".

Commands, at the start of an input:
  :help   this text
  :quit   leave (so does end of input, Ctrl-D)

Ctrl-C abandons the input being typed, or interrupts a running evaluation.
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
		fmt.Fprintf(fs.Output(), replUsage, where)
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
func newREPLInterpreter(lines lineReader, stdout, stderr io.Writer) (*interp.Interpreter, error) {
	i, err := newInterpreter(interp.Options{
		Args:   []string{"repl"},
		Stdin:  os.Stdin,
		Stdout: stdout,
		Stderr: stderr,
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
	i.ImportUsed()
	return i, nil
}

// repl runs the read-eval-print loop until the end of input or :quit. It
// reports whether any evaluation failed.
func repl(i *interp.Interpreter, lines lineReader, stdout, stderr io.Writer, interrupt <-chan os.Signal) (failed bool) {
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
				if _, err := evalInterruptible(i, src, interrupt); err != nil {
					reportEvalError(stderr, err, interp.DefaultSourceName)
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
			switch cmd := strings.TrimSpace(line); {
			case cmd == "":
				continue
			case cmd == ":quit" || cmd == ":q":
				return failed
			case cmd == ":help" || cmd == ":h" || cmd == ":?":
				fmt.Fprint(stdout, replHelp)
				continue
			case strings.HasPrefix(cmd, ":"):
				fmt.Fprintf(stderr, "unknown command %s; :help lists the commands\n", cmd)
				continue
			}
		}

		src += line + "\n"
		v, err := evalInterruptible(i, src, interrupt)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) && len(list) > 0 && incomplete(list[0], line) {
				continue // read one more line
			}
			reportEvalError(stderr, err, interp.DefaultSourceName)
			failed = true
		} else if v.IsValid() {
			fmt.Fprintln(stdout, ":", v)
		}
		src = ""
	}
}

// evalInterruptible evaluates src; a value received from interrupt while it
// runs cancels the evaluation. A panic is returned as an interp.Panic.
func evalInterruptible(i *interp.Interpreter, src string, interrupt <-chan os.Signal) (reflect.Value, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	// Drop an interrupt that arrived between evaluations.
	select {
	case <-interrupt:
	default:
	}
	go func() {
		select {
		case <-interrupt:
			cancel()
		case <-done:
		}
	}()
	return i.EvalWithContext(ctx, src)
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
