// Package source rewrites and judges the Go source of notebook cells and
// REPL inputs before an interpreter compiles them.
//
// Two rewrites make interpreted code behave as the user expects of an
// interactive session (see Rewrite):
//
//   - A call X.M(args), where M is a method or function of the compiled
//     packages with a sibling MContext(ctx, args) (vrvm's Fit and
//     FitContext), becomes X.MContext(C(), args), C a function of the host
//     that returns the context the host cancels on an interrupt. A plain
//     r.Fit(x, t) then stops on Kernel → Interrupt or Ctrl-C, and the
//     estimator reports Status Canceled. The rewrite is by name only; the
//     host compiles the unrewritten source when the rewritten one does
//     not compile (a notebook type with a Fit method but no FitContext).
//   - A go statement go F(args) recovers a panic of the goroutine and
//     passes its value to a function of the host, instead of ending the
//     process: F and the arguments that are not constants are evaluated
//     first, in the statement, as the go statement would.
//
// Complete judges whether an input is complete, incomplete (an open
// bracket, string or comment) or invalid, for Jupyter's
// is_complete_request.
package source

import (
	"context"
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
)

// Rewrite holds the names the rewritten source uses. The zero value
// rewrites nothing.
type Rewrite struct {
	// Methods maps a method or function name M to the name of its sibling
	// that takes a context first (see ContextMethods). A call of a
	// selector X.M is rewritten; nil means none.
	Methods map[string]string
	// Context is the name of the host function of no arguments that
	// returns the context.Context passed to the siblings. Empty means
	// that calls are not rewritten.
	Context string
	// GoPanic is the name of the host function of one argument
	// (interface{}) that receives the value of a panic recovered in a
	// goroutine. Empty means that go statements are not rewritten.
	GoPanic string
}

// Apply rewrites the statements and expressions under root in place and
// reports whether it changed anything.
func (r Rewrite) Apply(root ast.Node) bool {
	return r.apply(root, map[*ast.GoStmt]bool{})
}

// apply is Apply; made holds the go statements of the rewritten forms,
// which are not rewritten again.
func (r Rewrite) apply(root ast.Node, made map[*ast.GoStmt]bool) bool {
	changed := false
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if r.rewriteCall(n) {
				changed = true
			}
		case *ast.BlockStmt:
			if r.rewriteGo(n.List, made) {
				changed = true
			}
		case *ast.CaseClause:
			if r.rewriteGo(n.Body, made) {
				changed = true
			}
		case *ast.CommClause:
			if r.rewriteGo(n.Body, made) {
				changed = true
			}
		}
		return true
	})
	return changed
}

// ApplyList rewrites the top-level nodes of a cell (statements,
// declarations, expressions) in place and reports whether it changed
// anything. A go statement among them is replaced by its rewritten form.
func (r Rewrite) ApplyList(nodes []ast.Node) bool {
	changed := false
	made := map[*ast.GoStmt]bool{}
	for i, n := range nodes {
		if g, ok := n.(*ast.GoStmt); ok && r.GoPanic != "" {
			if b := r.goBlock(g, made); b != nil {
				nodes[i] = b
				changed = true
				n = b
			}
		}
		if n != nil && r.apply(n, made) {
			changed = true
		}
	}
	return changed
}

