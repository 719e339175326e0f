//go:build vrvmkernel

// This file replaces kernel.go of gophernotes v0.7.5 (MIT licence,
// Copyright (c) 2016 the gophernotes contributors) in the kernel build:
// jupyter/mkkernel maps every other file of gophernotes' main package from
// the module cache and this one instead of gophernotes' own. It is
// gophernotes' kernel.go with these changes:
//
//   - the message loop checks framing and signature (package
//     jupyter/wire, constant-time HMAC) before anything else, and logs and
//     drops bad messages instead of exiting or panicking; it drops
//     replayed message ids; it keeps serving after a receive or send error
//     on any socket (a client that disconnects), heartbeat included;
//   - request fields are read without type assertions that panic: an
//     execute_request without "silent" means silent = false, one without
//     "code" gets an error reply and runs nothing; a panic in any handler
//     is logged, not fatal;
//   - control-channel requests are answered on the control socket, in a
//     goroutine of their own, also while a cell runs (protocol.go);
//   - the requests of protocol 5.3 gophernotes did not answer are
//     (protocol.go, inspect.go); after a failed cell with stop_on_error,
//     the queued execute requests are aborted, as ipykernel does;
//   - cells are rewritten before they compile so that interrupts stop
//     plain compiled calls and goroutine panics are recovered
//     (interrupt.go); errors are error outputs with ename and traceback,
//     compile errors in the Go compiler's words;
//   - the ipc transport binds Jupyter's "<ip>-<port>" endpoints;
//   - package cell (jupyter/cell) can publish display_data and
//     update_display_data for the running cell (progress displays);
//   - a cell's result always carries text/plain beside a rich form;
//   - the unreachable parser fallback of checkComplete is gone (go vet).
//
// The message loop is in serve.go, the special commands (% and $ lines)
// in commands.go.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"io/ioutil"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/vrvm/vrvm/jupyter/cell"
	"github.com/vrvm/vrvm/jupyter/source"
	"github.com/vrvm/vrvm/jupyter/wire"

	"github.com/cosmos72/gomacro/ast2"
	"github.com/cosmos72/gomacro/base"
	basereflect "github.com/cosmos72/gomacro/base/reflect"
	interp "github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/xreflect"

	// compile and link files generated in imports/
	_ "github.com/gopherdata/gophernotes/imports"
)

// ExecCounter is incremented each time we run user code in the notebook.
var ExecCounter int

