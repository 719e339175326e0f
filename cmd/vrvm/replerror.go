package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Errors of the REPL's evaluations, in the words and at the positions of
// the input as typed.
//
// yaegi compiles an input of the REPL inside a pseudo file: a declaration
// after "package main;", anything else inside "package main; func main()
// {…}". Its positions on the first line are those of that file, so "foo"
// alone was reported at 1:28. The REPL also rewrites the input (see
// rewrite.go), which moves the columns after each insertion. An error's
// position is mapped back through both (mapEvalError).
//
// yaegi declares the variables of an input before it has compiled all of
// it, and keeps them when compiling fails: after "z := 1 + \"a\"" the
// session held a z whose storage was never allocated, and the next input
// that listed the variables failed in yaegi. An input that declares
// variables or constants is therefore compiled first inside a function
// literal that is not called (precheck): its declarations are local to
// the literal, so an error there leaves the session as it was.

// yaegiPrefix returns the length of the text yaegi puts before the first
// line of the input src of the REPL; err is the error it returned (the
// prefix of a func declaration that does not parse as one depends on it).
func yaegiPrefix(src string, err error) int {
	const decl, stmt = len("package main;"), len("package main; func main() {")
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), []byte(src), nil, 0)
	_, tok, _ := s.Scan()
	switch tok {
	case token.PACKAGE:
		return 0
	case token.CONST, token.IMPORT, token.TYPE, token.VAR:
		return decl
	case token.FUNC:
		// yaegi tries a declaration first and, if that does not parse,
		// a statement (a function literal called at once); a syntax
		// error is the declaration's.
		var list scanner.ErrorList
		if _, perr := parser.ParseFile(token.NewFileSet(), "", "package main;"+src, 0); perr == nil || errors.As(err, &list) {
			return decl
		}
	}
	return stmt
}

// leadingPos matches the position that starts an error message of yaegi,
// with or without its pseudo file name.
var leadingPos = regexp.MustCompile(`^(?:` + regexp.QuoteMeta(interp.DefaultSourceName) + `:)?(\d+):(\d+)(: )`)

// mapEvalError returns err, returned by yaegi for the input evaluated (src
// with the insertions ins made by the rewrite), with its position moved to
// src: the pseudo file's prefix removed from the first line, the
// insertions from the columns. A panic or a cancellation is returned as it
// is.
func mapEvalError(err error, src, evaluated string, ins []insertion) error {
	var p interp.Panic
	if err == nil || errors.As(err, &p) || errors.Is(err, context.Canceled) {
		return err
	}
	prefix := yaegiPrefix(evaluated, err)
	pos := func(line, col int) (int, int) {
		if line == 1 {
			col -= prefix
		}
		return sourcePos(src, evaluated, ins, line, col)
	}
	return movePositions(err, pos)
}

// A positionError is an error of yaegi with the position of its message
// moved to the input as typed.
type positionError struct {
	msg string
	err error
}

func (e *positionError) Error() string { return e.msg }
func (e *positionError) Unwrap() error { return e.err }

// sourcePos converts the line and column (1-based, in bytes) of the text
// evaluated, src with the insertions ins, to those of src. A position
// inside inserted text maps to where the text was inserted.
func sourcePos(src, evaluated string, ins []insertion, line, col int) (int, int) {
	off := offsetOf(evaluated, line, col)
	if off < 0 {
		return line, max(col, 1)
	}
	sorted := append([]insertion(nil), ins...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].off < sorted[b].off })
	shift := 0 // offset in evaluated − offset in src, before the insertion
	for _, in := range sorted {
		at := in.off + shift // where the insertion starts in evaluated
		if off < at {
			break
		}
		if off < at+len(in.text) {
			return positionOf(src, in.off) // inside the inserted text
		}
		shift += len(in.text) - in.del
	}
	return positionOf(src, off-shift)
}

// offsetOf returns the byte offset of line:col in s, or -1.
func offsetOf(s string, line, col int) int {
	if line < 1 || col < 1 {
		return -1
	}
	start := 0
	for l := 1; l < line; l++ {
		k := strings.IndexByte(s[start:], '\n')
		if k < 0 {
			return -1
		}
		start += k + 1
	}
	return min(start+col-1, len(s))
}

// positionOf returns the line and column of the byte offset off of s.
func positionOf(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	line = 1 + strings.Count(s[:off], "\n")
	return line, off - (strings.LastIndexByte(s[:off], '\n') + 1) + 1
}

// needsPrecheck reports whether src, an input of the REPL that parses,
// declares variables or constants of the session: a short variable
// declaration or a var or const declaration at its top level. Inputs of
// func or type declarations, and imports, are not prechecked: they cannot
// be compiled inside a function.
func needsPrecheck(src string) bool {
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", "package p;"+src, parser.SkipObjectResolution); err == nil && len(f.Decls) > 0 {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR && g.Tok != token.CONST {
				return false
			}
		}
		return true
	}
	f, err := parser.ParseFile(fset, "", "package p; func _() {\n"+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return false
	}
	for _, s := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				return true
			}
		case *ast.DeclStmt:
			return true
		}
	}
	return false
}

// precheck compiles src, an input of the REPL that declares variables, in
// a function literal that is not called, and returns the compilation
// error, at its position in src, or nil. A panic of the interpreter while
// it compiles the literal is not src's error: precheck then returns nil
// and the evaluation proper reports what is wrong.
func precheck(i *interp.Interpreter, src string) error {
	// EvalWithContext returns a panic of the interpreter as an interp.Panic.
	_, err := i.EvalWithContext(context.Background(), "func() {\n"+src+"\n}")
	var p interp.Panic
	if err == nil || errors.As(err, &p) {
		return nil
	}
	// The literal's first line is its own: line k+1 is line k of src.
	return movePositions(err, func(line, col int) (int, int) { return max(line-1, 1), col })
}

// movePositions returns err, an error of yaegi, with the positions of a
// list of syntax errors, or the position that starts its message, moved by
// pos.
func movePositions(err error, pos func(line, col int) (int, int)) error {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		out := make(scanner.ErrorList, len(list))
		for k, e := range list {
			c := *e
			c.Pos.Line, c.Pos.Column = pos(e.Pos.Line, e.Pos.Column)
			out[k] = &c
		}
		return out
	}
	msg := err.Error()
	m := leadingPos.FindStringSubmatchIndex(msg)
	if m == nil {
		return err
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	col, _ := strconv.Atoi(msg[m[4]:m[5]])
	line, col = pos(line, col)
	return &positionError{msg: fmt.Sprintf("%d:%d%s", line, col, msg[m[6]:]), err: err}
}

// compilePanic reports whether the panic p happened while yaegi compiled
// the input, not while the input ran: yaegi panics on some inputs it
// cannot compile, and EvalWithContext returns those as an interp.Panic
// like a panic of the program.
func compilePanic(p interp.Panic) bool {
	const yaegi = "github.com/traefik/yaegi/interp."
	frames := runtime.CallersFrames(p.Callers)
	compiling := false
	for {
		f, more := frames.Next()
		switch f.Function {
		case yaegi + "runCfg", yaegi + "(*Interpreter).Execute", yaegi + "(*Interpreter).ExecuteWithContext":
			return false // the program was running
		case yaegi + "(*Interpreter).compileSrc", yaegi + "(*Interpreter).CompileAST":
			compiling = true
		}
		if !more {
			return compiling
		}
	}
}
