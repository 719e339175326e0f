package source

import (
	"go/scanner"
	"go/token"
	"strings"
)

// The statuses of Complete, those of Jupyter's is_complete_reply.
const (
	StatusComplete   = "complete"
	StatusIncomplete = "incomplete"
	StatusInvalid    = "invalid"
	StatusUnknown    = "unknown"
)

// Complete judges whether src, an input of an interactive session, is
// complete and can run, incomplete (a bracket, string or comment left
// open: more lines will follow) or invalid (a syntax error no further
// line can mend). parse is the interpreter's parser (an input may mix
// declarations and statements, which go/parser accepts in no one mode);
// it is consulted only when every bracket is closed. For an incomplete
// input, indent is one tab per open bracket, to prefix the next line.
// Lines that start with '%' or '$' (the kernel's special and shell
// commands) are not Go and are skipped. An input of blanks only is
// unknown.
func Complete(src string, parse func(src string) error) (status, indent string) {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "%") || strings.HasPrefix(t, "$") {
			l = ""
		}
		lines = append(lines, l)
	}
	src = strings.Join(lines, "\n")
	if strings.TrimSpace(src) == "" {
		return StatusUnknown, ""
	}

	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var open []token.Token
	unterminated, bad := false, false
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) {
		switch {
		case pos.Offset >= len(src) || strings.HasSuffix(msg, "not terminated"):
			unterminated = true
		default:
			bad = true
		}
	}, scanner.ScanComments)
	var last token.Token
	for {
		_, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON || tok == token.COMMENT {
			// automatic semicolons and comments say nothing of continuation
			if tok == token.SEMICOLON {
				last = tok
			}
			continue
		}
		last = tok
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, tok)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) == 0 || open[len(open)-1] != opening(tok) {
				return StatusInvalid, ""
			}
			open = open[:len(open)-1]
		}
	}
	switch {
	case unterminated:
		return StatusIncomplete, strings.Repeat("\t", len(open))
	case bad:
		return StatusInvalid, ""
	case len(open) > 0:
		return StatusIncomplete, strings.Repeat("\t", len(open))
	case continues(last):
		return StatusIncomplete, ""
	}
	if parse != nil && parse(src) != nil {
		return StatusInvalid, ""
	}
	return StatusComplete, ""
}

func opening(closing token.Token) token.Token {
	switch closing {
	case token.RPAREN:
		return token.LPAREN
	case token.RBRACK:
		return token.LBRACK
	}
	return token.LBRACE
}

// continues reports whether an input whose last token is tok needs
// another line: it ends with a binary operator, a comma or a period.
func continues(tok token.Token) bool {
	switch tok {
	case token.COMMA, token.PERIOD:
		return true
	}
	return tok.IsOperator() && tok != token.SEMICOLON && tok != token.INC && tok != token.DEC &&
		tok != token.RPAREN && tok != token.RBRACK && tok != token.RBRACE
}
