// Package cell gives notebook code a context that Jupyter's Kernel →
// Interrupt cancels.
//
// Jupyter interrupts a kernel by sending it SIGINT. gophernotes evaluates a
// cell in the kernel's main goroutine and does not handle the signal, so a
// long computation in compiled code (a vrvm fit, a large factorisation)
// cannot be stopped from the notebook short of restarting the kernel and
// losing every variable. The vrvm kernel (jupyter/gophernotes) instead
// relays SIGINT to Interrupt, which cancels the context that Context
// returns; code that consults it stops cleanly and the kernel keeps its
// state:
//
//	import "github.com/vrvm/vrvm/jupyter/cell"
//
//	err := m.FitContext(cell.Context(), x, t) // stops on Kernel → Interrupt
//
// context.Cause of an interrupted context is ErrInterrupted, whose message
// says that the user interrupted the cell.
//
// # Lifetime
//
// All calls of Context within one cell return the same context, so after an
// interrupt every later step of the cell sees it cancelled too (a loop of
// fits stops at once rather than moving on to the next fit). The first call
// in a later cell returns a fresh context if the previous one was
// cancelled. Contexts are not cancelled when their cell ends: a context
// saved in a variable stays usable until the next interrupt.
//
// Outside the kernel (no SetCellCounter call, as in "vrvm run" or a test)
// Context works the same way with the whole program as one cell, and
// Interrupt may be called directly.
package cell

import (
	"context"
	"fmt"
	"sync"
)

// ErrInterrupted is the cause (see context.Cause) of a context cancelled by
// Interrupt. It wraps context.Canceled, so errors.Is(err, context.Canceled)
// holds for code that reports the cause.
var ErrInterrupted = fmt.Errorf("interrupted by the user (Kernel → Interrupt): %w", context.Canceled)

var (
	mu      sync.Mutex
	ctx     context.Context
	cancel  context.CancelCauseFunc
	seen    int        // counter value at the last Context call
	counter func() int // number of the running cell; nil outside the kernel
)

// Context returns the context of the running cell. It is cancelled, with
// cause ErrInterrupted, when the kernel is interrupted. See the package
// documentation for when a fresh context is made.
func Context() context.Context {
	mu.Lock()
	defer mu.Unlock()
	n := 0
	if counter != nil {
		n = counter()
	}
	if ctx == nil || (ctx.Err() != nil && n != seen) {
		ctx, cancel = context.WithCancelCause(context.Background())
	}
	seen = n
	return ctx
}

// Interrupt cancels the current context with cause ErrInterrupted. The
// kernel calls it when it receives SIGINT; it is safe to call from any
// goroutine, at any time. An interrupt reaches the code holding the current
// context; a cell that had not called Context before the interrupt gets a
// fresh context when it does.
func Interrupt() {
	mu.Lock()
	defer mu.Unlock()
	if cancel != nil {
		cancel(ErrInterrupted)
	}
}

// Interrupted reports whether the context of the running cell has been
// cancelled. It is a shorthand for Context().Err() != nil, for loops
// written in the notebook itself:
//
//	for i := 0; i < n && !cell.Interrupted(); i++ { … }
func Interrupted() bool {
	return Context().Err() != nil
}

// SetCellCounter tells the package how to number cells: f returns the
// execution count of the running cell and is called only from Context, in
// the goroutine that runs the cell. The kernel calls it once at start-up.
func SetCellCounter(f func() int) {
	mu.Lock()
	defer mu.Unlock()
	counter = f
}
