package source

import (
	"bytes"
	"context"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

func goParse(src string) error {
	if _, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+src, 0); err == nil {
		return nil
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+src+"\n}", 0)
	return err
}

func TestComplete(t *testing.T) {
	for _, c := range []struct{ src, status, indent string }{
		{"b := )", StatusInvalid, ""},
		{"x := 1", StatusComplete, ""},
		{"for i := 0; i < 3; i++ {", StatusIncomplete, "\t"},
		{"func f() {\n\tif true {", StatusIncomplete, "\t\t"},
		{"s := `abc", StatusIncomplete, ""},
		{"/* comment", StatusIncomplete, ""},
		{"x := 1 +", StatusIncomplete, ""},
		{"f(a,", StatusIncomplete, "\t"},
		{"x := [}", StatusInvalid, ""},
		{"x := 1 1", StatusInvalid, ""},
		{"   \n", StatusUnknown, ""},
		{"%cd /tmp\nx := 2", StatusComplete, ""},
		{"x++", StatusComplete, ""},
	} {
		status, indent := Complete(c.src, goParse)
		if status != c.status || indent != c.indent {
			t.Errorf("Complete(%q) = %q, %q; want %q, %q", c.src, status, indent, c.status, c.indent)
		}
	}
}

type fitter struct{}

func (fitter) Fit(x []float64, t []float64) error                                  { return nil }
func (fitter) FitContext(ctx context.Context, x []float64, t []float64) error      { return nil }
func (*fitter) Predict(x []float64) []float64                                      { return nil }
func (*fitter) PredictContext(ctx context.Context, x []float64) ([]float64, error) { return nil, nil }
func (fitter) Score(x []float64) error                                             { return nil }
func (fitter) ScoreContext(x []float64, ctx context.Context) error                 { return nil }

func TestContextMethods(t *testing.T) {
	funcs := map[string]reflect.Value{
		"Run":         reflect.ValueOf(func(n int) error { return nil }),
		"RunContext":  reflect.ValueOf(func(ctx context.Context, n int) error { return nil }),
		"Walk":        reflect.ValueOf(func(n int) error { return nil }),
		"WalkContext": reflect.ValueOf(func(n int, ctx context.Context) error { return nil }),
	}
	got := ContextMethods([]reflect.Type{reflect.TypeOf(fitter{})}, funcs)
	want := map[string]string{"Fit": "FitContext", "Run": "RunContext"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ContextMethods = %v, want %v (Predict's results differ, Score's context is not first)", got, want)
	}
}

func rewritten(t *testing.T, r Rewrite, src string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+src+"\n}", 0)
	if err != nil {
		t.Fatal(err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	r.Apply(body)
	var b bytes.Buffer
	if err := format.Node(&b, token.NewFileSet(), body); err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func TestRewrite(t *testing.T) {
	r := Rewrite{Methods: map[string]string{"Fit": "FitContext"}, Context: "ctx", GoPanic: "gopanic"}
	for _, c := range []struct{ src, want string }{
		{"err := m.Fit(x, t)", "{ err := m.FitContext(ctx(), x, t) }"},
		{"if err := m.Fit(x, t); err != nil { panic(err) }", "{ if err := m.FitContext(ctx(), x, t); err != nil { panic(err) } }"},
		{"m.Predict(x)", "{ m.Predict(x) }"},
		{"Fit(x)", "{ Fit(x) }"},
		{"go func() { panic(1) }()",
			"{ { go func() { defer func() { if _vrvmGoR := recover(); _vrvmGoR != nil { gopanic(_vrvmGoR) } }() func() { panic(1) }() }() } }"},
		{"go work(i, 2, xs...)",
			"{ { _vrvmGoF, _vrvmGoA0, _vrvmGoA2 := work, i, xs go func() { defer func() { if _vrvmGoR := recover(); _vrvmGoR != nil { gopanic(_vrvmGoR) } }() _vrvmGoF(_vrvmGoA0, 2, _vrvmGoA2...) }() } }"},
		{"go println(1)", "{ go println(1) }"},
	} {
		if got := rewritten(t, r, c.src); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
	if got := rewritten(t, Rewrite{}, "m.Fit(x)\ngo f()"); got != "{ m.Fit(x) go f() }" {
		t.Errorf("the zero Rewrite changed the source: %s", got)
	}
}

func TestApplyList(t *testing.T) {
	r := Rewrite{Methods: map[string]string{"Fit": "FitContext"}, Context: "ctx", GoPanic: "gopanic"}
	nodes := []ast.Node{
		&ast.GoStmt{Call: &ast.CallExpr{Fun: ast.NewIdent("f")}},
		&ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("m"), Sel: ast.NewIdent("Fit")}}},
	}
	if !r.ApplyList(nodes) {
		t.Fatal("ApplyList changed nothing")
	}
	if _, ok := nodes[0].(*ast.BlockStmt); !ok {
		t.Errorf("the top-level go statement is a %T, want its recovering block", nodes[0])
	}
	if sel := nodes[1].(*ast.ExprStmt).X.(*ast.CallExpr).Fun.(*ast.SelectorExpr); sel.Sel.Name != "FitContext" {
		t.Errorf("the top-level call is of %s, want FitContext", sel.Sel.Name)
	}
}
