//go:build vrvmkernel

package main

import (
	"fmt"
	"log"
	"path"
	"regexp"
	"runtime"
	"strings"

	"github.com/cosmos72/gomacro/base"
	interp "github.com/cosmos72/gomacro/fast"

	"github.com/vrvm/vrvm/jupyter/source"
	"github.com/vrvm/vrvm/jupyter/wire"
)

// The requests of the Jupyter messaging protocol 5.3 that gophernotes
// v0.7.5 did not answer, and the replies it sent without "status", as
// ipykernel 6 serves them.

// controlTypes are the requests answered on the control channel, also
// while a cell runs: none of them touches the interpreter.
var controlTypes = map[string]bool{
	"kernel_info_request": true, "interrupt_request": true, "shutdown_request": true,
}

// sendKernelInfo sends a kernel_info_reply message.
func sendKernelInfo(receipt msgReceipt) error {
	return receipt.Reply("kernel_info_reply", map[string]interface{}{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "gophernotes",
		"implementation_version": Version,
		"banner":                 fmt.Sprintf("Go kernel: gophernotes v%s with vrvm (%s)", Version, runtime.Version()),
		"language_info": map[string]interface{}{
			"name":               "go",
			"version":            runtime.Version(),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"help_links": []helpLink{
			{Text: "Go", URL: "https://go.dev/"},
			{Text: "gophernotes", URL: "https://github.com/gopherdata/gophernotes"},
		},
		"debugger": false,
	})
}

// handleIsCompleteRequest sends the is_complete_reply of an
// is_complete_request, judged by the Go scanner and gomacro's parser.
func (kernel *Kernel) handleIsCompleteRequest(receipt msgReceipt) error {
	content, _ := receipt.Msg.Content.(map[string]interface{})
	code, _ := wire.String(content, "code")
	status, indent := source.Complete(code, kernel.parses)
	reply := map[string]interface{}{"status": status}
	if status == source.StatusIncomplete {
		reply["indent"] = indent
	}
	return receipt.Reply("is_complete_reply", reply)
}

// parses returns the error of parsing code with gomacro, or nil.
func (kernel *Kernel) parses(code string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	kernel.ir.Comp.ParseBytes([]byte(code))
	return nil
}

// handleInterruptRequest answers an interrupt_request (a kernelspec with
// interrupt_mode "message") and interrupts the running cell, as SIGINT
// does.
func (kernel *Kernel) handleInterruptRequest(receipt msgReceipt) error {
	kernel.cells.interrupt()
	return receipt.Reply("interrupt_reply", map[string]interface{}{"status": "ok"})
}

// handleCommInfoRequest answers that there are no comms: the kernel
// registers no comm targets.
func handleCommInfoRequest(receipt msgReceipt) error {
	return receipt.Reply("comm_info_reply", map[string]interface{}{"status": "ok", "comms": map[string]interface{}{}})
}

// handleCommOpen closes a comm a frontend opens, since no target exists,
// as ipykernel's comm manager does for an unknown target_name.
func handleCommOpen(receipt msgReceipt) error {
	content, _ := receipt.Msg.Content.(map[string]interface{})
	id, _ := wire.String(content, "comm_id")
	target, _ := wire.String(content, "target_name")
	log.Printf("vrvm kernel: comm_open for unknown target %q: closing comm %q", target, id)
	return receipt.Publish("comm_close", map[string]interface{}{"comm_id": id, "data": map[string]interface{}{}})
}

// historyEntry is one executed cell, for history_request.
type historyEntry struct {
	line  int
	input string
}

// historySession is the session number of the entries: the kernel keeps
// the history of its own session only.
const historySession = 1

// handleHistoryRequest answers a history_request from the cells this
// kernel executed: the last n ("tail"), those of a range of execution
// counts ("range"), or those matching a glob pattern ("search"), as
// [session, line, input] (or [session, line, [input, null]] if output is
// asked for: outputs are not kept).
func (kernel *Kernel) handleHistoryRequest(receipt msgReceipt) error {
	content, _ := receipt.Msg.Content.(map[string]interface{})
	access, _ := wire.String(content, "hist_access_type")
	output := wire.Bool(content, "output", false)
	num := func(key string, def int) int {
		if f, ok := content[key].(float64); ok {
			return int(f)
		}
		return def
	}
	var entries []historyEntry
	switch access {
	case "tail":
		n := num("n", 10)
		entries = kernel.history
		if n >= 0 && n < len(entries) {
			entries = entries[len(entries)-n:]
		}
	case "range":
		start, stop := num("start", 0), num("stop", 0)
		for _, e := range kernel.history {
			if e.line >= start && (stop <= 0 || e.line < stop) {
				entries = append(entries, e)
			}
		}
	case "search":
		pattern, _ := wire.String(content, "pattern")
		unique := wire.Bool(content, "unique", false)
		seen := map[string]bool{}
		for _, e := range kernel.history {
			if ok, _ := path.Match(pattern, e.input); ok && !(unique && seen[e.input]) {
				entries = append(entries, e)
				seen[e.input] = true
			}
		}
		if n := num("n", -1); n >= 0 && n < len(entries) {
			entries = entries[len(entries)-n:]
		}
	}
	hist := []interface{}{}
	for _, e := range entries {
		var in interface{} = e.input
		if output {
			in = []interface{}{e.input, nil}
		}
		hist = append(hist, []interface{}{historySession, e.line, in})
	}
	return receipt.Reply("history_reply", map[string]interface{}{"status": "ok", "history": hist})
}

// sendAbortReply answers a request queued behind a failed cell under
// stop_on_error, as ipykernel's _send_abort_reply.
func sendAbortReply(receipt msgReceipt) error {
	kind := receipt.Msg.Header.MsgType
	kind = strings.TrimSuffix(kind, "_request") + "_reply"
	return receipt.Reply(kind, map[string]interface{}{"status": "aborted"})
}

// compileErrorWords rewrites gomacro's messages for the common compile
// errors in the words of the Go compiler.
var (
	notAPackage = regexp.MustCompile(`not a package: "([\pL_][\pL\pN_]*)" in ([\pL_][\pL\pN_]*)\.([\pL_][\pL\pN_]*) <\*ast\.SelectorExpr>`)
	notAType    = regexp.MustCompile(`not a type: ([\pL_][\pL\pN_]*)\.([\pL_][\pL\pN_]*) <\*ast\.SelectorExpr>`)
	astSuffix   = regexp.MustCompile(` <\*ast\.[A-Za-z]+>`)
)

// compileMessage returns the message of a compile error err in the words
// of the Go compiler where it can: "x.M undefined (type T has no field or
// method M)" for an unknown member of a value, "undefined: pkg.Name" for
// an unknown member of a package. The position prefix gomacro gives is
// kept.
func compileMessage(ir *interp.Interp, msg string) string {
	msg = notAPackage.ReplaceAllStringFunc(msg, func(m string) string {
		s := notAPackage.FindStringSubmatch(m)
		if sym := ir.Comp.TryResolve(s[1]); sym != nil && sym.Type != nil {
			return fmt.Sprintf("%s.%s undefined (type %s has no field or method %s)", s[2], s[3], sym.Type.ReflectType(), s[3])
		}
		return fmt.Sprintf("undefined: %s", s[1])
	})
	msg = notAType.ReplaceAllStringFunc(msg, func(m string) string {
		s := notAType.FindStringSubmatch(m)
		if sym := ir.Comp.TryResolve(s[1]); sym == nil || sym.Type == nil || sym.Desc.Class() == interp.ConstBind {
			return fmt.Sprintf("undefined: %s.%s", s[1], s[2])
		}
		return m
	})
	msg = strings.Replace(msg, "undefined identifier: ", "undefined: ", 1)
	return astSuffix.ReplaceAllString(msg, "")
}

// A cellError is the failure of a cell: its kind (the error output's
// ename) and message.
type cellError struct {
	ename, evalue string
}

func (e *cellError) Error() string { return e.evalue }

// The kinds of cellError.
const (
	errCompile   = "CompileError"
	errPanic     = "panic"
	errInterrupt = "Interrupt"
)

// interruptMessage is the message of an interrupted cell.
const interruptMessage = "interrupted by the user (Kernel → Interrupt)"

// isInterrupt reports whether r, a recovered panic value, is gomacro's
// interrupt.
func isInterrupt(r interface{}) bool {
	sig, ok := r.(base.Signal)
	return ok && sig == base.SigInterrupt
}
