//go:build vrvmkernel

package main

import (
	"log"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/vrvm/vrvm/jupyter/wire"
)

// The kernel's message loop: shell requests one at a time, control
// requests at once, and the aborts of stop_on_error (see kernel.go).

// serve runs the message loop: it reads the shell and control sockets
// (stdin requests are read and dropped, as before) and checks each
// message. Shell requests are handled one at a time, in the order they
// arrive, in the calling goroutine (the interpreter's); control requests
// are handled at once in a goroutine of their own, also while a cell
// runs. After a cell fails under stop_on_error, the execute requests
// queued behind it are answered "aborted", as ipykernel does. serve
// returns only when the process exits (shutdown_request).
func (kernel *Kernel) serve(sockets SocketGroup) {
	shell := make(chan received, shellQueue)
	kernel.shell = shell
	control := make(chan received)
	read := func(sck zmq4.Socket, to chan<- received, isControl bool) {
		for {
			msg, err := sck.Recv()
			switch {
			case to != nil:
				to <- received{msg, err, isControl}
			case err != nil:
				shell <- received{msg, err, isControl} // logged, as before
			}
			if err != nil {
				time.Sleep(recvErrorPause)
			}
		}
	}
	go read(sockets.ShellSocket.Socket, shell, false)
	go read(sockets.ControlSocket.Socket, control, true)
	go read(sockets.StdinSocket.Socket, nil, false)

	go func() {
		for v := range control {
			if r, ok := kernel.check(v, sockets); ok {
				kernel.handleControl(r)
			}
		}
	}()
	for v := range shell {
		if r, ok := kernel.check(v, sockets); ok {
			kernel.handle(r)
		}
		if !kernel.abort {
			continue
		}
		kernel.abort = false
		for range kernel.abortN {
			r, ok := kernel.check(<-shell, sockets)
			switch {
			case !ok:
			case r.Msg.Header.MsgType == "execute_request":
				kernel.aborted(r)
			default:
				kernel.handle(r)
			}
		}
	}
}

// check parses and checks a received message; it logs and drops a bad
// or replayed one.
func (kernel *Kernel) check(v received, sockets SocketGroup) (msgReceipt, bool) {
	if v.err != nil {
		// A client closed its connection (zmq4 reports it as a
		// receive error); the other clients are still there.
		log.Printf("vrvm kernel: receive: %v (ignored)", v.err)
		return msgReceipt{}, false
	}
	m, err := wire.Parse(v.msg.Frames, sockets.Key)
	if err != nil {
		log.Printf("vrvm kernel: dropped a message: %v", err)
		return msgReceipt{}, false
	}
	kernel.wireMu.Lock()
	replayed := kernel.replay.Replayed(m)
	kernel.wireMu.Unlock()
	if replayed {
		log.Printf("vrvm kernel: dropped a replayed message (msg_id %q, %s)", m.Header.MsgID, m.Header.MsgType)
		return msgReceipt{}, false
	}
	sg := sockets
	if v.control {
		sg.ShellSocket = sockets.ControlSocket // replies go back on the control socket
	}
	return msgReceipt{composed(m), m.Identities, sg}, true
}

// aborted answers a request queued behind a failed cell.
func (kernel *Kernel) aborted(receipt msgReceipt) {
	receipt.PublishKernelStatus(kernelBusy)
	if err := sendAbortReply(receipt); err != nil {
		log.Printf("vrvm kernel: abort reply: %v", err)
	}
	receipt.PublishKernelStatus(kernelIdle)
}

// handleControl answers a request on the control channel.
func (kernel *Kernel) handleControl(receipt msgReceipt) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("vrvm kernel: %s: %v (request dropped)", receipt.Msg.Header.MsgType, r)
		}
	}()
	kind := receipt.Msg.Header.MsgType
	if !controlTypes[kind] {
		log.Printf("vrvm kernel: %s on the control channel: not answered (shell request)", kind)
		return
	}
	receipt.PublishKernelStatus(kernelBusy)
	defer receipt.PublishKernelStatus(kernelIdle)
	var err error
	switch kind {
	case "kernel_info_request":
		err = sendKernelInfo(receipt)
	case "interrupt_request":
		err = kernel.handleInterruptRequest(receipt)
	case "shutdown_request":
		handleShutdownRequest(receipt)
	}
	if err != nil {
		log.Printf("vrvm kernel: %s: %v", kind, err)
	}
}

// composed converts a checked message to gophernotes' form.
func composed(m *wire.Message) ComposedMsg {
	h := func(h wire.Header) MsgHeader {
		return MsgHeader{MsgID: h.MsgID, Username: h.Username, Session: h.Session, MsgType: h.MsgType, ProtocolVersion: h.Version, Timestamp: h.Date}
	}
	return ComposedMsg{Header: h(m.Header), ParentHeader: h(m.ParentHeader), Metadata: m.Metadata, Content: m.Content}
}

// handle runs handleShellMsg; a panic in a handler (a request with fields
// of unexpected types) is logged and the kernel goes on.
func (kernel *Kernel) handle(receipt msgReceipt) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("vrvm kernel: %s: %v (request dropped)", receipt.Msg.Header.MsgType, r)
		}
	}()
	kernel.handleShellMsg(receipt)
}
