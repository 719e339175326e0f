//go:build vrvmkernel

// This file replaces complete.go of gophernotes v0.7.5 (MIT licence,
// Copyright (c) 2016 the gophernotes contributors) in the kernel build
// (see kernel.go). Its changes: the request's fields are read without
// assertions that panic; the reply always has status "ok", metadata and
// a cursor range (no completions is an empty list, as ipykernel answers,
// not an error); after a selector only exported names are offered (gomacro
// lists the unexported fields of compiled types, which cannot be used).
package main

import (
	"strings"
	"unicode"
	"unicode/utf8"

	interp "github.com/cosmos72/gomacro/fast"

	"github.com/vrvm/vrvm/jupyter/wire"
)

// handleCompleteRequest sends the complete_reply of a complete_request.
func handleCompleteRequest(ir *interp.Interp, receipt msgReceipt) error {
	reqcontent, _ := receipt.Msg.Content.(map[string]interface{})
	code, _ := wire.String(reqcontent, "code")
	cursor := len(code)
	if f, ok := reqcontent["cursor_pos"].(float64); ok && f >= 0 && int(f) <= len(code) {
		cursor = int(f)
	}
	// Jupyter counts the cursor in Unicode code points, gomacro in bytes.
	pos := byteOffset(code, cursor)
	prefix, matches, _ := ir.CompleteWords(code, pos)
	partial := interp.TailIdentifier(prefix)
	start := utf8.RuneCountInString(prefix[:len(prefix)-len(partial)])
	if len(matches) == 0 {
		start = cursor
	}
	return receipt.Reply("complete_reply", map[string]interface{}{
		"status":       "ok",
		"matches":      exportedMatches(matches, strings.HasSuffix(prefix[:len(prefix)-len(partial)], ".")),
		"cursor_start": start,
		"cursor_end":   cursor,
		"metadata":     map[string]interface{}{},
	})
}

// byteOffset converts a cursor position in code points to one in bytes.
func byteOffset(s string, runes int) int {
	for i := range s {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(s)
}

// exportedMatches drops the completions whose last selector is not
// exported ("r.fitted", or "fitted" after a selector if afterDot); it
// never returns nil.
func exportedMatches(matches []string, afterDot bool) []string {
	out := []string{}
	for _, m := range matches {
		if i := strings.LastIndexByte(m, '.'); i >= 0 || afterDot {
			r, _ := utf8.DecodeRuneInString(m[i+1:])
			if r != utf8.RuneError && !unicode.IsUpper(r) {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}
