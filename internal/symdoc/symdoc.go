// Package symdoc holds the Go documentation of the packages of the symbol
// set (symbols.Symbols), generated into symdoc_gen.go so that the REPL's
// :doc and the Jupyter kernel's inspect_request work in an installed
// binary without the source tree. "make generate" runs the go:generate
// line below after regenerating the symbols; scripts/check-docs.sh checks
// that the file is up to date.
package symdoc

import "strings"

//go:generate go run ../../cmd/vrvm/internal/gendoc -o symdoc_gen.go

// Lookup returns the documentation of key: "import/path" (the package
// comment), "import/path.Name" (a constant, variable, function or type)
// or "import/path.Type.Method", as the declaration, a blank line and the
// doc comment.
func Lookup(key string) (text string, ok bool) {
	text, ok = symbolDocs[key]
	return text, ok
}

// Format lays out an entry of Lookup as "go doc" does: the declaration,
// then the comment indented.
func Format(text string) string {
	decl, comment, _ := strings.Cut(text, "\n\n")
	var b strings.Builder
	b.WriteString(decl + "\n")
	if comment = strings.TrimRight(comment, "\n"); comment != "" {
		b.WriteString("\n")
		for _, line := range strings.Split(comment, "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}
