package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exit ends the process; a variable for tests.
var exit = os.Exit

// onInterrupt returns a context cancelled by the first SIGINT or SIGTERM,
// at which "vrvm NAME: stopping…" is printed at once; a second signal
// removes the temporary files being written and exits with status 130
// without waiting for the work to return. stop releases the signals.
func onInterrupt(name string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
		case <-done:
			return
		}
		fmt.Fprintf(stderr, "vrvm %s: stopping… (press Ctrl-C again to exit at once)\n", name)
		cancel()
		select {
		case <-sig:
		case <-done:
			return
		}
		removeTempFiles()
		fmt.Fprintf(stderr, "vrvm %s: interrupted again: exiting at once; no output written\n", name)
		exit(130)
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}
