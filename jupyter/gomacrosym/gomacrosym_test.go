package gomacrosym

import (
	"go/build"
	"go/constant"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cosmos72/gomacro/base/untyped"
	"github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/imports"
	xr "github.com/cosmos72/gomacro/xreflect"
	yaegi "github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/vrvm/vrvm/jupyter/proxies"
	"github.com/vrvm/vrvm/symbols"
)

func TestMain(m *testing.M) {
	// The kernel's start-up fix (see jupyter/gophernotes/vrvm.go): without
	// it gomacro panics on the export data of Go ≥ 1.23.
	build.Default.GOROOT = filepath.Join(os.TempDir(), "vrvm-no-goroot", "does-not-exist")
	os.Exit(m.Run())
}

// TestRegisterClean converts the whole symbol set: no symbol may be lost.
func TestRegisterClean(t *testing.T) {
	dst := imports.PackageMap{}
	for _, err := range Register(dst, symbols.Symbols, proxies.Proxies, proxies.Unnamed) {
		t.Error(err)
	}
	if len(dst) != len(symbols.Symbols) {
		t.Errorf("registered %d packages, the symbol set has %d", len(dst), len(symbols.Symbols))
	}
	for key, syms := range symbols.Symbols {
		path := key[:strings.LastIndexByte(key, '/')]
		pkg, ok := dst[path]
		if !ok {
			t.Errorf("%s not registered", path)
			continue
		}
		for name := range syms {
			if strings.HasPrefix(name, "_") {
				continue
			}
			_, bind := pkg.Binds[name]
			_, typ := pkg.Types[name]
			if bind == typ {
				t.Errorf("%s.%s: bound %v, type %v; want exactly one", path, name, bind, typ)
			}
		}
	}
}

// TestEveryWrapperHasProxy checks that package proxies is in step with
// package symbols: one proxy per yaegi interface wrapper, and no other.
func TestEveryWrapperHasProxy(t *testing.T) {
	for key, syms := range symbols.Symbols {
		for name := range syms {
			if strings.HasPrefix(name, "_") {
				if _, ok := proxies.Proxies[key][name[1:]]; !ok {
					t.Errorf("%s: no proxy for interface %s (run go generate ./jupyter/proxies)", key, name[1:])
				}
			}
		}
	}
	for key, ps := range proxies.Proxies {
		for name := range ps {
			if _, ok := proxies.Unnamed[key][name]; ok {
				continue // see TestUnnamedProxies
			}
			if _, ok := symbols.Symbols[key]["_"+name]; !ok {
				t.Errorf("%s: proxy for %s, which has no yaegi wrapper (run go generate ./jupyter/proxies)", key, name)
			}
		}
	}
}

