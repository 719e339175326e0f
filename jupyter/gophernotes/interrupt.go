//go:build vrvmkernel

package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"reflect"
	"sort"
	"sync"
	"time"

	interp "github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/imports"

	"github.com/vrvm/vrvm/jupyter/cell"
	"github.com/vrvm/vrvm/jupyter/source"
	"github.com/vrvm/vrvm/symbols"
)

// How an interrupt (SIGINT, or interrupt_request on the control channel)
// stops a running cell:
//
//   - The cell's own context is cancelled with cause cell.ErrInterrupted.
//     Cells are rewritten (package jupyter/source) so that a call of a
//     compiled method or function M with a sibling MContext (vrvm's Fit)
//     calls MContext with that context: a plain r.Fit(x, t) returns within
//     the estimator's cancellation latency and the estimator reports
//     Status Canceled. time.Sleep is replaced by a sleep that ends on the
//     same context.
//   - cell.Context() is cancelled too (cell.Interrupt).
//   - gomacro's own interrupt is raised: the next interpreted statement
//     panics, so a busy loop in interpreted code ends. A cell that called
//     cell.Context() handles interrupts itself; it gets interruptGrace
//     to stop before the interpreter interrupts it.
//
// An interrupted cell ends with an error reply, ename "Interrupt", unless
// it called cell.Context() and finished normally.
const interruptGrace = time.Second

// Names the rewritten cells call (declared in the interpreter).
const (
	contextFunc = "_vrvmContext"
	goPanicFunc = "_vrvmGoPanic"
)

// cells tracks the running cell for interrupts and goroutine panics. Its
// methods are safe for concurrent use.
type cells struct {
	ir *interp.Interp

	mu          sync.Mutex
	running     bool
	count       int
	ctx         context.Context
	cancel      context.CancelCauseFunc
	explicit    bool // the running cell called cell.Context
	interrupted bool
	receipt     *msgReceipt // of the running, or else the last, cell
	goPanics    []string    // goroutine panics during the running cell
}

func newCells(ir *interp.Interp) *cells {
	c := &cells{ir: ir}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	return c
}

// start records that the cell numbered count, requested by receipt,
// starts.
func (c *cells) start(count int, receipt *msgReceipt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel(nil) // release the previous cell's context
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	c.running, c.count, c.receipt = true, count, receipt
	c.explicit, c.interrupted, c.goPanics = false, false, nil
}

// end records that the running cell ended and returns whether it was
// interrupted, whether it called cell.Context, and the goroutine panics
// met while it ran.
func (c *cells) end() (interrupted, explicit bool, goPanics []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	return c.interrupted, c.explicit, c.goPanics
}

// context returns the context of the running (or last) cell.
func (c *cells) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// usedCellContext records that the running cell called cell.Context.
func (c *cells) usedCellContext() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		c.explicit = true
	}
}

// interrupt stops the running cell (see interruptGrace).
func (c *cells) interrupt() {
	cell.Interrupt()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return
	}
	log.Printf("vrvm kernel: interrupting cell %d", c.count)
	c.interrupted = true
	c.cancel(cell.ErrInterrupted)
	if !c.explicit {
		c.ir.Interrupt(os.Interrupt)
		return
	}
	n := c.count
	time.AfterFunc(interruptGrace, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.running && c.count == n {
			c.ir.Interrupt(os.Interrupt)
		}
	})
}

// goPanic reports the panic v of a goroutine started by interpreted code
// (see source.Rewrite) as an error output of the running cell, or of the
// last cell if none runs.
func (c *cells) goPanic(v interface{}) {
	msg := fmt.Sprintf("panic in a goroutine: %v", v)
	log.Printf("vrvm kernel: %s (recovered)", msg)
	c.mu.Lock()
	receipt := c.receipt
	if c.running {
		c.goPanics = append(c.goPanics, msg)
	}
	c.mu.Unlock()
	if receipt != nil {
		if err := receipt.PublishExecutionError("panic", msg, []string{msg}); err != nil {
			log.Printf("vrvm kernel: publishing a goroutine panic: %v", err)
		}
	}
}

// sleep is time.Sleep for interpreted code: the running cell's interrupt
// ends it early.
func (c *cells) sleep(d time.Duration) {
	c.mu.Lock()
	ctx, running := c.ctx, c.running
	c.mu.Unlock()
	if !running {
		time.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// installInterrupts declares the functions rewritten cells call, replaces
// time.Sleep for the interpreter and returns the rewrite of cells.
func (c *cells) installInterrupts() source.Rewrite {
	c.ir.DeclFunc(contextFunc, c.context)
	c.ir.DeclFunc(goPanicFunc, c.goPanic)
	if p, ok := imports.Packages["time"]; ok {
		p.Binds["Sleep"] = reflect.ValueOf(c.sleep)
	}
	return source.Rewrite{Methods: contextMethods(), Context: contextFunc, GoPanic: goPanicFunc}
}

// contextMethods lists the methods and functions of the project's
// compiled packages (the symbol set) with a sibling that takes a context
// (see source.ContextMethods).
func contextMethods() map[string]string {
	keys := make([]string, 0, len(symbols.Symbols))
	for k := range symbols.Symbols {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m := map[string]string{}
	for _, k := range keys {
		var types []reflect.Type
		funcs := map[string]reflect.Value{}
		for name, v := range symbols.Symbols[k] {
			switch {
			case !v.IsValid():
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
