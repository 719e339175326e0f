package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
)

// A panic in a goroutine that interpreted code started ends the process in
// yaegi, as in a compiled program: at the prompt it ended the session and
// lost its variables. The REPL therefore starts the goroutines of its
// inputs through a hook (goFixes): "go f(a, b)" becomes
// "_vrvm.Go(f, a, b)", a plain call, so that f and its arguments are
// evaluated where the go statement is, as Go does (yaegi evaluates the
// arguments of a go statement in the new goroutine: "go f(n); n = 4" could
// pass 4); the hook calls f in a new goroutine with a deferred recover. A
// panic is reported on the REPL's standard error and ends only that
// goroutine. Scripts run by "vrvm run" keep Go's behaviour.

// goBuiltins are the builtin functions a go statement may call, which are
// not values and cannot be passed to the hook.
var goBuiltins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true,
	"max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true,
}

// goFixes returns the edits that start the goroutines of the go statements
// in n through the hooks Go and GoSpread: "go f(a, s...)" becomes
// "_vrvm.GoSpread(f, a, s)". off converts a token.Pos to an offset in
// the source. A go statement that calls a builtin is left alone.
func goFixes(n ast.Node, off func(token.Pos) int) (ins []insertion) {
	ast.Inspect(n, func(n ast.Node) bool {
		g, ok := n.(*ast.GoStmt)
		if !ok {
			return true
		}
		c := g.Call
		if id, ok := c.Fun.(*ast.Ident); ok && goBuiltins[id.Name] {
			return true
		}
		hook, sep := "Go", ", "
		if c.Ellipsis.IsValid() {
			hook = "GoSpread"
		}
		if len(c.Args) == 0 {
			sep = ""
		}
		ins = append(ins, insertion{off: off(g.Pos()), text: rtName + "." + hook + "(", del: off(c.Fun.Pos()) - off(g.Pos())},
			insertion{off: off(c.Lparen), text: sep, del: 1})
		if c.Ellipsis.IsValid() {
			ins = append(ins, insertion{off: off(c.Ellipsis), del: len("...")})
		}
		return true
	})
	return ins
}

// Go calls f with args in a new goroutine; it is a go statement of the
// REPL (see goFixes). A panic is written to the REPL's standard error,
// with its value, and ends the goroutine only.
func (h *hooks) Go(f any, args ...any) {
	go func() {
		defer h.recoverGo()
		call(f, args, false)
	}()
}

// GoSpread is Go for a call whose last argument is spread (f(a, s...)).
func (h *hooks) GoSpread(f any, args ...any) {
	go func() {
		defer h.recoverGo()
		call(f, args, true)
	}()
}

func (h *hooks) recoverGo() {
	if r := recover(); r != nil && h.stderr != nil {
		fmt.Fprintf(h.stderr, "panic in a goroutine: %s (the goroutine ended; the session goes on)\n", panicValue(r))
	}
}

// call calls the function f with args, converted to its parameter types
// (a nil argument is the zero value); spread passes the last argument as
// the variadic parameter's slice.
func call(f any, args []any, spread bool) {
	fv := reflect.ValueOf(f)
	ft := fv.Type()
	in := make([]reflect.Value, len(args))
	for k, a := range args {
		var pt reflect.Type
		switch {
		case ft.IsVariadic() && k >= ft.NumIn()-1 && !spread:
			pt = ft.In(ft.NumIn() - 1).Elem()
		default:
			pt = ft.In(min(k, ft.NumIn()-1))
		}
		in[k] = argValue(a, pt)
	}
	if spread {
		fv.CallSlice(in)
		return
	}
	fv.Call(in)
}

// argValue returns a as a value of type t.
func argValue(a any, t reflect.Type) reflect.Value {
	if a == nil {
		return reflect.Zero(t)
	}
	v := reflect.ValueOf(a)
	if !v.Type().AssignableTo(t) && v.Type().ConvertibleTo(t) {
		return v.Convert(t)
	}
	return v
}