// TestUnnamedProxies checks that every unnamed interface with methods that
// a function or method of the symbol set takes or returns (plotter's
// NewYErrorBars takes interface{ XYer; YErrorer }) has a proxy, and that
// each entry of proxies.Unnamed is such an interface with a proxy.
func TestUnnamedProxies(t *testing.T) {
	have := map[reflect.Type]bool{}
	for key, us := range proxies.Unnamed {
		for name, u := range us {
			if _, ok := proxies.Proxies[key][name]; !ok {
				t.Errorf("%s: unnamed interface %s without a proxy", key, name)
			}
			have[u] = true
		}
	}
	want := map[reflect.Type]string{}
	var walk func(where string, t reflect.Type, depth int)
	walk = func(where string, t reflect.Type, depth int) {
		if depth > 3 {
			return
		}
		switch t.Kind() {
		case reflect.Interface:
			if t.Name() == "" && t.NumMethod() > 0 {
				want[t] = where
			}
		case reflect.Func:
			for i := 0; i < t.NumIn(); i++ {
				walk(where, t.In(i), depth+1)
			}
			for i := 0; i < t.NumOut(); i++ {
				walk(where, t.Out(i), depth+1)
			}
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
			walk(where, t.Elem(), depth+1)
		}
	}
	for key, syms := range symbols.Symbols {
		for name, v := range syms {
			if !v.IsValid() || strings.HasPrefix(name, "_") {
				continue
			}
			if !isType(v) {
				walk(key+"."+name, v.Type(), 0)
				continue
			}
			pt := v.Type()
			for i := 0; i < pt.NumMethod(); i++ {
				walk(key+"."+name+"."+pt.Method(i).Name, pt.Method(i).Type, 0)
			}
			if st := pt.Elem(); st.Kind() == reflect.Struct {
				for i := 0; i < st.NumField(); i++ {
					walk(key+"."+name+"."+st.Field(i).Name, st.Field(i).Type, 0)
				}
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no unnamed interface in the symbol set: plotter.NewYErrorBars takes one")
	}
	for u, where := range want {
		if !have[u] {
			t.Errorf("%s takes %v, which has no proxy: add it to the list unnamed of jupyter/genproxy", where, u)
		}
	}
}

// TestUntypedExact checks that every untyped constant of the symbol set
// survives gomacro's encoding exactly.
func TestUntypedExact(t *testing.T) {
	n := 0
	for key, syms := range symbols.Symbols {
		path, pkg, _ := Convert(key, syms, nil, nil)
		for name, s := range pkg.Untypeds {
			n++
			want := syms[name].Interface().(constant.Value)
			_, got := untyped.Unmarshal(s)
			if got == nil || !constant.Compare(got, token.EQL, want) {
				t.Errorf("%s.%s: %q decodes to %v, want %v", path, name, s, got, want)
			}
		}
	}
	if n == 0 {
		t.Error("no untyped constants found; the test proves nothing")
	}
}

func TestConvertKinds(t *testing.T) {
	var variable = 1.5
	type T struct{ A int }
	syms := map[string]reflect.Value{
		"Func":    reflect.ValueOf(strings.ToUpper),
		"Var":     reflect.ValueOf(&variable).Elem(),
		"Typed":   reflect.ValueOf(reflect.Float64),
		"Int":     reflect.ValueOf(constant.MakeInt64(-3)),
		"Big":     reflect.ValueOf(constant.Shift(constant.MakeInt64(1), token.SHL, 100)),
		"Float":   reflect.ValueOf(constant.MakeFloat64(0.25)),
		"String":  reflect.ValueOf(constant.MakeString("s")),
		"Bool":    reflect.ValueOf(constant.MakeBool(true)),
		"T":       reflect.ValueOf((*T)(nil)),
		"_Iface":  reflect.ValueOf((*struct{ IValue any })(nil)),
		"Invalid": {},
	}
	path, pkg, errs := Convert("example.com/p/v2/p", syms, nil, nil)
	if path != "example.com/p/v2" || pkg.Name != "p" {
		t.Errorf("path, name = %q, %q", path, pkg.Name)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "Invalid") {
		t.Errorf("errors = %v, want one about Invalid", errs)
	}
	if v := pkg.Binds["Var"]; !v.CanSet() {
		t.Error("variable not settable")
	}
	if pkg.Types["T"] != reflect.TypeOf(T{}) {
		t.Errorf("type T = %v", pkg.Types["T"])
	}
	if _, ok := pkg.Binds["_Iface"]; ok {
		t.Error("yaegi wrapper bound")
	}
	for name, want := range map[string]string{
		"Int":    "int:-3",
		"Big":    "int:1267650600228229401496703205376",
		"Float":  "float:1/4",
		"String": "string:s",
		"Bool":   "bool:true",
	} {
		if got := pkg.Untypeds[name]; got != want {
			t.Errorf("Untypeds[%s] = %q, want %q", name, got, want)
		}
		if _, ok := pkg.Binds[name]; !ok {
			t.Errorf("untyped %s has no binding", name)
		}
	}
	for _, name := range []string{"Func", "Typed"} {
		if v := pkg.Binds[name]; !v.IsValid() || v.CanSet() {
			t.Errorf("%s: bound %v (settable %v)", name, v, v.CanSet())
		}
	}
}

// Types for TestPromoted: inner's methods reach outer through embedding,
// except A, which outer declares again.
type inner struct{}

func (inner) A() {}
func (inner) B() {}

func (*inner) C() {}

type iface interface{ D() }

type outer struct {
	inner
	iface
}

func (outer) A() {}

func (*outer) E() {}

type viaPointer struct{ *inner }

func TestPromoted(t *testing.T) {
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeOf(outer{}), "B C D"},
		{reflect.TypeOf(viaPointer{}), "A B C"},
		{reflect.TypeOf(inner{}), ""},
		{reflect.TypeOf(0), ""},
	} {
		if got := strings.Join(promoted(tc.t), " "); got != tc.want {
			t.Errorf("promoted(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestCheckProxy(t *testing.T) {
	iface := reflect.TypeOf((*interface {
		M(int) int
		N()
	})(nil)).Elem()
	type wrongOrder struct {
		Object any
		N_     func(any)
		M_     func(any, int) int
	}
	if err := checkProxy(iface, reflect.TypeOf(wrongOrder{})); err == nil {
		t.Error("proxy with fields out of method order accepted")
	}
	if err := checkProxy(reflect.TypeOf(0), reflect.TypeOf(wrongOrder{})); err == nil {
		t.Error("proxy for a non-interface accepted")
	}
	for key, ps := range proxies.Proxies {
		_, pkg, _ := Convert(key, symbols.Symbols[key], nil, proxies.Unnamed[key])
		for name, p := range ps {
			if sealed(pkg.Types[name]) {
				if _, kept := pkg.Proxies[name]; kept {
					t.Errorf("%s.%s: proxy registered for a sealed interface", key, name)
				}
				continue
			}
			if err := checkProxy(pkg.Types[name], p); err != nil {
				t.Errorf("%s.%s: %v", key, name, err)
			}
		}
	}
}

// eval runs src in a fresh gomacro interpreter, as the kernel does, and
// returns the values of its last expression.
func eval(t *testing.T, src string) []xr.Value {
	t.Helper()
	ir := fast.New()
	ir.Comp.Stdout = io.Discard
	ir.Comp.Stderr = io.Discard
	var vals []xr.Value
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("gomacro: %v\nsource:\n%s", r, src)
			}
		}()
		vals, _ = ir.Eval(src)
	}()
	return vals
}

