package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Before the interpreter sees a script or an input of the REPL, the source
// is rewritten in memory, keeping every line where it is (only columns
// after an insertion move), for two defects of yaegi v0.16.1 and for the
// REPL's printing:
//
//   - A builtin call (len, cap, min, append…) that is one of several
//     results of a return statement stores its value in the first result
//     slot: "return len(a), len(b)" returns len(b) twice, and
//     "return make([]int, n), len(s)" panics in reflect. yaegi stores a
//     call's result directly in the return slot only when its parent is
//     the return statement; the rewrite puts each such call in
//     parentheses, which gives it a slot of its own (pinned by
//     TestYaegiReturnBuiltins).
//   - yaegi reports a panic at the first statement of each interpreted
//     function it unwinds, not where it happened. Each statement that may
//     panic (a call other than a conversion or a builtin that cannot
//     panic, an index, slice, selector, dereference, type assertion,
//     division or send) is preceded by "_vrvmP = k; ", k the index of its
//     position in a positionTable: after a panic, the variable _vrvmP
//     holds the last such statement that started, the innermost
//     interpreted statement of the panic. Statements in a deferred
//     function literal are left alone so that they do not overwrite it as
//     the panic unwinds; an assignment to an int variable costs little,
//     but loops of arithmetic only are not touched at all.
//   - In the REPL, the last statement of an input is followed by a call
//     _vrvm.Show(…) with the values to print: all the results of an
//     expression, the variables an assignment set (see replInput).

// rtPath is the import path, and rtName the import name, of the
// package of hooks the rewritten source calls (see hooks); posVar is the
// variable of the script that holds the index of the position of the last
// statement that may panic.
const (
	rtPath = "vrvm.internal/rt"
	rtName = "_vrvm"
	posVar = "_vrvmP"
)

// noPanicCalls are the functions called by name whose call cannot panic:
// the builtins that cannot, and conversions to predeclared types.
var noPanicCalls = map[string]bool{
	"append": true, "cap": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "max": true, "min": true, "new": true,
	"print": true, "println": true, "real": true,
	"bool": true, "byte": true, "complex64": true, "complex128": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true,
	"uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
}

// mayPanic reports whether evaluating the expression or statement header
// n may panic. pkgs are the names of imported packages: a selector on one
// is not a dereference. Function literals are not looked into.
func mayPanic(n ast.Node, pkgs map[string]bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); !ok || !noPanicCalls[id.Name] {
				found = true
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); !ok || !pkgs[id.Name] {
				found = true
			}
		case *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.StarExpr, *ast.TypeAssertExpr, *ast.SendStmt:
			found = true
		case *ast.BinaryExpr:
			if n.Op == token.QUO || n.Op == token.REM {
				found = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.QUO_ASSIGN || n.Tok == token.REM_ASSIGN {
				found = true
			}
		}
		return !found
	})
	return found
}

// stmtMayPanic reports whether the statement s may panic before the
// statements nested in it run (those are numbered on their own).
func stmtMayPanic(s ast.Stmt, pkgs map[string]bool) bool {
	either := func(ns ...ast.Node) bool {
		for _, n := range ns {
			if n != nil && !reflect.ValueOf(n).IsNil() && mayPanic(n, pkgs) {
				return true
			}
		}
		return false
	}
	switch s := s.(type) {
	case *ast.ExprStmt, *ast.AssignStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.ReturnStmt, *ast.DeclStmt:
		return mayPanic(s, pkgs)
	case *ast.IfStmt:
		return either(s.Init, s.Cond)
	case *ast.ForStmt:
		return either(s.Init, s.Cond, s.Post)
	case *ast.RangeStmt:
		return either(s.X)
	case *ast.SwitchStmt:
		return either(s.Init, s.Tag)
	case *ast.TypeSwitchStmt:
		return either(s.Init, s.Assign)
	case *ast.LabeledStmt:
		return stmtMayPanic(s.Stmt, pkgs)
	}
	return false
}

// builtinResults are the builtin functions that return a value.
var builtinResults = map[string]bool{
	"append": true, "cap": true, "complex": true, "copy": true, "imag": true,
	"len": true, "make": true, "max": true, "min": true, "new": true,
	"real": true, "recover": true,
}

