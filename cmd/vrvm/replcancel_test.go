package main

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/vrvm/vrvm/vrvm"
)

// designInterrupt is a Gaussian kernel that sends an interrupt at its
// first evaluation and then takes its time, so that Ctrl-C lands while a
// fit builds its design, before its first iteration.
type designInterrupt struct {
	interrupt chan<- os.Signal
	n         *atomic.Int64
}

func (k designInterrupt) Eval(x, y []float64) float64 {
	switch n := k.n.Add(1); {
	case n == 1:
		k.interrupt <- os.Interrupt
	case n <= 300:
		time.Sleep(time.Millisecond) // the fit is slow to notice
	}
	return vrvm.Gaussian{Width: 1}.Eval(x, y)
}

// TestREPLInterruptDesign: a plain r.Fit interrupted while it builds its
// design leaves r Canceled with no posterior (vrvm's fit contract), as
// the very next input sees it: the REPL waits for the interrupted
// compiled call to return before it reads on (yaegi's EvalWithContext
// returns as soon as its context is cancelled).
func TestREPLInterruptDesign(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	lines := newPipeLines(strings.NewReader(`import "probe"
d, _ := datasets.Sinc(300, 0.1, 1)
r := &vrvm.Regressor{Kernel: probe.Kernel}
r.Fit(d.X, d.T)
r.Status()
r.Iterations()
`))
	i, err := newREPLInterpreter(lines, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	interrupt := make(chan os.Signal, 1)
	k := designInterrupt{interrupt: interrupt, n: new(atomic.Int64)}
	if err := i.Use(interp.Exports{"probe/probe": {"Kernel": reflect.ValueOf(&k).Elem()}}); err != nil {
		t.Fatal(err)
	}
	repl(i, lines, &stdout, &stderr, interrupt)
	out := stdout.String()
	if !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("the fit was not interrupted; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(out, ": canceled\n: 0\n") {
		t.Errorf("after Ctrl-C during the design, r.Status() and r.Iterations() print\n%s\nwant canceled and 0; stderr:\n%s", out, stderr.String())
	}
}
