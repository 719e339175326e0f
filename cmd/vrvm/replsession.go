package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/vrvm/vrvm/symbols"
)

// A session records what the inputs of the REPL declared, which yaegi does
// not tell: the types (to print their values and list variables under
// their names), the functions, and the methods of each type (for
// completion).
type session struct {
	types   map[string]reflect.Type // type name → the type as yaegi builds it
	funcs   map[string]bool
	methods map[string]map[string]bool // type name → method names
	names   typeNames                  // inverse of types
}

func newSession() *session {
	return &session{types: map[string]reflect.Type{}, funcs: map[string]bool{}, methods: map[string]map[string]bool{}}
}

// declare records the declarations of src, an input that i evaluated
// without error.
func (s *session) declare(i *interp.Interpreter, src string) {
	fset := token.NewFileSet()
	var decls []ast.Decl
	if f, err := parser.ParseFile(fset, "", "package p;"+src, parser.SkipObjectResolution); err == nil {
		decls = f.Decls
	} else if f, err := parser.ParseFile(fset, "", "package p; func _() {\n"+src+"\n}", parser.SkipObjectResolution); err == nil {
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			if d, ok := st.(*ast.DeclStmt); ok {
				decls = append(decls, d.Decl)
			}
		}
	}
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				s.funcs[d.Name.Name] = true
				continue
			}
			t := d.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := t.(*ast.Ident); ok {
				if s.methods[id.Name] == nil {
					s.methods[id.Name] = map[string]bool{}
				}
				s.methods[id.Name][d.Name.Name] = true
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, spec := range d.Specs {
				name := spec.(*ast.TypeSpec).Name.Name
				if v, err := i.Eval("(*" + name + ")(nil)"); err == nil && v.IsValid() && v.Kind() == reflect.Pointer {
					s.types[name] = v.Type().Elem()
					s.names = nil
				}
			}
		}
	}
}

// typeNames returns the names of the types declared in the session.
func (s *session) typeNames() typeNames {
	if s.names == nil {
		s.names = typeNames{}
		for name, t := range s.types {
			s.names[t] = name
		}
	}
	return s.names
}

// typeString returns the name of t in the session: the name given at the
// prompt to a script type, wherever it appears in t (*point, []point).
func (s *session) typeString(t reflect.Type) string {
	if n, ok := s.typeNames()[t]; ok {
		return n
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + s.typeString(t.Elem())
	case reflect.Slice:
		return "[]" + s.typeString(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), s.typeString(t.Elem()))
	case reflect.Map:
		return "map[" + s.typeString(t.Key()) + "]" + s.typeString(t.Elem())
	}
	return t.String()
}

// globals returns the variables and constants of the session, without the
// REPL's own.
func globals(i *interp.Interpreter) map[string]reflect.Value {
	g := i.Globals()
	for name := range g {
		if strings.HasPrefix(name, rtName) || name == "_" {
			delete(g, name)
		}
	}
	return g
}

