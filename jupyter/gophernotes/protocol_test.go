//go:build vrvmkernel

package main

import (
	"reflect"
	"testing"

	interp "github.com/cosmos72/gomacro/fast"

	"github.com/vrvm/vrvm/vrvm"
)

// These tests run with the kernel's overlay (jupyter/mkkernel):
//
//	go run ./jupyter/mkkernel -overlay ov.json
//	go test -overlay ov.json -tags vrvmkernel ./jupyter/gophernotes

func TestCompileMessage(t *testing.T) {
	ir := interp.New()
	ir.DeclVar("r", nil, &vrvm.Regressor{})
	importPackage(ir, "fmt", "fmt")
	for _, c := range []struct{ in, want string }{
		{`repl.go:1:1: not a package: "r" in r.Predcit <*ast.SelectorExpr>`,
			"repl.go:1:1: r.Predcit undefined (type *vrvm.Regressor has no field or method Predcit)"},
		{`repl.go:2:1: not a type: fmt.Printn <*ast.SelectorExpr>`, "repl.go:2:1: undefined: fmt.Printn"},
		{`repl.go:1:1: not a package: "q" in q.X <*ast.SelectorExpr>`, "repl.go:1:1: undefined: q"},
		{`repl.go:1:1: undefined identifier: foo`, "repl.go:1:1: undefined: foo"},
		{`repl.go:1:6: expected operand, found ')'`, `repl.go:1:6: expected operand, found ')'`},
	} {
		if got := compileMessage(ir, c.in); got != c.want {
			t.Errorf("compileMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNameAt(t *testing.T) {
	for _, c := range []struct {
		code string
		pos  int
		want string
	}{
		{"r.Fit(x, t)", 3, "r.Fit"},
		{"r.Fit(x, t)", 5, "r.Fit"},
		{"r.Fit(x, t)", 6, "r.Fit"},
		{"vrvm.Regressor", 14, "vrvm.Regressor"},
		{"a := vrvm.Gaussian{}", 8, "vrvm.Gaussian"},
		{"", 0, ""},
	} {
		if got := nameAt(c.code, c.pos); got != c.want {
			t.Errorf("nameAt(%q, %d) = %q, want %q", c.code, c.pos, got, c.want)
		}
	}
}

func TestExportedMatches(t *testing.T) {
	got := exportedMatches([]string{"r.Fit", "r.fitted", "Kernel", "alpha", "fmt.Println"}, false)
	if want := []string{"r.Fit", "Kernel", "alpha", "fmt.Println"}; !reflect.DeepEqual(got, want) {
		t.Errorf("exportedMatches = %q, want %q", got, want)
	}
	got = exportedMatches([]string{"Fit", "fitted", "Kernel"}, true)
	if want := []string{"Fit", "Kernel"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a selector: exportedMatches = %q, want %q", got, want)
	}
	if got := exportedMatches(nil, true); got == nil || len(got) != 0 {
		t.Errorf("no matches: %#v, want an empty list", got)
	}
	if got := byteOffset("αβx", 2); got != 4 {
		t.Errorf("byteOffset(αβx, 2) = %d, want 4", got)
	}
}