// ConnectionInfo stores the contents of the kernel connection
// file created by Jupyter.
type ConnectionInfo struct {
	SignatureScheme string `json:"signature_scheme"`
	Transport       string `json:"transport"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	ShellPort       int    `json:"shell_port"`
	Key             string `json:"key"`
	IP              string `json:"ip"`
}

// Socket wraps a zmq socket with a lock which should be used to control write access.
type Socket struct {
	Socket zmq4.Socket
	Lock   *sync.Mutex
}

// SocketGroup holds the sockets needed to communicate with the kernel,
// and the key for message signing.
type SocketGroup struct {
	ShellSocket   Socket
	ControlSocket Socket
	StdinSocket   Socket
	IOPubSocket   Socket
	HBSocket      Socket
	Key           []byte
}

// HelpLink stores data to be displayed in the help menu of the notebook.
type helpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// shutdownReply encodes a boolean indication of shutdown/restart.
type shutdownReply struct {
	Status  string `json:"status"`
	Restart bool   `json:"restart"`
}

const (
	kernelStarting = "starting"
	kernelBusy     = "busy"
	kernelIdle     = "idle"
)

// RunWithSocket invokes the `run` function after acquiring the `Socket.Lock` and releases the lock when done.
func (s *Socket) RunWithSocket(run func(socket zmq4.Socket) error) error {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return run(s.Socket)
}

type Kernel struct {
	ir      *interp.Interp
	display *interp.Import
	// map name -> HTMLer, JSONer, Renderer...
	// used to convert interpreted types to one of these interfaces
	render map[string]xreflect.Type

	cells   *cells         // the running cell, for interrupts (interrupt.go)
	rewrite source.Rewrite // applied to each cell before it compiles
	history []historyEntry // the executed cells, for history_request
	abort   bool           // a cell failed under stop_on_error: abort the queued requests
	// abortN is the number of shell requests queued when that cell failed,
	// counted before its reply is sent: a request that a client sends on
	// seeing the reply is not queued behind the failure and runs.
	abortN int
	shell  chan received // the shell requests read and not yet handled

	wireMu sync.Mutex   // guards replays
	replay wire.History // message ids and signatures seen
}

// runKernel is the main entry point to start the kernel.
func runKernel(connectionFile string) {

	// Create a new interpreter for evaluating notebook code.
	ir := interp.New()

	// Throw out the error/warning messages that gomacro outputs writes to these streams.
	ir.Comp.Stdout = ioutil.Discard
	ir.Comp.Stderr = ioutil.Discard

	// Inject the "display" package to render HTML, JSON, PNG, JPEG, SVG... from interpreted code
	// maybe a dot-import is easier to use?
	display := importPackage(ir, "display", "display")

	// Inject the stub "Display" function. declare a variable
	// instead of a function, because we want to later change
	// its value to the closure that holds a reference to msgReceipt
	ir.DeclVar("Display", nil, stubDisplay)

	// Parse the connection info.
	var connInfo ConnectionInfo

	connData, err := ioutil.ReadFile(connectionFile)
	if err != nil {
		log.Fatal(err)
	}

	if err = json.Unmarshal(connData, &connInfo); err != nil {
		log.Fatal(err)
	}

	// Set up the ZMQ sockets through which the kernel will communicate.
	sockets, err := prepareSockets(connInfo)
	if err != nil {
		log.Fatal(err)
	}

	// TODO connect all channel handlers to a WaitGroup to ensure shutdown before returning from runKernel.

	// Start up the heartbeat handler.
	startHeartbeat(sockets.HBSocket, &sync.WaitGroup{})

	// TODO gracefully shutdown the heartbeat handler on kernel shutdown by closing the chan returned by startHeartbeat.

	kernel := Kernel{
		ir:      ir,
		display: display,
		cells:   newCells(ir),
	}
	kernel.rewrite = kernel.cells.installInterrupts()
	cell.SetCellCounter(func() int {
		kernel.cells.usedCellContext()
		return ExecCounter
	})
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	go func() {
		for range interrupts {
			log.Println("vrvm kernel: SIGINT")
			kernel.cells.interrupt()
		}
	}()
	kernel.initRenderers()
	kernel.serve(sockets)
}

// received is one message, or a receive error, from a socket.
type received struct {
	msg     zmq4.Msg
	err     error
	control bool
}

// recvErrorPause is how long a socket's reader waits after a receive
// error before it reads again, so that a socket that keeps failing does
// not spin.
const recvErrorPause = 10 * time.Millisecond

// shellQueue is how many shell messages the reader holds while a cell
// runs (a notebook's "Run All" queues every cell).
const shellQueue = 4096

func importPackage(ir *interp.Interp, path string, alias string) *interp.Import {
	packages, err := ir.ImportPackagesOrError(
		map[string]interp.PackageName{
			path: interp.PackageName(alias),
		})
	if err != nil {
		log.Print(err)
	}
	return packages[path]
}

// prepareSockets sets up the ZMQ sockets through which the kernel
// will communicate.
func prepareSockets(connInfo ConnectionInfo) (SocketGroup, error) {
	// Initialize the socket group.
	var (
		sg  SocketGroup
		ctx = context.Background()
	)

	// Create the shell socket, a request-reply socket that may receive messages from multiple frontend for
	// code execution, introspection, auto-completion, etc.
	sg.ShellSocket.Socket = zmq4.NewRouter(ctx)
	sg.ShellSocket.Lock = &sync.Mutex{}

	// Create the control socket. This socket is a duplicate of the shell socket where messages on this channel
	// should jump ahead of queued messages on the shell socket.
	sg.ControlSocket.Socket = zmq4.NewRouter(ctx)
	sg.ControlSocket.Lock = &sync.Mutex{}

	// Create the stdin socket, a request-reply socket used to request user input from a front-end. This is analogous
	// to a standard input stream.
	sg.StdinSocket.Socket = zmq4.NewRouter(ctx)
	sg.StdinSocket.Lock = &sync.Mutex{}

	// Create the iopub socket, a publisher for broadcasting data like stdout/stderr output, displaying execution
	// results or errors, kernel status, etc. to connected subscribers.
	sg.IOPubSocket.Socket = zmq4.NewPub(ctx)
	sg.IOPubSocket.Lock = &sync.Mutex{}

	// Create the heartbeat socket, a request-reply socket that only allows alternating recv-send (request-reply)
	// calls. It should echo the byte strings it receives to let the requester know the kernel is still alive.
	sg.HBSocket.Socket = zmq4.NewRep(ctx)
	sg.HBSocket.Lock = &sync.Mutex{}

	// Bind the sockets.
	// Jupyter names the endpoints of the ipc transport "<ip>-<port>"
	// (files), those of tcp "<ip>:<port>".
	address := fmt.Sprintf("%v://%v:%%v", connInfo.Transport, connInfo.IP)
	if connInfo.Transport == "ipc" {
		address = fmt.Sprintf("ipc://%v-%%v", connInfo.IP)
	}
	for _, b := range []struct {
		socket zmq4.Socket
		port   int
		name   string
	}{
		{sg.ShellSocket.Socket, connInfo.ShellPort, "shell"},
		{sg.ControlSocket.Socket, connInfo.ControlPort, "control"},
		{sg.StdinSocket.Socket, connInfo.StdinPort, "stdin"},
		{sg.IOPubSocket.Socket, connInfo.IOPubPort, "iopub"},
		{sg.HBSocket.Socket, connInfo.HBPort, "hbeat"},
	} {
		if err := b.socket.Listen(fmt.Sprintf(address, b.port)); err != nil {
			return sg, fmt.Errorf("could not listen on %s-socket: %w", b.name, err)
		}
	}

	// Set the message signing key.
	sg.Key = []byte(connInfo.Key)

	return sg, nil
}

// handleShellMsg responds to a message on the shell ROUTER socket.
func (kernel *Kernel) handleShellMsg(receipt msgReceipt) {
	// Tell the front-end that the kernel is working and when finished notify the
	// front-end that the kernel is idle again.
	if err := receipt.PublishKernelStatus(kernelBusy); err != nil {
		log.Printf("Error publishing kernel status 'busy': %v\n", err)
	}
	defer func() {
		if err := receipt.PublishKernelStatus(kernelIdle); err != nil {
			log.Printf("Error publishing kernel status 'idle': %v\n", err)
		}
	}()

	ir := kernel.ir

	switch receipt.Msg.Header.MsgType {
	case "kernel_info_request":
		if err := sendKernelInfo(receipt); err != nil {
			log.Printf("vrvm kernel: kernel_info_reply: %v", err)
		}
	case "is_complete_request":
		if err := kernel.handleIsCompleteRequest(receipt); err != nil {
			log.Printf("vrvm kernel: is_complete_reply: %v", err)
		}
	case "complete_request":
		if err := handleCompleteRequest(ir, receipt); err != nil {
			log.Printf("vrvm kernel: complete_reply: %v", err)
		}
	case "execute_request":
		if err := kernel.handleExecuteRequest(receipt); err != nil {
			log.Printf("vrvm kernel: execute_reply: %v", err)
		}
	case "inspect_request":
		if err := kernel.handleInspectRequest(receipt); err != nil {
			log.Printf("vrvm kernel: inspect_reply: %v", err)
		}
	case "history_request":
		if err := kernel.handleHistoryRequest(receipt); err != nil {
			log.Printf("vrvm kernel: history_reply: %v", err)
		}
	case "comm_info_request":
		if err := handleCommInfoRequest(receipt); err != nil {
			log.Printf("vrvm kernel: comm_info_reply: %v", err)
		}
	case "comm_open":
		if err := handleCommOpen(receipt); err != nil {
			log.Printf("vrvm kernel: comm_close: %v", err)
		}
	case "comm_msg", "comm_close":
		// No comm is ever open (comm_open is answered by comm_close).
	case "interrupt_request":
		if err := kernel.handleInterruptRequest(receipt); err != nil {
			log.Printf("vrvm kernel: interrupt_reply: %v", err)
		}
	case "shutdown_request":
		handleShutdownRequest(receipt)
	default:
		log.Println("Unhandled shell message: ", receipt.Msg.Header.MsgType)
	}
}

// handleExecuteRequest runs code from an execute_request method,
// and sends the various reply messages.
func (kernel *Kernel) handleExecuteRequest(receipt msgReceipt) error {

	// Extract the data from the request.
	reqcontent, _ := receipt.Msg.Content.(map[string]interface{})
	code, ok := wire.String(reqcontent, "code")
	if !ok {
		// Nothing to run; say so, as ipykernel does not crash either.
		log.Printf("vrvm kernel: execute_request without code (msg_id %q): not executed", receipt.Msg.Header.MsgID)
		return receipt.Reply("execute_reply", map[string]interface{}{
			"status": "error", "execution_count": ExecCounter,
			"ename": "BadRequest", "evalue": "execute_request without code", "traceback": []string{},
		})
	}
	silent := wire.Bool(reqcontent, "silent", false)
	storeHistory := wire.Bool(reqcontent, "store_history", !silent)
	stopOnError := wire.Bool(reqcontent, "stop_on_error", true)

	if !silent {
		ExecCounter++
	}
	if storeHistory && !silent {
		kernel.history = append(kernel.history, historyEntry{line: ExecCounter, input: code})
	}

	// Prepare the map that will hold the reply content.
	content := make(map[string]interface{})
	content["execution_count"] = ExecCounter

	// Tell the front-end what the kernel is about to execute.
	if err := receipt.PublishExecutionInput(ExecCounter, code); err != nil {
		log.Printf("Error publishing execution input: %v\n", err)
	}

	// Redirect the standard out from the REPL.
	oldStdout := os.Stdout
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return err
	}
	os.Stdout = wOut

	// Redirect the standard error from the REPL.
	oldStderr := os.Stderr
	rErr, wErr, err := os.Pipe()
	if err != nil {
		return err
	}
	os.Stderr = wErr

	var writersWG sync.WaitGroup
	writersWG.Add(2)

	jupyterStdOut := JupyterStreamWriter{StreamStdout, &receipt}
	jupyterStdErr := JupyterStreamWriter{StreamStderr, &receipt}
	outerr := OutErr{&jupyterStdOut, &jupyterStdErr}

	// Forward all data written to stdout/stderr to the front-end.
	go func() {
		defer writersWG.Done()
		io.Copy(&jupyterStdOut, rOut)
	}()

	go func() {
		defer writersWG.Done()
		io.Copy(&jupyterStdErr, rErr)
	}()

	// inject the actual "Display" closure that displays multimedia data in Jupyter
	ir := kernel.ir
	displayPlace := ir.ValueOf("Display")
	displayPlace.Set(xreflect.ValueOf(receipt.PublishDisplayData))
	cell.SetDisplay(receipt.publishCellDisplay)
	defer func() {
		// remove the closure before returning
		displayPlace.Set(xreflect.ValueOf(stubDisplay))
		cell.SetDisplay(nil)
	}()

	// eval
	kernel.cells.start(ExecCounter, &receipt)
	vals, types, executionErr := kernel.doEval(outerr, code)
	interrupted, explicit, goPanics := kernel.cells.end()
	published := false // the error output is out already
	switch {
	case executionErr != nil:
	case interrupted && !explicit:
		// A compiled call stopped by the interrupt returned normally
		// (r.Fit's error is the cell's value): the cell still failed.
		executionErr = &cellError{errInterrupt, interruptMessage}
	case len(goPanics) > 0:
		// Already published as an error output when it happened.
		executionErr = &cellError{errPanic, strings.Join(goPanics, "\n")}
		published = true
	}

	// Close and restore the streams.
	wOut.Close()
	os.Stdout = oldStdout

	wErr.Close()
	os.Stderr = oldStderr

	// Wait for the writers to finish forwarding the data.
	writersWG.Wait()

	if executionErr == nil {
		// if the only non-nil value should be auto-rendered graphically, render it
		data := kernel.renderResults(vals, types)
		// gophernotes' fillDefaults means to add a text/plain form but never
		// does once a rich one is set (it compares a missing entry with "");
		// Jupyter wants text/plain in every bundle, and shows it where it
		// cannot show the rich form.
		if _, ok := data.Data[MIMETypeText]; !ok && len(data.Data) != 0 {
			data.Data[MIMETypeText] = plainText(vals)
		}

		content["status"] = "ok"
		content["user_expressions"] = make(map[string]string)

		if !silent && len(data.Data) != 0 {
			// Publish the result of the execution.
			if err := receipt.PublishExecutionResult(ExecCounter, data); err != nil {
				log.Printf("Error publishing execution result: %v\n", err)
			}
		}
	} else {
		ename, evalue := errPanic, executionErr.Error()
		if e, ok := executionErr.(*cellError); ok {
			ename = e.ename
		}
		trace := []string{ename + ": " + evalue}
		content["status"] = "error"
		content["ename"] = ename
		content["evalue"] = evalue
		content["traceback"] = trace
		if !published {
			if err := receipt.PublishExecutionError(ename, evalue, trace); err != nil {
				log.Printf("Error publishing execution error: %v\n", err)
			}
		}
		kernel.abort, kernel.abortN = stopOnError, len(kernel.shell)
	}

	// Send the output back to the notebook.
	return receipt.Reply("execute_reply", content)
}

// doEval evaluates the code in the interpreter. This function captures an uncaught panic
// as well as the values of the last statement/expression. The error is a
// *cellError: a compile error, a panic or an interrupt.
func (kernel *Kernel) doEval(outerr OutErr, code string) (val []interface{}, typ []xreflect.Type, err error) {
	ir := kernel.ir
	stage := errCompile

	// Capture a panic from the evaluation if one occurs and store it in the `err` return parameter.
	defer func() {
		if r := recover(); r != nil {
			switch {
			case isInterrupt(r):
				err = &cellError{errInterrupt, interruptMessage}
			case stage == errCompile:
				err = &cellError{errCompile, compileMessage(ir, fmt.Sprint(r))}
			default:
				err = &cellError{errPanic, fmt.Sprint(r)}
			}
		}
	}()

	stage = errPanic // special commands run as they are read
	code = evalSpecialCommands(ir, outerr, code)
	stage = errCompile

	// Prepare and perform the multiline evaluation.
	compiler := ir.Comp

	// Don't show the gomacro prompt.
	compiler.Options &^= base.OptShowPrompt

	// Don't swallow panics as they are recovered above and handled with a Jupyter `error` message instead.
	compiler.Options &^= base.OptTrapPanic

	// Parse the input code (and don't perform gomacro's macroexpansion).
	// These may panic but this will be recovered by the deferred recover() above so that the error
	// may be returned instead.
	parse := func() []ast.Node {
		// Reset the error line so that error messages correspond to the lines from the cell.
		compiler.Line = 0
		return compiler.ParseBytes([]byte(code))
	}
	nodes := parse()

	// If there is no srcAst then we must be evaluating nothing. The result must be nil then.
	if ast2.AnyToAst(nodes, "doEval") == nil {
		return nil, nil, nil
	}

	// Check if the last node is an expression. If the last node is not an expression then nothing
	// is returned as a value. For example evaluating a function declaration shouldn't return a value but
	// just have the side effect of declaring the function.
	var srcEndsWithExpr bool
	if len(nodes) > 0 {
		_, srcEndsWithExpr = nodes[len(nodes)-1].(ast.Expr)
	}

	// Compile the cell as rewritten for interrupts and goroutine panics
	// (interrupt.go); if that does not compile (a Fit method without a
	// FitContext sibling, a go statement the rewrite cannot copy),
	// compile the cell as written.
	var compiledSrc *interp.Expr
	if kernel.rewrite.ApplyList(nodes) {
		compiledSrc = tryCompile(ir, ast2.AnyToAst(nodes, "doEval"))
		if compiledSrc == nil {
			nodes = parse()
		}
	}
	if compiledSrc == nil {
		compiledSrc = ir.CompileAst(ast2.AnyToAst(nodes, "doEval"))
	}

	// Evaluate the code.
	stage = errPanic
	results, types := ir.RunExpr(compiledSrc)

	// If the source ends with an expression, then the result of the execution is the value of the expression. In the
	// event that all return values are nil, the result is also nil.
	if srcEndsWithExpr {

		// Count the number of non-nil values in the output. If they are all nil then the output is skipped.
		nonNilCount := 0
		values := make([]interface{}, len(results))
		for i, result := range results {
			val := basereflect.ValueInterface(result)
			if val != nil {
				nonNilCount++
			}
			values[i] = val
		}

		if nonNilCount > 0 {
			return values, types, nil
		}
	}

	return nil, nil, nil
}

// tryCompile compiles src, or returns nil if it does not compile.
func tryCompile(ir *interp.Interp, src ast2.Ast) (e *interp.Expr) {
	defer func() {
		if r := recover(); r != nil {
			e = nil
		}
	}()
	return ir.CompileAst(src)
}

// handleShutdownRequest sends a "shutdown" message.
func handleShutdownRequest(receipt msgReceipt) {
	content, _ := receipt.Msg.Content.(map[string]interface{})
	restart := wire.Bool(content, "restart", false)

	reply := shutdownReply{
		Status:  "ok",
		Restart: restart,
	}

	if err := receipt.Reply("shutdown_reply", reply); err != nil {
		log.Printf("vrvm kernel: shutdown_reply: %v", err)
	}

	log.Println("Shutting down in response to shutdown_request")
	os.Exit(0)
}

// startHeartbeat starts a go-routine for handling heartbeat ping messages sent over the given `hbSocket`. The `wg`'s
// `Done` method is invoked after the thread is completely shutdown. To request a shutdown the returned `shutdown` channel
// can be closed.
func startHeartbeat(hbSocket Socket, wg *sync.WaitGroup) (shutdown chan struct{}) {
	quit := make(chan struct{})

	// Start the handler that will echo any received messages back to the sender.
	wg.Add(1)
	go func() {
		defer wg.Done()

		type msgType struct {
			Msg zmq4.Msg
			Err error
		}

		msgs := make(chan msgType)

		go func() {
			defer close(msgs)
			for {
				msg, err := hbSocket.Socket.Recv()
				select {
				case msgs <- msgType{msg, err}:
				case <-quit:
					return
				}
			}
		}()

		timeout := time.NewTimer(500 * time.Second)
		defer timeout.Stop()

		for {
			timeout.Reset(500 * time.Second)
			select {
			case <-quit:
				return
			case <-timeout.C:
				continue
			case v := <-msgs:
				hbSocket.RunWithSocket(func(echo zmq4.Socket) error {
					if v.Err != nil {
						// A client closed its connection: not fatal.
						log.Printf("vrvm kernel: heartbeat: %v (ignored)", v.Err)
						time.Sleep(recvErrorPause)
						return v.Err
					}

					// Send the received byte string back to let the front-end know that the kernel is alive.
					if err := echo.Send(v.Msg); err != nil {
						log.Printf("Error sending heartbeat pong bytes: %b\n", err)
						return err
					}

					return nil
				})
			}
		}
	}()

	return quit
}

// publishCellDisplay publishes data for package cell: display_data with
// transient display_id id (if not empty), or, if update is true,
// update_display_data, which replaces the output of that display id in
// place.
func (receipt *msgReceipt) publishCellDisplay(data map[string]interface{}, id string, update bool) error {
	if _, ok := data[MIMETypeText]; !ok {
		return errors.New("display data without text/plain")
	}
	transient := MIMEMap{}
	if id != "" {
		transient["display_id"] = id
	}
	kind := "display_data"
	if update {
		kind = "update_display_data"
	}
	return receipt.Publish(kind, struct {
		Data      MIMEMap `json:"data"`
		Metadata  MIMEMap `json:"metadata"`
		Transient MIMEMap `json:"transient"`
	}{Data: data, Metadata: MIMEMap{}, Transient: transient})
}

// plainText is the text/plain form of a rendered result: the String of the
// value if it has one, else its type (an image, say, is not dumped).
func plainText(vals []interface{}) string {
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
		case fmt.Stringer:
			return v.String()
		default:
			return fmt.Sprintf("<%T>", v)
		}
	}
	return ""
}