// An insertion is text to insert at a byte offset off of the source, in
// place of the del bytes there: it replaces the range [off, off+del), empty
// but for the go statements of the REPL (see goFixes). The insertions into
// inputs of the REPL hold no line end, so that mapEvalError can map the
// positions of errors back to the input.
type insertion struct {
	off  int
	text string
	del  int
}

// apply returns src with the insertions (offsets into src) made.
func apply(src string, ins []insertion) string {
	sort.SliceStable(ins, func(a, b int) bool { return ins[a].off < ins[b].off })
	var b strings.Builder
	last := 0
	for _, in := range ins {
		b.WriteString(src[last:max(in.off, last)])
		b.WriteString(in.text)
		last = max(in.off+in.del, last)
	}
	b.WriteString(src[last:])
	return b.String()
}

// fixes returns the insertions that work around the defects of yaegi in
// the syntax tree n: parentheses around builtin calls among the results of
// a return statement, and the numbering of the statements that may panic
// in table. off converts a token.Pos of fset to an offset in the source;
// where formats the position of a statement for the report of a panic;
// pkgs are the names of the imported packages.
func fixes(fset *token.FileSet, n ast.Node, off func(token.Pos) int, where func(token.Position) string, pkgs map[string]bool, table *positionTable) (ins []insertion) {
	// The assignment goes after the token before the statement ({, :
	// or the previous statement), so that the statement keeps its
	// columns when it starts a line; at the start of the source (an
	// input of the REPL) it goes before the statement.
	number := func(list []ast.Stmt, open token.Pos) {
		after := off(open) + 1
		for _, s := range list {
			if stmtMayPanic(s, pkgs) {
				k := table.add(where(fset.Position(s.Pos())))
				if after > 0 {
					ins = append(ins, insertion{off: after, text: fmt.Sprintf("; %s = %d;", posVar, k)})
				} else {
					ins = append(ins, insertion{off: off(s.Pos()), text: fmt.Sprintf("%s = %d; ", posVar, k)})
				}
			}
			after = off(s.End())
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			return false // see the comment at the top of the file
		case *ast.ReturnStmt:
			if len(n.Results) < 2 {
				break
			}
			for _, r := range n.Results {
				call, ok := r.(*ast.CallExpr)
				if !ok {
					continue
				}
				if id, ok := call.Fun.(*ast.Ident); ok && builtinResults[id.Name] {
					ins = append(ins, insertion{off: off(call.Pos()), text: "("}, insertion{off: off(call.End()), text: ")"})
				}
			}
		case *ast.BlockStmt:
			number(n.List, n.Lbrace)
		case *ast.CaseClause:
			number(n.Body, n.Colon)
		case *ast.CommClause:
			number(n.Body, n.Colon)
		}
		return true
	})
	return ins
}

// importNames returns the names of the packages f imports, and of those
// the REPL knows without an import.
func importNames(f *ast.File, imports importSet) map[string]bool {
	pkgs := map[string]bool{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if spec.Name != nil {
			name = spec.Name.Name
		} else if n := packageName(p); n != "" {
			name = n
		}
		pkgs[name] = true
	}
	if imports != nil {
		for _, name := range packageNames(imports) {
			pkgs[name] = true
		}
	}
	return pkgs
}

// rewriteScript returns the source of the script file name rewritten for
// the interpreter (see the comment at the top of this file), its
// statements numbered in table. A source that does not parse is returned
// as it is, for the interpreter to report.
func rewriteScript(name, src string, table *positionTable) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	ins := fixes(fset, f, off, func(p token.Position) string { return p.String() }, importNames(f, nil), table)
	// After the last line, so that no line moves.
	ins = append(ins, insertion{off: len(src), text: fmt.Sprintf("\nvar %s int\n", posVar)})
	return apply(src, ins)
}

