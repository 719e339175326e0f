// Package gomacrosym makes the compiled packages of the project's yaegi
// symbol set importable from gomacro, the interpreter that evaluates the
// cells of the gophernotes Jupyter kernel.
//
// Importing the package for its side effect, as the kernel's main package
// does,
//
//	import _ "github.com/vrvm/vrvm/jupyter/gomacrosym"
//
// converts every package of symbols.Symbols into gomacro's
// imports.Package form and registers it in imports.Packages, together with
// the interface proxies of package proxies and the kernel's own package
// cell. A notebook then imports "gonum.org/v1/gonum/mat" or
// "github.com/vrvm/vrvm/vrvm" as if gomacro had been built with them.
//
// # Conversion
//
// yaegi and gomacro both describe a compiled package with reflect values,
// keyed by exported name. Symbol by symbol (see Convert):
//
//   - functions and typed constants: the value, as is;
//   - variables: the addressable element, as is (gomacro tells a variable
//     from a constant by CanSet);
//   - types, stored by yaegi as a nil pointer (*T)(nil): the element type T;
//   - untyped constants, stored by yaegi as a go/constant value: the exact
//     value encoded with gomacro's untyped.Marshal, plus an approximate
//     typed binding;
//   - interface wrappers "_I": dropped; the generated proxy for I takes
//     their place (see package proxies);
//   - promoted methods: yaegi lists none, gomacro wants the names of the
//     methods a struct type only has through an embedded field (its
//     Package.Wrappers); they are derived by reflection (see promoted).
//
// Generic functions and types never reach the symbol set ("yaegi extract"
// skips them), so they cannot be imported in a notebook either.
package gomacrosym

import (
	"fmt"
	"go/constant"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"

	"github.com/cosmos72/gomacro/base/untyped"
	"github.com/cosmos72/gomacro/imports"

	"github.com/vrvm/vrvm/jupyter/proxies"
	"github.com/vrvm/vrvm/symbols"
)

func init() {
	for _, err := range Register(imports.Packages, symbols.Symbols, proxies.Proxies, proxies.Unnamed) {
		// The kernel's stderr goes to the Jupyter server log. A problem here
		// is a build problem caught by this package's tests; the kernel
		// still starts, without the offending symbol.
		fmt.Fprintln(os.Stderr, "vrvm kernel:", err)
	}
	registerCell(imports.Packages)
}

// Register converts each package of syms (keyed "import/path/name", as
// yaegi keys them) with Convert and merges it into dst, keyed by import
// path, with the proxies prox and the unnamed interfaces that have one
// (see Convert). It returns the problems met, sorted; a symbol with a
// problem is left out.
func Register(dst imports.PackageMap, syms map[string]map[string]reflect.Value, prox, unnamed map[string]map[string]reflect.Type) []error {
	keys := make([]string, 0, len(syms))
	for k := range syms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, key := range keys {
		path, pkg, perrs := Convert(key, syms[key], prox[key], unnamed[key])
		errs = append(errs, perrs...)
		dst.MergePackage(path, pkg)
	}
	for key := range prox {
		if _, ok := syms[key]; !ok {
			errs = append(errs, fmt.Errorf("proxies for %s, which is not in the symbol set (stale proxies: run go generate ./jupyter/proxies)", key))
		}
	}
	return errs
}