// vars lists the variables and constants of the session with their types
// and values, one a line.
func (s *session) vars(i *interp.Interpreter) string {
	g := globals(i)
	names := slices.Sorted(maps.Keys(g))
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, name := range names {
		v := g[name]
		typ := "untyped constant"
		if v.IsValid() && v.Type() != reflect.TypeFor[interface{ ExactString() string }]() {
			typ = s.typeString(v.Type())
		}
		val := "<nil>"
		if v.IsValid() && v.CanInterface() {
			val = formatValue(v.Interface(), s.typeNames())
			if k := strings.IndexByte(val, '\n'); k >= 0 {
				val = val[:k] + " …"
			}
			if len(val) > 60 {
				val = shorten(val)[:60] + "…"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, typ, val)
	}
	_ = tw.Flush()
	if b.Len() == 0 {
		return "no variables\n"
	}
	return b.String()
}

// packageMembers returns the exported names of the compiled package
// known in the REPL under name, or nil.
func packageMembers(name string, imports importSet) map[string]reflect.Value {
	dir := packagePath(name, imports)
	if dir == "" {
		return nil
	}
	for _, exports := range []interp.Exports{symbols.Symbols, stdlib.Symbols} {
		for key, members := range exports {
			if path.Dir(key) == dir {
				return members
			}
		}
	}
	return nil
}

// packagePath returns the import path of the package known in the REPL
// under name, or "".
func packagePath(name string, imports importSet) string {
	for p, n := range imports {
		if n == name {
			return p
		}
	}
	if autoNames()[name] {
		return ""
	}
	for _, exports := range []interp.Exports{symbols.Symbols, stdlib.Symbols} {
		for key := range exports {
			if dir := path.Dir(key); path.Base(key) == name && ourPackage(dir) {
				return dir
			}
		}
	}
	return ""
}

// ourPackage reports whether the import path p of an entry of the symbol
// sets is a package, not an entry of yaegi's own or the REPL's hooks.
func ourPackage(p string) bool {
	return p != "." && !strings.HasPrefix(p, "github.com/traefik/yaegi/") && p != rtPath
}

// autoNames returns the package names that several packages share: the
// REPL gives these only to the package autoImport or an import chose.
var autoNames = sync.OnceValue(func() map[string]bool {
	byName := map[string]int{}
	for _, exports := range []interp.Exports{stdlib.Symbols, symbols.Symbols} {
		for key := range exports {
			if ourPackage(path.Dir(key)) {
				byName[path.Base(key)]++
			}
		}
	}
	shared := map[string]bool{}
	for name, n := range byName {
		if n > 1 {
			shared[name] = true
		}
	}
	return shared
})

// packageNames returns the names under which the REPL knows packages.
func packageNames(imports importSet) []string {
	shared := autoNames()
	seen := map[string]bool{}
	for _, exports := range []interp.Exports{stdlib.Symbols, symbols.Symbols} {
		for key := range exports {
			if !ourPackage(path.Dir(key)) {
				continue
			}
			if name := path.Base(key); !shared[name] {
				seen[name] = true
			}
		}
	}
	for _, name := range imports {
		seen[name] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// goWords are the keywords and predeclared identifiers of Go.
var goWords = strings.Fields(`break case chan const continue default defer else
fallthrough for func go goto if import interface map package range return select
struct switch type var append cap clear close complex copy delete imag len make
max min new panic print println real recover any bool byte complex64 complex128
error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16
uint32 uint64 uintptr true false iota nil`)

// complete returns the completions of the word that ends at pos in line:
// identifiers (the session's, package names, Go's), the members of a
// package after "pkg.", and the fields and methods of a value after
// "x." or "x.f.", and a tab where there is no word before the cursor. It
// follows liner's WordCompleter.
func (i *replInterp) complete(line string, pos int) (head string, completions []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	before := line[:pos]
	start := len(before)
	for start > 0 && (isIdentByte(before[start-1]) || before[start-1] == '.') {
		start--
	}
	word := before[start:]
	head, tail = before[:start], line[pos:]
	if word == "" {
		// Nothing to complete: Tab indents, as in pasted code.
		return before, []string{"\t"}, tail
	}
	dot := strings.LastIndexByte(word, '.')
	if dot < 0 {
		for _, name := range i.identifiers() {
			if strings.HasPrefix(name, word) {
				completions = append(completions, name)
			}
		}
		return head, completions, tail
	}
	prefix, partial := word[:dot], word[dot+1:]
	for _, name := range i.members(prefix) {
		if strings.HasPrefix(name, partial) {
			completions = append(completions, prefix+"."+name)
		}
	}
	return head, completions, tail
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// identifiers returns the names known at the prompt, sorted.
func (i *replInterp) identifiers() []string {
	seen := map[string]bool{}
	for name := range globals(i.Interpreter) {
		seen[name] = true
	}
	for name := range i.session.funcs {
		seen[name] = true
	}
	for name := range i.session.types {
		seen[name] = true
	}
	for _, name := range packageNames(i.imports) {
		seen[name] = true
	}
	for _, w := range goWords {
		seen[w] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// members returns the names that can follow "expr.": the members of a
// package, or the fields and methods of a session variable or of a field
// of one (r.Kernel.), sorted.
func (i *replInterp) members(expr string) []string {
	parts := strings.Split(expr, ".")
	seen := map[string]bool{}
	if len(parts) == 1 {
		if _, isVar := globals(i.Interpreter)[expr]; !isVar {
			for name := range packageMembers(expr, i.imports) {
				if !strings.HasPrefix(name, "_") {
					seen[name] = true
				}
			}
		}
	}
	if len(seen) == 0 {
		if t, ok := i.exprType(parts); ok {
			for _, name := range i.typeMembers(t) {
				seen[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// exprType returns the type of the session variable parts[0] followed by
// the fields parts[1:], or of the package member parts[0].parts[1] and its
// fields, without evaluating anything.
func (i *replInterp) exprType(parts []string) (reflect.Type, bool) {
	var t reflect.Type
	rest := parts[1:]
	if v, ok := globals(i.Interpreter)[parts[0]]; ok && v.IsValid() {
		t = v.Type()
		if v.Kind() == reflect.Interface && !v.IsNil() {
			t = v.Elem().Type()
		}
	} else if len(parts) > 1 {
		m, ok := packageMembers(parts[0], i.imports)[parts[1]]
		if !ok || !m.IsValid() {
			return nil, false
		}
		t = m.Type()
		if m.Kind() == reflect.Pointer && m.IsNil() {
			t = t.Elem() // a type
		}
		rest = parts[2:]
	} else {
		return nil, false
	}
	for _, f := range rest {
		s := t
		if s.Kind() == reflect.Pointer {
			s = s.Elem()
		}
		if s.Kind() != reflect.Struct {
			return nil, false
		}
		sf, ok := s.FieldByName(f)
		if !ok {
			return nil, false
		}
		t = sf.Type
	}
	return t, true
}

// typeMembers returns the exported fields and the methods of t and *t,
// and the methods declared in the session for a script type.
func (i *replInterp) typeMembers(t reflect.Type) []string {
	var names []string
	if name, ok := i.session.typeNames()[t]; ok {
		for m := range i.session.methods[name] {
			names = append(names, m)
		}
	}
	if t.Kind() == reflect.Pointer {
		if name, ok := i.session.typeNames()[t.Elem()]; ok {
			for m := range i.session.methods[name] {
				names = append(names, m)
			}
		}
	}
	pt := t
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt = reflect.PointerTo(t)
	}
	for k := 0; k < pt.NumMethod(); k++ {
		names = append(names, pt.Method(k).Name)
	}
	s := t
	if s.Kind() == reflect.Pointer {
		s = s.Elem()
	}
	if s.Kind() == reflect.Struct {
		for k := 0; k < s.NumField(); k++ {
			if f := s.Field(k); f.IsExported() {
				names = append(names, fieldName(f, s))
			}
		}
	}
	return names
}
