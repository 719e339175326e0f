package main

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// How the REPL prints values. A value with a String or Error method is
// printed by it; a matrix (mat.Matrix) as a matrix, its corners only when
// it is large; anything else as a Go composite literal of its exported
// fields that are not zero, with long slices and maps shortened and deep
// values elided. Pointers print as & and what they point to, never as an
// address.
const (
	printElems  = 6    // elements of a slice or map printed before "… (N more)"
	printDepth  = 3    // levels of nesting printed before "…"
	printString = 200  // bytes of a nested string printed
	printTotal  = 2000 // bytes of one value printed
	printMatrix = 8    // rows or columns of a matrix printed in full
)

// formatResults formats the results of an evaluation on one line,
// separated by spaces.
func formatResults(vs []any, names typeNames) string {
	s := make([]string, len(vs))
	for k, v := range vs {
		s[k] = formatValue(v, names)
	}
	return strings.Join(s, " ")
}

// formatValue formats v for the REPL. A string is printed as it is; in a
// composite value it is quoted. names gives the names of the types declared
// at the prompt (yaegi gives them no name of their own).
func formatValue(v any, names typeNames) string {
	if s, ok := v.(string); ok {
		return s
	}
	if m, ok := v.(mat.Matrix); ok && !isNil(reflect.ValueOf(v)) {
		if s, ok := formatMatrix(m); ok {
			return s
		}
	}
	p := printer{names: names}
	p.value(reflect.ValueOf(v), 0)
	return p.String()
}

// formatMatrix formats m with mat.Formatted, aligned after the ": " of the
// REPL; it shows the corners only of a matrix with more than printMatrix
// rows or columns. ok is false if m is empty or panics.
func formatMatrix(m mat.Matrix) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	opts := []mat.FormatOption{mat.Prefix("  "), mat.Squeeze()}
	r, c := m.Dims()
	if r == 0 || c == 0 {
		return "", false
	}
	if r > printMatrix || c > printMatrix {
		opts = append(opts, mat.Excerpt(3))
	}
	return fmt.Sprintf("%.6g", mat.Formatted(m, opts...)), true
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// typeNames maps the types declared at the prompt to their names.
type typeNames map[reflect.Type]string

type printer struct {
	strings.Builder
	names typeNames
	full  bool // printTotal reached
}

func (p *printer) write(s string) {
	if p.full {
		return
	}
	if p.Len()+len(s) > printTotal {
		s = s[:max(0, printTotal-p.Len())]
		p.full = true
		p.WriteString(s + "…")
		return
	}
	p.WriteString(s)
}

var (
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
	matrixType   = reflect.TypeFor[mat.Matrix]()
)

// method returns the result of v's Error or String method, if it has one
// and it does not panic.
func method(v reflect.Value) (s string, ok bool) {
	if !v.CanInterface() {
		return "", false
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface && v.CanAddr() {
		if t := v.Addr().Type(); t.Implements(errorType) || t.Implements(stringerType) {
			v = v.Addr()
		}
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	switch x := v.Interface().(type) {
	case error:
		return x.Error(), true
	case fmt.Stringer:
		return x.String(), true
	}
	return "", false
}

// typeName returns the name of t for a composite literal: its Go name, the
// name given at the prompt, or "" for an unnamed type.
func (p *printer) typeName(t reflect.Type) string {
	if n, ok := p.names[t]; ok {
		return n
	}
	if t.Name() == "" {
		return ""
	}
	return t.String()
}

func (p *printer) value(v reflect.Value, depth int) {
	if p.full {
		return
	}
	switch {
	case v.Kind() == reflect.Slice && v.IsNil():
		p.write("[]")
		return
	case v.Kind() == reflect.Map && v.IsNil():
		p.write("map[]")
		return
	case isNil(v):
		p.write("<nil>")
		return
	}
	if s, ok := method(v); ok {
		if depth > 0 {
			s = shorten(s)
		}
		p.write(s)
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		p.value(v.Elem(), depth)
	case reflect.Pointer:
		if v.Type().Implements(matrixType) && depth > 0 {
			p.matrix(v)
			return
		}
		p.write("&")
		p.value(v.Elem(), depth)
	case reflect.Struct:
		if depth > printDepth {
			p.write(p.typeName(v.Type()) + "{…}")
			return
		}
		p.write(p.typeName(v.Type()) + "{")
		t := v.Type()
		n := 0
		for k := 0; k < t.NumField(); k++ {
			f := t.Field(k)
			if !f.IsExported() || v.Field(k).IsZero() {
				continue
			}
			if n > 0 {
				p.write(", ")
			}
			n++
			p.write(fieldName(f, t) + ": ")
			p.value(v.Field(k), depth+1)
		}
		p.write("}")
	case reflect.Slice, reflect.Array:
		if depth > printDepth && v.Len() > 0 {
			p.write("[…]")
			return
		}
		p.write("[")
		for k := 0; k < v.Len() && k < printElems; k++ {
			if k > 0 {
				p.write(" ")
			}
			p.value(v.Index(k), depth+1)
		}
		if v.Len() > printElems {
			p.write(fmt.Sprintf(" … (%d more)", v.Len()-printElems))
		}
		p.write("]")
	case reflect.Map:
		if depth > printDepth && v.Len() > 0 {
			p.write("map[…]")
			return
		}
		keys := v.MapKeys()
		ks := make([]string, len(keys))
		for k, key := range keys {
			kp := printer{names: p.names}
			kp.value(key, printDepth)
			ks[k] = kp.String()
		}
		order := make([]int, len(keys))
		for k := range order {
			order[k] = k
		}
		sort.SliceStable(order, func(a, b int) bool { return ks[order[a]] < ks[order[b]] })
		p.write("map[")
		for n, k := range order {
			if n == printElems {
				p.write(fmt.Sprintf(" … (%d more)", len(keys)-printElems))
				break
			}
			if n > 0 {
				p.write(" ")
			}
			p.write(ks[k] + ":")
			p.value(v.MapIndex(keys[k]), depth+1)
		}
		p.write("]")
	case reflect.String:
		p.write(strconv.Quote(shorten(v.String())))
	case reflect.Float32:
		p.write(strconv.FormatFloat(v.Float(), 'g', -1, 32))
	case reflect.Float64:
		p.write(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Uintptr:
		p.write(v.Type().String())
	default:
		if v.CanInterface() {
			p.write(fmt.Sprint(v.Interface()))
		} else {
			p.write(v.Type().String())
		}
	}
}

// matrix writes a short description of a matrix in a composite value.
func (p *printer) matrix(v reflect.Value) {
	defer func() {
		if recover() != nil {
			p.write("&" + v.Type().Elem().String() + "{}")
		}
	}()
	r, c := v.Interface().(mat.Matrix).Dims()
	p.write(fmt.Sprintf("&%s{%d×%d}", v.Type().Elem().String(), r, c))
}

// fieldName returns the name of the field f of t in the script: yaegi
// prefixes an unexported field of a script type with X.
func fieldName(f reflect.StructField, t reflect.Type) string {
	if t.PkgPath() == "" && t.Name() == "" && len(f.Name) > 1 && f.Name[0] == 'X' {
		if c := f.Name[1]; c == '_' || 'a' <= c && c <= 'z' {
			return f.Name[1:]
		}
	}
	return f.Name
}

// shorten cuts a long string in a composite value.
func shorten(s string) string {
	if len(s) <= printString {
		return s
	}
	cut := printString
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