func float(t *testing.T, v xr.Value) float64 {
	t.Helper()
	f, ok := v.Interface().(float64)
	if !ok {
		t.Fatalf("value %v (%T) is not a float64", v.Interface(), v.Interface())
	}
	return f
}

// TestGomacroEndToEnd drives the gomacro interpreter of the kernel with
// the registered packages: interpreted types implementing compiled
// interfaces (through the proxies), untyped constants, promoted methods,
// and a vrvm fit with a kernel written in the interpreter.
func TestGomacroEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want float64
	}{
		{"XYer", `
import "gonum.org/v1/plot/plotter"
type sq struct{ n int }
func (s sq) Len() int { return s.n }
func (s sq) XY(i int) (float64, float64) { return float64(i), float64(i * i) }
xys, err := plotter.CopyXYs(sq{4})
xys[3].Y`, 9},
		// NewYErrorBars and NewXErrorBars take unnamed interfaces.
		{"YErrorer", `
import "gonum.org/v1/plot/plotter"
type pts struct{ n int }
func (p pts) Len() int { return p.n }
func (p pts) XY(i int) (float64, float64) { return float64(i), float64(2 * i) }
func (p pts) YError(i int) (float64, float64) { return 0.5, float64(i) }
e, err := plotter.NewYErrorBars(pts{3})
if err != nil { panic(err) }
e.YErrors[2].High + e.XYs[2].Y`, 6},
		{"XErrorer", `
import "gonum.org/v1/plot/plotter"
type pts struct{ n int }
func (p pts) Len() int { return p.n }
func (p pts) XY(i int) (float64, float64) { return float64(i), float64(2 * i) }
func (p pts) XError(i int) (float64, float64) { return float64(i), 0.5 }
e, err := plotter.NewXErrorBars(pts{3})
if err != nil { panic(err) }
e.XErrors[1].Low + e.XYs[1].X`, 2},
		{"Matrix", `
import "gonum.org/v1/gonum/mat"
type eye struct{ n int }
func (e eye) Dims() (int, int) { return e.n, e.n }
func (e eye) At(i, j int) float64 { if i == j { return 1 }; return 0 }
func (e eye) T() mat.Matrix { return e }
var d mat.Dense
d.Add(eye{3}, eye{3})
mat.Sum(&d)`, 6},
		{"untyped", `
import "gonum.org/v1/gonum/mat"
mat.ConditionTolerance / 4`, 2.5e15},
		{"promoted", `
import "gonum.org/v1/plot/plotter"
l, _ := plotter.NewLine(plotter.XYs{{1, 2}, {3, 4}})
x, y := l.XY(1)
float64(l.Len()) + x + y`, 9},
		// Line has Len only through its embedded XYs (depth 2 from both),
		// count declares it (depth 1): Go selects count's. Without the
		// Wrappers list gomacro takes Line's Len for a declared method
		// and reports an ambiguous selector.
		{"promoted depth", `
import "gonum.org/v1/plot/plotter"
type count struct{}
func (count) Len() int { return 7 }
type both struct {
	*plotter.Line
	count
}
l, _ := plotter.NewLine(plotter.XYs{{1, 2}, {3, 4}})
float64(both{l, count{}}.Len())`, 7},
		{"vrvm kernel", `
import (
	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)
type lin struct{}
func (lin) Eval(x, y []float64) float64 { return 1 + x[0]*y[0] }
m := &vrvm.Regressor{Kernel: lin{}, MaxIter: 50}
x := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 4})
err := m.Fit(x, []float64{1, 3, 5, 7, 9})
if err != nil { panic(err) }
mean, _, _ := m.Predict(mat.NewDense(1, 1, []float64{10}))
mean[0]`, 21},
		// MultiClassifier's Mean is declared on its embedded multiFit and
		// shadows the Mean of the fitted state multiFit embeds; Save is
		// promoted from that fitted state, two levels down.
		{"vrvm multiclass", `
import (
	"bytes"
	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)
x := mat.NewDense(9, 1, []float64{0, 0.2, 0.4, 3, 3.2, 3.4, 6, 6.2, 6.4})
c := &vrvm.MultiClassifier{Kernel: vrvm.Gaussian{Width: 1}, MaxIter: 200}
if err := c.Fit(x, []string{"a", "a", "a", "b", "b", "b", "c", "c", "c"}); err != nil { panic(err) }
var buf bytes.Buffer
if err := c.Save(&buf); err != nil { panic(err) }
l, err := vrvm.LoadMultiClassifier(&buf)
if err != nil { panic(err) }
p1, _ := c.Prob(x)
p2, _ := l.Prob(x)
_, k := c.Mean().Dims()
same := 0.0
if mat.Equal(p1, p2) { same = 1 }
r, _ := l.Alpha().Dims()
float64(k) + same + float64(r-c.Covariance(0).SymmetricDim())`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := eval(t, tc.src)
			if len(vals) != 1 {
				t.Fatalf("%d values, want 1", len(vals))
			}
			got := float(t, vals[0])
			tol := 1e-9
			if tc.name == "vrvm kernel" {
				tol = 0.05 // a Bayesian fit with broad priors, not an exact solve
			}
			if d := got - tc.want; d > tol*max(1, tc.want) || d < -tol*max(1, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCellPackage checks the hand-written binding of package cell.
func TestCellPackage(t *testing.T) {
	vals := eval(t, `
import "github.com/vrvm/vrvm/jupyter/cell"
ctx := cell.Context()
cell.Interrupt()
_ = ctx
cell.Interrupted()`)
	if len(vals) != 1 || vals[0].Interface() != true {
		t.Fatalf("cell.Interrupted() after cell.Interrupt() = %v", vals)
	}
}

// BenchmarkRegister measures the conversion the kernel performs at start.
func BenchmarkRegister(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dst := imports.PackageMap{}
		if errs := Register(dst, symbols.Symbols, proxies.Proxies, proxies.Unnamed); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// TestConsistentWithYaegi evaluates the same programs in gomacro, through
// this package, and in yaegi, through symbols.Symbols directly, as "vrvm
// run" does: the two interpreters must agree on the compiled packages.
func TestConsistentWithYaegi(t *testing.T) {
	for _, tc := range []struct{ imports, decls, body string }{
		{`import "gonum.org/v1/gonum/mat"`, "", `
a := mat.NewDense(3, 3, []float64{4, 1, 0, 1, 3, 1, 0, 1, 2})
var lu mat.LU
lu.Factorize(a)
lu.Det()`},
		{`import "gonum.org/v1/gonum/stat/distuv"`, "", `
g := distuv.Gamma{Alpha: 2.5, Beta: 1.5}
g.Mean() + g.LogProb(1.2)`},
		{`import "gonum.org/v1/gonum/mat"`, "", `mat.ConditionTolerance / 3`},
		{`import (
	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)`, `
type lin struct{}

func (lin) Eval(x, y []float64) float64 { return 1 + x[0]*y[0] }

// An interpreted value into a compiled interface field: yaegi v0.16.1
// panics on &vrvm.Regressor{Kernel: lin{}} and on vrvm.Kernel(lin{}),
// gomacro on m.Kernel = lin{}. Through an interface variable both work.
var k vrvm.Kernel = lin{}`, `
m := &vrvm.Regressor{Kernel: k, MaxIter: 30}
m.Fit(mat.NewDense(4, 1, []float64{0, 1, 2, 3}), []float64{1, 2.9, 5.1, 7})
m.LowerBound()`},
	} {
		src := tc.imports + "\n" + tc.decls + "\n" + tc.body
		gm := float(t, eval(t, src)[0])

		yi := yaegi.New(yaegi.Options{})
		if err := yi.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		if err := yi.Use(symbols.Symbols); err != nil {
			t.Fatal(err)
		}
		// yaegi evaluates imports, declarations and statements separately.
		for _, part := range []string{tc.imports, tc.decls} {
			if _, err := yi.Eval(part); err != nil {
				t.Fatalf("yaegi: %v\n%s", err, part)
			}
		}
		v, err := yi.Eval(tc.body)
		if err != nil {
			t.Fatalf("yaegi: %v\n%s", err, src)
		}
		yv, ok := v.Interface().(float64)
		if !ok {
			t.Fatalf("yaegi: %v (%T) is not a float64", v.Interface(), v.Interface())
		}
		if gm != yv {
			t.Errorf("gomacro %v, yaegi %v for\n%s", gm, yv, src)
		}
	}
}
