//go:build vrvmkernel

package main

import (
	"fmt"
	"reflect"
	"strings"

	interp "github.com/cosmos72/gomacro/fast"

	"github.com/vrvm/vrvm/internal/symdoc"
	"github.com/vrvm/vrvm/jupyter/wire"
)

// handleInspectRequest answers an inspect_request (Shift-Tab in a
// notebook) for the name at the cursor: a session variable, a member of
// one (r.Fit, r.Kernel), a package or a member of one (vrvm.Regressor).
// The text is what the REPL's :doc shows for the packages of the symbol
// set (the generated documentation of internal/symdoc), and for other
// names the declaration from reflection: a type with its exported fields
// and methods, a function or method with its signature. It is sent as text/plain and, in a Go code
// block, as text/markdown; found is false for a name the session does
// not know.
func (kernel *Kernel) handleInspectRequest(receipt msgReceipt) error {
	content, _ := receipt.Msg.Content.(map[string]interface{})
	code, _ := wire.String(content, "code")
	cursor := len([]rune(code))
	if f, ok := content["cursor_pos"].(float64); ok && f >= 0 && int(f) <= cursor {
		cursor = int(f)
	}
	name := nameAt(code, byteOffset(code, cursor))
	text, found := kernel.describe(name)
	reply := map[string]interface{}{"status": "ok", "found": found, "data": map[string]interface{}{}, "metadata": map[string]interface{}{}}
	if found {
		reply["data"] = map[string]interface{}{
			MIMETypeText:    text,
			"text/markdown": "```go\n" + strings.TrimRight(text, "\n") + "\n```\n",
		}
	}
	return receipt.Reply("inspect_reply", reply)
}