func (r Rewrite) rewriteCall(c *ast.CallExpr) bool {
	if r.Context == "" {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	sibling, ok := r.Methods[sel.Sel.Name]
	if !ok {
		return false
	}
	sel.Sel = &ast.Ident{NamePos: sel.Sel.NamePos, Name: sibling}
	ctx := &ast.CallExpr{Fun: ast.NewIdent(r.Context), Lparen: c.Lparen, Rparen: c.Lparen}
	c.Args = append([]ast.Expr{ctx}, c.Args...)
	return true
}

// rewriteGo replaces each go statement of list by its recovering form.
func (r Rewrite) rewriteGo(list []ast.Stmt, made map[*ast.GoStmt]bool) bool {
	if r.GoPanic == "" {
		return false
	}
	changed := false
	for i, s := range list {
		if g, ok := s.(*ast.GoStmt); ok && !made[g] {
			if b := r.goBlock(g, made); b != nil {
				list[i] = b
				changed = true
			}
		}
	}
	return changed
}

// Names of the temporaries of a rewritten go statement.
const (
	funTemp     = "_vrvmGoF"
	argTemp     = "_vrvmGoA"
	recoverTemp = "_vrvmGoR"
)

// goBlock returns the recovering form of g:
//
//	{ F', A0', … := F, A0, …; go func() { defer func() { if r := recover(); r != nil { GoPanic(r) } }(); F'(A0', …) }() }
//
// where function literals and constants are used as they are. It returns
// nil for a go statement of a builtin or conversion it cannot rewrite.
func (r Rewrite) goBlock(g *ast.GoStmt, made map[*ast.GoStmt]bool) ast.Stmt {
	call := g.Call
	if id, ok := call.Fun.(*ast.Ident); ok && isBuiltin(id.Name) {
		return nil
	}
	var lhs, rhs []ast.Expr
	temp := func(e ast.Expr, name string) ast.Expr {
		switch e.(type) {
		case *ast.FuncLit, *ast.BasicLit:
			return e
		}
		lhs = append(lhs, ast.NewIdent(name))
		rhs = append(rhs, e)
		return ast.NewIdent(name)
	}
	inner := &ast.CallExpr{Fun: temp(call.Fun, funTemp), Ellipsis: call.Ellipsis}
	if call.Ellipsis.IsValid() {
		inner.Ellipsis = 1 // any valid position: the call has no other position
	}
	for i, a := range call.Args {
		inner.Args = append(inner.Args, temp(a, argTemp+strconv.Itoa(i)))
	}
	recovered := &ast.IfStmt{
		Init: &ast.AssignStmt{
			Lhs: []ast.Expr{ast.NewIdent(recoverTemp)}, Tok: token.DEFINE,
			Rhs: []ast.Expr{&ast.CallExpr{Fun: ast.NewIdent("recover")}},
		},
		Cond: &ast.BinaryExpr{X: ast.NewIdent(recoverTemp), Op: token.NEQ, Y: ast.NewIdent("nil")},
		Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{
			Fun: ast.NewIdent(r.GoPanic), Args: []ast.Expr{ast.NewIdent(recoverTemp)},
		}}}},
	}
	deferred := &ast.DeferStmt{Call: &ast.CallExpr{Fun: &ast.FuncLit{
		Type: &ast.FuncType{Params: &ast.FieldList{}},
		Body: &ast.BlockStmt{List: []ast.Stmt{recovered}},
	}}}
	body := &ast.FuncLit{
		Type: &ast.FuncType{Func: g.Go, Params: &ast.FieldList{}},
		Body: &ast.BlockStmt{List: []ast.Stmt{deferred, &ast.ExprStmt{X: inner}}},
	}
	goStmt := &ast.GoStmt{Go: g.Go, Call: &ast.CallExpr{Fun: body}}
	made[goStmt] = true
	block := &ast.BlockStmt{Lbrace: g.Go}
	if len(lhs) > 0 {
		block.List = append(block.List, &ast.AssignStmt{Lhs: lhs, Tok: token.DEFINE, Rhs: rhs})
	}
	block.List = append(block.List, goStmt)
	return block
}

func isBuiltin(name string) bool {
	switch name {
	case "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
		"make", "max", "min", "new", "panic", "print", "println", "real", "recover":
		return true
	}
	return false
}

var contextType = reflect.TypeOf((*context.Context)(nil)).Elem()

// ContextMethods returns the names M of the methods of the types, and of
// pointers to them, that have a sibling method M+"Context" taking a
// context.Context before M's parameters and returning the same results,
// each mapped to its sibling's name. funcs are functions by name (a
// package's members); a function F with a sibling FContext among them is
// included too.
func ContextMethods(types []reflect.Type, funcs map[string]reflect.Value) map[string]string {
	m := map[string]string{}
	for _, t := range types {
		for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
			recv := 1
			if t.Kind() == reflect.Interface {
				recv = 0
			}
			for i := 0; i < t.NumMethod(); i++ {
				meth := t.Method(i)
				sib, ok := t.MethodByName(meth.Name + "Context")
				if ok && contextSibling(meth.Type, sib.Type, recv) {
					m[meth.Name] = sib.Name
				}
			}
		}
	}
	for name, f := range funcs {
		sib, ok := funcs[name+"Context"]
		if ok && f.Kind() == reflect.Func && sib.Kind() == reflect.Func && contextSibling(f.Type(), sib.Type(), 0) {
			m[name] = name + "Context"
		}
	}
	return m
}

// contextSibling reports whether function type s is f with a
// context.Context inserted after the first skip parameters (a receiver).
func contextSibling(f, s reflect.Type, skip int) bool {
	if s.NumIn() != f.NumIn()+1 || s.NumOut() != f.NumOut() || s.IsVariadic() != f.IsVariadic() {
		return false
	}
	if s.NumIn() <= skip || s.In(skip) != contextType {
		return false
	}
	for i := 0; i < f.NumIn(); i++ {
		j := i
		if i >= skip {
			j++
		}
		if f.In(i) != s.In(j) && i >= skip {
			return false
		}
	}
	for i := 0; i < f.NumOut(); i++ {
		if f.Out(i) != s.Out(i) {
			return false
		}
	}
	return true
}
