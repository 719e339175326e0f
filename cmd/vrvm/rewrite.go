package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
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
//     function it unwinds, not at the call of panic. Each statement
//     panic(v) gets a call _vrvm.At("file:line:col") before it, which
//     records the position of the panic.
//   - In the REPL, the last statement of an input is followed by a call
//     _vrvm.Show(…) with the values to print: all the results of an
//     expression, the variables an assignment set (see replInput).

// rtPath is the import path, and rtName the import name, of the
// package of hooks the rewritten source calls (see hooks).
const (
	rtPath = "vrvm.internal/rt"
	rtName = "_vrvm"
)

// builtinResults are the builtin functions that return a value.
var builtinResults = map[string]bool{
	"append": true, "cap": true, "complex": true, "copy": true, "imag": true,
	"len": true, "make": true, "max": true, "min": true, "new": true,
	"real": true, "recover": true,
}

// An insertion is text to insert at a byte offset of the source.
type insertion struct {
	off  int
	text string
}

// apply returns src with the insertions (offsets into src) made.
func apply(src string, ins []insertion) string {
	sort.SliceStable(ins, func(a, b int) bool { return ins[a].off < ins[b].off })
	var b strings.Builder
	last := 0
	for _, in := range ins {
		b.WriteString(src[last:in.off])
		b.WriteString(in.text)
		last = in.off
	}
	b.WriteString(src[last:])
	return b.String()
}

// fixes returns the insertions that work around the defects of yaegi in
// the syntax tree n: parentheses around builtin calls among the results of
// a return statement, and a call of _vrvm.At before each panic statement.
// off converts a token.Pos of fset to an offset in the source; where
// formats the position of a panic for the report.
func fixes(fset *token.FileSet, n ast.Node, off func(token.Pos) int, where func(token.Position) string) (ins []insertion, panics int) {
	panicStmts := func(list []ast.Stmt) {
		for _, s := range list {
			e, ok := s.(*ast.ExprStmt)
			if !ok {
				continue
			}
			call, ok := e.X.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				continue
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "panic" {
				continue
			}
			pos := where(fset.Position(call.Pos()))
			ins = append(ins, insertion{off(s.Pos()), fmt.Sprintf("%s.At(%s); ", rtName, strconv.Quote(pos))})
			panics++
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
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
					ins = append(ins, insertion{off(call.Pos()), "("}, insertion{off(call.End()), ")"})
				}
			}
		case *ast.BlockStmt:
			panicStmts(n.List)
		case *ast.CaseClause:
			panicStmts(n.Body)
		case *ast.CommClause:
			panicStmts(n.Body)
		}
		return true
	})
	return ins, panics
}

// rewriteScript returns the source of the script file name rewritten for
// the interpreter (see the comment at the top of this file). A source that
// does not parse is returned as it is, for the interpreter to report.
func rewriteScript(name, src string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	ins, panics := fixes(fset, f, off, func(p token.Position) string { return p.String() })
	if panics > 0 {
		// On the line of the package clause, so that no line moves.
		ins = append(ins, insertion{off(f.Name.End()), fmt.Sprintf("; import %s %q", rtName, rtPath)})
	}
	return apply(src, ins)
}

// hooks are the functions the rewritten source calls, exported to the
// interpreter as the package rtPath.
type hooks struct {
	mu      sync.Mutex
	site    string // position of the last panic statement reached
	results []any  // the values passed to Show
	shown   bool
}

// At records the position of a panic statement about to run.
func (h *hooks) At(pos string) {
	h.mu.Lock()
	h.site = pos
	h.mu.Unlock()
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

// panicSite returns the position recorded for p, the panic of an
// evaluation, or "" if p was not raised by a panic statement of the script:
// yaegi's builtin panic panics with the reflect.Value of its argument.
func (h *hooks) panicSite(p interp.Panic) string {
	if _, ok := p.Value.(reflect.Value); !ok {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.site
}

// useHooks exports new hooks to i as the package rtPath.
func useHooks(i *interp.Interpreter) (*hooks, error) {
	h := &hooks{}
	show := reflect.ValueOf(h.Show)
	err := i.Use(interp.Exports{
		rtPath + "/rt": {"At": reflect.ValueOf(h.At), "Show": show},
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
// function's first statement, not of the call that panicked. panicFilter
// keeps these lines from the output and records the function names, for
// the report of the panic.
type panicFilter struct {
	w     io.Writer
	mu    sync.Mutex
	funcs []frameLine
}

// A frameLine is a line written by yaegi for an interpreted function that
// a panic unwound.
type frameLine struct {
	pos  string // of the first statement of the function
	name string // main.f
}

var yaegiPanicLine = regexp.MustCompile(`^(\S*?:?\d+:\d+): panic: (\S+)\(\.\.\.\)\n$`)

func (f *panicFilter) Write(b []byte) (int, error) {
	if m := yaegiPanicLine.FindSubmatch(b); m != nil {
		f.mu.Lock()
		f.funcs = append(f.funcs, frameLine{string(m[1]), string(m[2])})
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

// replInput returns src, an input of the REPL, rewritten for the
// interpreter: plain with the fixes of yaegi's defects (see fixes), and
// show with also a call of _vrvm.Show for the values to print, or "" if
// the input prints nothing: of an expression statement, all its results;
// of an assignment, the variables it set (not those with a call in their
// expression, such as m[f()], which would be called again); of x++, x.
// Declarations print nothing. An input that does not parse is returned as
// it is, for the interpreter to report or to read more lines.
func replInput(src string) (plain, show string) {
	fset := token.NewFileSet()
	const declPrefix = "package p;"
	if f, err := parser.ParseFile(fset, "", declPrefix+src, parser.SkipObjectResolution); err == nil && len(f.Decls) > 0 {
		tf := fset.File(f.Pos())
		off := func(p token.Pos) int { return tf.Offset(p) - len(declPrefix) }
		ins, _ := fixes(fset, f, off, func(p token.Position) string {
			if p.Line == 1 {
				p.Column -= len(declPrefix)
			}
			return fmt.Sprintf("%d:%d", p.Line, p.Column)
		})
		return apply(src, ins), ""
	}
	const stmtPrefix = "package p; func _() {\n"
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return src, ""
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) - len(stmtPrefix) }
	ins, _ := fixes(fset, body, off, func(p token.Position) string {
		return fmt.Sprintf("%d:%d", p.Line-1, p.Column)
	})
	plain = apply(src, append([]insertion(nil), ins...))
	if len(body.List) == 0 {
		return plain, ""
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
		ins = append(ins, insertion{off(s.X.Pos()), rtName + ".Show("}, insertion{off(s.X.End()), ")"})
	case *ast.AssignStmt:
		c := showCall(s.Lhs)
		if c == "" {
			return plain, ""
		}
		ins = append(ins, insertion{off(s.End()), c})
	case *ast.IncDecStmt:
		c := showCall([]ast.Expr{s.X})
		if c == "" {
			return plain, ""
		}
		ins = append(ins, insertion{off(s.End()), c})
	default:
		return plain, ""
	}
	return plain, apply(src, ins)
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