// nameAt returns the dotted name (identifiers joined by periods) around
// byte offset pos of code: "r.Fit" for a cursor anywhere in "r.Fit(x, t)"
// up to just after the parenthesis.
func nameAt(code string, pos int) string {
	isName := func(b byte) bool {
		return b == '.' || b == '_' || b >= 0x80 || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	start, end := pos, pos
	if start > len(code) {
		start, end = len(code), len(code)
	}
	if start > 0 && code[start-1] == '(' {
		// Just inside a call's parenthesis: the function called, as
		// ipykernel answers.
		start--
		end = start
	} else if start < len(code) && !isName(code[start]) {
		end = start // on "(" or a space after a name: the name before
	}
	for start > 0 && isName(code[start-1]) {
		start--
	}
	for end < len(code) && isName(code[end]) {
		end++
	}
	return strings.Trim(code[start:end], ".")
}

// describe returns the declaration of name and whether the session knows
// it.
func (kernel *Kernel) describe(name string) (string, bool) {
	parts := strings.Split(name, ".")
	if name == "" {
		return "", false
	}
	sym := kernel.ir.Comp.TryResolve(parts[0])
	if sym == nil {
		return "", false
	}
	if imp, ok := sym.Value.(*interp.Import); ok {
		if text, ok := packageDoc(imp.Path, parts[1:]); ok {
			return text, true
		}
		if len(parts) == 1 {
			return fmt.Sprintf("package %s // import %q\n", imp.Name, imp.Path), true
		}
		if t, ok := imp.Types[parts[1]]; ok && t != nil {
			return describePath(t.ReflectType(), parts[2:], imp.Name+"."+parts[1])
		}
		if b, ok := imp.Binds[parts[1]]; ok && b != nil && b.Type != nil {
			t := b.Type.ReflectType()
			if t.Kind() == reflect.Func && len(parts) == 2 {
				return "func " + imp.Name + "." + parts[1] + strings.TrimPrefix(t.String(), "func") + "\n", true
			}
			return describePath(t, parts[2:], imp.Name+"."+parts[1])
		}
		return "", false
	}
	if sym.Type == nil {
		return "", false
	}
	t := sym.Type.ReflectType()
	if key, ok := memberKey(t, parts[1:]); ok {
		if text, ok := symdoc.Lookup(key); ok {
			return symdoc.Format(text), true // as the REPL's :doc
		}
	}
	return describePath(t, parts[1:], parts[0])
}

// packageDoc returns the generated documentation of the member path of
// the package dir, as the REPL's :doc finds it.
func packageDoc(dir string, path []string) (string, bool) {
	key := strings.Join(append([]string{dir}, path...), ".")
	text, ok := symdoc.Lookup(key)
	if !ok && len(path) > 1 {
		// pkg.Type.Field: the field's doc is in the type's.
		text, ok = symdoc.Lookup(dir + "." + path[0])
	}
	if !ok {
		return "", false
	}
	return symdoc.Format(text), true
}

// memberKey returns the key in symdoc of the member path of a value of
// type t, as the REPL's :doc computes it: the type itself if path is
// empty, else the method or field path[len(path)-1] of the type reached
// through the fields before it.
func memberKey(t reflect.Type, path []string) (string, bool) {
	for k, m := range path {
		s := t
		if s.Kind() == reflect.Pointer {
			s = s.Elem()
		}
		if k == len(path)-1 {
			if _, ok := reflect.PointerTo(s).MethodByName(m); ok || s.Kind() == reflect.Interface && hasMethod(s, m) {
				return s.PkgPath() + "." + s.Name() + "." + m, s.PkgPath() != ""
			}
			if _, ok := s.FieldByName(m); ok && s.Kind() == reflect.Struct {
				return s.PkgPath() + "." + s.Name(), s.PkgPath() != ""
			}
			return "", false
		}
		if s.Kind() != reflect.Struct {
			return "", false
		}
		f, ok := s.FieldByName(m)
		if !ok {
			return "", false
		}
		t = f.Type
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.PkgPath() + "." + t.Name(), t.PkgPath() != "" && t.Name() != ""
}

func hasMethod(t reflect.Type, name string) bool {
	_, ok := t.MethodByName(name)
	return ok
}

// describePath describes the member path of a value (or type) named
// name of type t: the type itself if path is empty.
func describePath(t reflect.Type, path []string, name string) (string, bool) {
	for k, m := range path {
		if meth, ok := t.MethodByName(m); ok && k == len(path)-1 {
			return methodDecl(t, meth), true
		}
		if t.Kind() != reflect.Pointer {
			if meth, ok := reflect.PointerTo(t).MethodByName(m); ok && k == len(path)-1 {
				return methodDecl(reflect.PointerTo(t), meth), true
			}
		}
		s := t
		if s.Kind() == reflect.Pointer {
			s = s.Elem()
		}
		if s.Kind() != reflect.Struct {
			return "", false
		}
		f, ok := s.FieldByName(m)
		if !ok || !f.IsExported() {
			return "", false
		}
		name += "." + m
		t = f.Type
	}
	return describeType(name, t), true
}

func methodDecl(recv reflect.Type, m reflect.Method) string {
	sig := m.Type.String() // func(recv, params) results
	if recv.Kind() != reflect.Interface {
		in := make([]string, 0, m.Type.NumIn()-1)
		for i := 1; i < m.Type.NumIn(); i++ {
			in = append(in, m.Type.In(i).String())
		}
		if m.Type.IsVariadic() {
			in[len(in)-1] = "..." + m.Type.In(m.Type.NumIn()-1).Elem().String()
		}
		out := make([]string, 0, m.Type.NumOut())
		for i := 0; i < m.Type.NumOut(); i++ {
			out = append(out, m.Type.Out(i).String())
		}
		sig = "(" + strings.Join(in, ", ") + ")"
		switch len(out) {
		case 0:
		case 1:
			sig += " " + out[0]
		default:
			sig += " (" + strings.Join(out, ", ") + ")"
		}
	} else {
		sig = strings.TrimPrefix(sig, "func")
	}
	return fmt.Sprintf("func (%s) %s%s\n", recv, m.Name, sig)
}

// describeType lays out the type t of name: its exported fields if a
// struct, and the exported methods of it and its pointer.
func describeType(name string, t reflect.Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", name, t)
	s := t
	for s.Kind() == reflect.Pointer {
		s = s.Elem()
	}
	if s.Kind() == reflect.Struct {
		var fields []string
		for i := 0; i < s.NumField(); i++ {
			if f := s.Field(i); f.IsExported() {
				fields = append(fields, fmt.Sprintf("\t%s %s", f.Name, f.Type))
			}
		}
		if len(fields) > 0 {
			fmt.Fprintf(&b, "\ntype %s struct {\n%s\n}\n", s, strings.Join(fields, "\n"))
		}
	}
	ms := reflect.PointerTo(s)
	if s.Kind() == reflect.Interface {
		ms = s
	}
	if ms.NumMethod() > 0 {
		b.WriteString("\n")
		for i := 0; i < ms.NumMethod(); i++ {
			b.WriteString(methodDecl(ms, ms.Method(i)))
		}
	}
	return b.String()
}