// Convert turns the yaegi symbols of one package, keyed key
// ("import/path/name"), and the proxies of its interfaces into a gomacro
// package. unnamed holds the unnamed interfaces that functions of the
// package take and that have a proxy, by the name of their proxy in prox
// ("_XYer_YErrorer"): gomacro finds a proxy only through a type of the
// package, so they become types under that name, which a notebook cannot
// write. It returns the import path, the package and the problems met (a
// symbol with a problem is left out).
func Convert(key string, syms map[string]reflect.Value, prox, unnamed map[string]reflect.Type) (path string, pkg imports.PackageUnderlying, errs []error) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return key, pkg, []error{fmt.Errorf("symbol key %q is not import/path/name", key)}
	}
	path, name := key[:i], key[i+1:]
	pkg = imports.PackageUnderlying{
		Name:     name,
		Binds:    map[string]reflect.Value{},
		Types:    map[string]reflect.Type{},
		Proxies:  map[string]reflect.Type{},
		Untypeds: map[string]string{},
		Wrappers: map[string][]string{},
	}
	for sym, v := range syms {
		switch {
		case strings.HasPrefix(sym, "_"):
			// yaegi interface wrapper; the proxy replaces it.
		case !v.IsValid():
			errs = append(errs, fmt.Errorf("%s.%s: invalid reflect.Value", path, sym))
		case isType(v):
			t := v.Type().Elem()
			pkg.Types[sym] = t
			if w := promoted(t); len(w) != 0 && valueWrappers(t, w) {
				pkg.Wrappers[sym] = w
			}
		case isUntyped(v):
			c := v.Interface().(constant.Value)
			kind, approx, ok := untypedKind(c)
			if !ok {
				errs = append(errs, fmt.Errorf("%s.%s: untyped constant of unknown kind %v", path, sym, c.Kind()))
				continue
			}
			pkg.Untypeds[sym] = untyped.Marshal(kind, c)
			pkg.Binds[sym] = approx
		default:
			pkg.Binds[sym] = v
		}
	}
	for name, t := range unnamed {
		if _, clash := pkg.Types[name]; clash || t.Kind() != reflect.Interface || t.Name() != "" {
			errs = append(errs, fmt.Errorf("%s: %s is not an unnamed interface of its own name (stale proxies: run go generate ./jupyter/proxies)", path, name))
			continue
		}
		pkg.Types[name] = t
	}
	for iface, p := range prox {
		t, ok := pkg.Types[iface]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: proxy for %s, which is not a type of the package", path, iface))
			continue
		}
		if sealed(t) {
			// No value made in the interpreter can implement an
			// interface with unexported methods (vrvm.Method), so it
			// needs no proxy; yaegi's wrapper, from which the proxy was
			// generated, lists only the exported methods.
			continue
		}
		if err := checkProxy(t, p); err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %v", path, iface, err))
			continue
		}
		pkg.Proxies[iface] = p
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return path, pkg, errs
}

var constantValue = reflect.TypeOf((*constant.Value)(nil)).Elem()

// isType reports whether v is yaegi's encoding of a type, (*T)(nil). A
// variable of pointer type is addressable, so it cannot be mistaken for one.
func isType(v reflect.Value) bool {
	return v.Kind() == reflect.Pointer && v.IsNil() && !v.CanAddr()
}

// isUntyped reports whether v is yaegi's encoding of an untyped constant,
// a go/constant value.
func isUntyped(v reflect.Value) bool {
	return !v.CanAddr() && v.Type().Implements(constantValue) && v.Kind() != reflect.Func
}

// untypedKind maps the kind of a go/constant value to gomacro's untyped
// kind and a typed approximation of the value (gomacro reads the exact
// value from Package.Untypeds; the binding only has to exist). go/constant
// does not tell a rune constant from an integer one: both become Int.
func untypedKind(c constant.Value) (untyped.Kind, reflect.Value, bool) {
	switch c.Kind() {
	case constant.Bool:
		return untyped.Bool, reflect.ValueOf(constant.BoolVal(c)), true
	case constant.String:
		return untyped.String, reflect.ValueOf(constant.StringVal(c)), true
	case constant.Int:
		if i, exact := constant.Int64Val(c); exact {
			return untyped.Int, reflect.ValueOf(i), true
		}
		if u, exact := constant.Uint64Val(c); exact {
			return untyped.Int, reflect.ValueOf(u), true
		}
		f, _ := constant.Float64Val(c)
		return untyped.Int, reflect.ValueOf(f), true
	case constant.Float:
		f, _ := constant.Float64Val(c)
		return untyped.Float, reflect.ValueOf(f), true
	case constant.Complex:
		re, _ := constant.Float64Val(constant.Real(c))
		im, _ := constant.Float64Val(constant.Imag(c))
		return untyped.Complex, reflect.ValueOf(complex(re, im)), true
	}
	return untyped.None, reflect.Value{}, false
}

