package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
)

// What the rewritten source reports back while it runs (see rewrite.go):
// the values the REPL prints, the statement a panic came from, and the
// functions the panic unwound.

// A positionTable holds the positions of the statements that the rewrite
// numbered, index 0 meaning none.
type positionTable struct {
	mu  sync.Mutex
	pos []string
}

func (t *positionTable) add(p string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pos) == 0 {
		t.pos = []string{""}
	}
	t.pos = append(t.pos, p)
	return len(t.pos) - 1
}

// current returns the position of the last numbered statement that i
// started, or "" if there is none.
func (t *positionTable) current(i *interp.Interpreter) string {
	v, ok := i.Globals()[posVar]
	if !ok || !v.IsValid() || !v.CanInt() {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := v.Int(); k > 0 && k < int64(len(t.pos)) {
		return t.pos[k]
	}
	return ""
}

// hooks are the functions the rewritten input of the REPL calls, exported
// to the interpreter as the package rtPath.
type hooks struct {
	mu      sync.Mutex
	results []any // the values passed to Show
	shown   bool
	ctx     context.Context // of the running evaluation
	caller  uint64          // the goroutine that last called Context in it, 0 if none
	stderr  io.Writer       // for the panics of goroutines (see Go)
}

// Context returns the context of the running evaluation, which Ctrl-C
// cancels; the rewritten input passes it to the compiled methods that take
// one (r.Fit becomes r.FitContext, see contextCalls).
func (h *hooks) Context() context.Context {
	g := goroutineID()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.caller = g
	if h.ctx == nil {
		return context.Background()
	}
	return h.ctx
}

// setContext records the context of the evaluation that starts.
func (h *hooks) setContext(ctx context.Context) {
	h.mu.Lock()
	h.ctx, h.caller = ctx, 0
	h.mu.Unlock()
}

// awaitCalls waits, for at most limit, until the compiled call of an
// interrupted evaluation that took the context returns. yaegi's
// EvalWithContext returns as soon as its context is cancelled and leaves
// the goroutine of the evaluation running until the compiled call it is
// in returns; a fit notices the cancellation within its latency and then
// settles its state (Status Canceled, docs "Fit contract"). Without the
// wait the next input would read the estimator while the fit still runs
// (and see NotFitted, the state a fit starts from). The goroutine of the
// call is the one that called Context, which ends once the evaluation
// returns. It reports whether the call returned in time.
func (h *hooks) awaitCalls(limit time.Duration) bool {
	h.mu.Lock()
	g := h.caller
	h.mu.Unlock()
	if g == 0 {
		return true
	}
	for deadline := time.Now().Add(limit); goroutineLive(g); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// goroutineID returns the id of the calling goroutine, from the first
// line of its stack trace ("goroutine 42 [running]:"), or 0.
func goroutineID() uint64 {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseUint(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return 0
}

// goroutineLive reports whether the goroutine with the given id exists
// (ids are never reused).
func goroutineLive(id uint64) bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	head := []byte(fmt.Sprintf("goroutine %d [", id))
	return bytes.HasPrefix(buf, head) || bytes.Contains(buf, append([]byte("\n\n"), head...))
}

// Show records the values the REPL prints.
func (h *hooks) Show(v ...any) {
	h.mu.Lock()
	h.results, h.shown = v, true
	h.mu.Unlock()
}

// reset forgets the values shown.
func (h *hooks) reset() {
	h.mu.Lock()
	h.results, h.shown = nil, false
	h.mu.Unlock()
}

// useHooks exports new hooks to i as the package rtPath; the panics of
// goroutines go to stderr.
func useHooks(i *interp.Interpreter, stderr io.Writer) (*hooks, error) {
	h := &hooks{stderr: stderr}
	show := reflect.ValueOf(h.Show)
	err := i.Use(interp.Exports{
		rtPath + "/rt": {
			"Show": show, "Context": reflect.ValueOf(h.Context),
			"Go": reflect.ValueOf(h.Go), "GoSpread": reflect.ValueOf(h.GoSpread),
		},
		// Values of script types with a String or Error method reach
		// Show through yaegi's wrappers for fmt.Stringer and error, as
		// they reach fmt.Print.
		".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{
			show: {reflect.TypeFor[error](), reflect.TypeFor[fmt.Stringer]()},
		})},
	})
	return h, err
}

// A panicFilter is the standard error of the interpreter. As the panic of
// a program unwinds an interpreted function, yaegi writes a line
// "file:line:col: panic: main.f(...)" whose position is that of the
// function's first statement (after the rewrite, of the first
// assignment to _vrvmP), not of the call that panicked. panicFilter keeps
// these lines from the output and records the function names, for the
// report of the panic.
type panicFilter struct {
	w     io.Writer
	mu    sync.Mutex
	funcs []frameLine
}

// A frameLine is a line written by yaegi for an interpreted function that
// a panic unwound.
type frameLine struct {
	name string // main.f
}

const maxFrameLines = 100

var yaegiPanicLine = regexp.MustCompile(`^\S*?:?\d+:\d+: panic: (\S+)\(\.\.\.\)\n$`)

func (f *panicFilter) Write(b []byte) (int, error) {
	if m := yaegiPanicLine.FindSubmatch(b); m != nil {
		f.mu.Lock()
		// A panic that the program recovers leaves lines too, for the
		// functions unwound below the one that recovered: keep the
		// last ones only.
		if len(f.funcs) == maxFrameLines {
			f.funcs = f.funcs[1:]
		}
		f.funcs = append(f.funcs, frameLine{string(m[1])})
		f.mu.Unlock()
		return len(b), nil
	}
	return f.w.Write(b)
}

// take returns the lines recorded since the last call.
func (f *panicFilter) take() []frameLine {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.funcs
	f.funcs = nil
	return l
}