// replInput returns src, an input of the REPL, rewritten for the
// interpreter, its statements numbered in table (imports are the packages
// the REPL knows): plain with the fixes of yaegi's defects (see fixes), and
// show with also a call of _vrvm.Show for the values to print, or "" if
// the input prints nothing: of an expression statement, all its results;
// of an assignment, the variables it set (not those with a call in their
// expression, such as m[f()], which would be called again); of x++, x.
// Declarations print nothing. An input that does not parse is returned as
// it is, for the interpreter to report or to read more lines. Each comes
// with the insertions that made it, to map positions in errors back to src
// (mapEvalError). The calls of methods (see contextCalls) take the
// evaluation's context; none do if methods is nil.
func replInput(src string, imports importSet, table *positionTable, methods map[string]string) (plain, show edit) {
	fset := token.NewFileSet()
	const declPrefix = "package p;"
	if f, err := parser.ParseFile(fset, "", declPrefix+src, parser.SkipObjectResolution); err == nil && len(f.Decls) > 0 {
		tf := fset.File(f.Pos())
		off := func(p token.Pos) int { return tf.Offset(p) - len(declPrefix) }
		ins := fixes(fset, f, off, func(p token.Position) string {
			if p.Line == 1 {
				p.Column -= len(declPrefix)
			}
			return fmt.Sprintf("%d:%d", p.Line, p.Column)
		}, importNames(f, imports), table)
		ins = append(ins, contextCalls(f, off, methods)...)
		ins = append(ins, goFixes(f, off)...)
		return edit{apply(src, append([]insertion(nil), ins...)), ins}, edit{}
	}
	const stmtPrefix = "package p; func _() {\n"
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return edit{text: src}, edit{}
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) - len(stmtPrefix) }
	ins := fixes(fset, body, off, func(p token.Position) string {
		return fmt.Sprintf("%d:%d", p.Line-1, p.Column)
	}, importNames(f, imports), table)
	ins = append(ins, contextCalls(body, off, methods)...)
	ins = append(ins, goFixes(body, off)...)
	plain = edit{apply(src, append([]insertion(nil), ins...)), append([]insertion(nil), ins...)}
	if len(body.List) == 0 {
		return plain, edit{}
	}
	text := func(e ast.Expr) string { return src[off(e.Pos()):off(e.End())] }
	showCall := func(es []ast.Expr) string {
		var args []string
		for _, e := range es {
			if id, ok := e.(*ast.Ident); ok && id.Name == "_" {
				continue
			}
			if hasCall(e) {
				return ""
			}
			args = append(args, text(e))
		}
		if len(args) == 0 {
			return ""
		}
		return "; " + rtName + ".Show(" + strings.Join(args, ", ") + ")"
	}
	switch s := body.List[len(body.List)-1].(type) {
	case *ast.ExprStmt:
		ins = append(ins, insertion{off: off(s.X.Pos()), text: rtName + ".Show("}, insertion{off: off(s.X.End()), text: ")"})
	case *ast.AssignStmt:
		c := showCall(s.Lhs)
		if c == "" {
			return plain, edit{}
		}
		ins = append(ins, insertion{off: off(s.End()), text: c})
	case *ast.IncDecStmt:
		c := showCall([]ast.Expr{s.X})
		if c == "" {
			return plain, edit{}
		}
		ins = append(ins, insertion{off: off(s.End()), text: c})
	default:
		return plain, edit{}
	}
	return plain, edit{apply(src, append([]insertion(nil), ins...)), ins}
}

// An edit is an input of the REPL as rewritten for the interpreter: the
// text and the insertions into the input that made it.
type edit struct {
	text string
	ins  []insertion
}

// contextCalls returns the insertions that turn each call X.M(args) in n,
// M a key of methods, into X.MContext(_vrvm.Context(), args), MContext
// its value: a plain r.Fit(x, t) then stops on Ctrl-C (see
// jupyter/source, which does the same for the kernel). The rewrite is by
// name; the REPL evaluates the input without it if it does not compile.
// The function a go statement starts, and the function literal it calls,
// are left alone: the evaluation's context ends with the input, not with
// the goroutine (the arguments are rewritten, as they are evaluated before
// the input goes on).
func contextCalls(n ast.Node, off func(token.Pos) int, methods map[string]string) (ins []insertion) {
	if len(methods) == 0 {
		return nil
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			for _, a := range g.Call.Args {
				ast.Inspect(a, visit)
			}
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		sib, ok := methods[sel.Sel.Name]
		if !ok || !strings.HasPrefix(sib, sel.Sel.Name) {
			return true
		}
		ctx := rtName + ".Context()"
		if len(call.Args) > 0 {
			ctx += ", "
		}
		ins = append(ins, insertion{off: off(sel.Sel.End()), text: strings.TrimPrefix(sib, sel.Sel.Name)}, insertion{off: off(call.Lparen) + 1, text: ctx})
		return true
	}
	ast.Inspect(n, visit)
	return ins
}

// hasCall reports whether the expression e contains a call.
func hasCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if _, ok := n.(*ast.CallExpr); ok {
			found = true
		}
		return !found
	})
	return found
}
