package symdoc

import (
	"path"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/symbols"
)

// TestSymbolDocsCoverSymbols checks that the generated documentation
// (symdoc_gen.go) has an entry for every package and exported name of the
// symbol set: a symbol set regenerated without "make generate" fails here
// as well as in scripts/check-docs.sh.
func TestSymbolDocsCoverSymbols(t *testing.T) {
	for key, members := range symbols.Symbols {
		dir := path.Dir(key)
		if _, ok := symbolDocs[dir]; !ok {
			t.Errorf("no documentation for the package %s", dir)
		}
		for name := range members {
			if strings.HasPrefix(name, "_") {
				continue // an interface wrapper
			}
			if _, ok := symbolDocs[dir+"."+name]; !ok {
				t.Errorf("no documentation for %s.%s", dir, name)
			}
		}
	}
}

// TestFormat checks the layout of :doc, that of "go doc".
func TestFormat(t *testing.T) {
	got := Format("func F(x int) int\n\nF doubles x.\n\nIt never fails.\n")
	want := "func F(x int) int\n\n    F doubles x.\n\n    It never fails.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Format("const C = 1\n\n"); got != "const C = 1\n" {
		t.Errorf("without a comment: %q", got)
	}
}
