package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exit ends the process; a variable for tests.
var exit = os.Exit

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig syscall.Signal }

func (e *interrupted) Error() string { return "interrupted by " + e.sig.String() }

// signalStatus returns the exit status of a process ended by sig, as a
// shell reports it: 128 + the signal's number (SIGINT 130, SIGTERM 143).
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// interruptStatus returns the exit status of a command whose context ctx
// was cancelled by onInterrupt's signal: 128 + its number.
func interruptStatus(ctx context.Context) int {
	var e *interrupted
	if errors.As(context.Cause(ctx), &e) {
		return signalStatus(e.sig)
	}
	return 130
}

// onInterrupt returns a context cancelled by the first SIGINT or SIGTERM,
// at which "vrvm NAME: stopping…" is printed at once; the context's cause
// names the signal (interruptStatus). A second signal removes the
// temporary files being written and exits with status 128 + its number
// without waiting for the work to return. stop releases the signals.
func onInterrupt(name string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var s os.Signal
		select {
		case s = <-sig:
		case <-done:
			return
		}
		fmt.Fprintf(stderr, "vrvm %s: stopping… (press Ctrl-C again to exit at once)\n", name)
		if ss, ok := s.(syscall.Signal); ok {
			cancel(&interrupted{sig: ss})
		} else {
			cancel(&interrupted{sig: syscall.SIGINT})
		}
		select {
		case s = <-sig:
		case <-done:
			return
		}
		removeTempFiles()
		fmt.Fprintf(stderr, "vrvm %s: interrupted again: exiting at once; no output written\n", name)
		exit(signalStatus(s))
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel(context.Canceled)
	}
}