// sealed reports whether interface type t has an unexported method.
func sealed(t reflect.Type) bool {
	if t.Kind() != reflect.Interface {
		return false
	}
	for i := 0; i < t.NumMethod(); i++ {
		if !t.Method(i).IsExported() {
			return true
		}
	}
	return false
}

// checkProxy verifies that proxy has the shape gomacro fills in for
// interface iface: field 0 holds the object, field i+1 is a function named
// after method i of iface with a trailing underscore, and *proxy
// implements iface.
func checkProxy(iface, proxy reflect.Type) error {
	if iface.Kind() != reflect.Interface {
		return fmt.Errorf("proxy %v for non-interface type %v", proxy, iface)
	}
	if proxy.Kind() != reflect.Struct || proxy.NumField() != iface.NumMethod()+1 {
		return fmt.Errorf("proxy %v does not have one field per method of %v plus the object", proxy, iface)
	}
	if f := proxy.Field(0); f.Type.Kind() != reflect.Interface || f.Type.NumMethod() != 0 {
		return fmt.Errorf("proxy %v: field 0 (%s) is not an interface{}", proxy, f.Name)
	}
	for i := 0; i < iface.NumMethod(); i++ {
		m := iface.Method(i)
		f := proxy.Field(i + 1)
		if f.Name != m.Name+"_" || f.Type.Kind() != reflect.Func {
			return fmt.Errorf("proxy %v: field %d is %s, want func %s_ (stale proxies: run go generate ./jupyter/proxies)", proxy, i+1, f.Name, m.Name)
		}
	}
	if !reflect.PointerTo(proxy).Implements(iface) {
		return fmt.Errorf("*%v does not implement %v (stale proxies: run go generate ./jupyter/proxies)", proxy, iface)
	}
	return nil
}

// promoted lists, sorted, the exported methods that struct type t (or *t)
// has only through an embedded field: gomacro's "wrapper methods", which it
// removes from the methods it reflects off t so that method lookup goes
// through the embedded field, as in Go.
//
// reflect lists promoted and declared methods alike. A method is taken as
// promoted when an embedded field provides it and its code, for t and *t
// alike, is compiler-generated; a method t declares itself (which shadows
// the embedded one) has a source position.
func promoted(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	pt := reflect.PointerTo(t)
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		if !embeddedProvides(t, m.Name) || !generated(m.Func) {
			continue
		}
		if vm, ok := t.MethodByName(m.Name); ok && !generated(vm.Func) {
			continue
		}
		names = append(names, m.Name)
	}
	return names
}

// valueWrappers reports whether every wrapper method of t is in the
// method set of t itself, not only of *t. gomacro removes the wrappers
// from the methods it reflects off t; when some of them come from
// pointer-receiver methods of an embedded struct (vrvm's estimators, whose
// accessors are promoted from the embedded vrvm.fitted (unexported)), its cache of
// method values is left misaligned with its method list and the first call
// fails with "inconsistent method signature". For such types the wrappers
// are not listed: gomacro then takes the promoted methods for declared
// ones, which call the same code; only a notebook type that embeds such a
// type beside another with a method of the same name would see an
// ambiguous selector where Go sees the shallower method.
func valueWrappers(t reflect.Type, wrappers []string) bool {
	for _, name := range wrappers {
		if _, ok := t.MethodByName(name); !ok {
			return false
		}
	}
	return true
}

// embeddedProvides reports whether an embedded field of struct type t has
// method name in the method set it contributes to *t.
func embeddedProvides(t reflect.Type, name string) bool {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		if _, ok := f.Type.MethodByName(name); ok {
			return true
		}
		if k := f.Type.Kind(); k != reflect.Pointer && k != reflect.Interface {
			if _, ok := reflect.PointerTo(f.Type).MethodByName(name); ok {
				return true
			}
		}
	}
	return false
}

// generated reports whether the code of method value fn was written by the
// compiler (a promotion or pointer wrapper) rather than declared in source.
func generated(fn reflect.Value) bool {
	f := runtime.FuncForPC(fn.Pointer())
	if f == nil {
		return false
	}
	file, _ := f.FileLine(f.Entry())
	return file == "<autogenerated>"
}
