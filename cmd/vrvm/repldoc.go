package main

import (
	"errors"
	"fmt"
	"github.com/vrvm/vrvm/internal/symdoc"
	"os/exec"
	"reflect"
	"strings"
)

// The documentation of the packages of the symbol set is generated into
// package internal/symdoc, so that :doc works in an installed binary
// without the source tree.

// doc returns the documentation of name, as :doc prints it: a package
// (vrvm), a member of one (vrvm.Regressor, mat.NewDense), a method or
// field of a type (vrvm.Regressor.Fit), or the type, a method or a field of
// a session variable (r, r.Fit, r.Kernel). Packages outside the symbol set
// (the standard library) are documented by "go doc" if it is installed.
func (i *replInterp) doc(name string) (string, error) {
	parts := strings.Split(name, ".")
	var key string
	switch t, ok := i.exprType(parts[:1]); {
	case ok:
		// A session variable: the fields before the last part lead to
		// the type whose member is asked for.
		key, ok = i.memberKey(t, parts[1:])
		if !ok {
			return "", fmt.Errorf("no documentation for %s: %s is a %s", name, parts[0], i.session.typeString(t))
		}
	default:
		dir := packagePath(parts[0], i.imports)
		if dir == "" {
			return "", fmt.Errorf("no documentation for %s: %s is not a package or a variable of the session", name, parts[0])
		}
		key = strings.Join(append([]string{dir}, parts[1:]...), ".")
		if len(parts) > 2 {
			// pkg.Type.Field: the field's doc is in the type's.
			if _, ok := symdoc.Lookup(key); !ok {
				key = strings.Join(append([]string{dir}, parts[1]), ".")
			}
		}
	}
	if text, ok := symdoc.Lookup(key); ok {
		return symdoc.Format(text), nil
	}
	return goDoc(key, name)
}

// memberKey returns the key in symdoc of the member path of a value of
// type t: the type itself if path is empty, else the method or field
// path[len(path)-1] of the type reached through the fields before it.
func (i *replInterp) memberKey(t reflect.Type, path []string) (string, bool) {
	for k, m := range path {
		s := t
		if s.Kind() == reflect.Pointer {
			s = s.Elem()
		}
		if k == len(path)-1 {
			if _, ok := reflect.PointerTo(s).MethodByName(m); ok {
				return typeKey(s) + "." + m, s.PkgPath() != ""
			}
			if s.Kind() == reflect.Interface {
				if _, ok := s.MethodByName(m); ok {
					return typeKey(s) + "." + m, s.PkgPath() != ""
				}
			}
			if s.Kind() == reflect.Struct {
				if _, ok := s.FieldByName(m); ok {
					return typeKey(s), s.PkgPath() != "" // the field is documented in the type
				}
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
	return typeKey(t), t.PkgPath() != ""
}

// typeKey returns the key of a named compiled type in symdoc.
func typeKey(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// goDoc runs "go doc key" for a package outside the symbol set.
func goDoc(key, name string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no documentation for %s (documentation is built in for the packages of the symbol set; others need the go command)", name)
	}
	out, err := exec.Command(goCmd, "doc", key).CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("no documentation for %s: %s", name, strings.TrimSpace(string(out)))
		}
		return "", err
	}
	return string(out), nil
}
