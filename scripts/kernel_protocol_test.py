#!/usr/bin/python3
"""Protocol-level tests of the vrvm Jupyter kernel, through jupyter_client.

Usage: /usr/bin/python3 scripts/kernel_protocol_test.py KERNEL_NAME

The kernelspec KERNEL_NAME must be on Jupyter's search path (the caller,
scripts/notebook-test.sh, installs it in a temporary JUPYTER_PATH). The
script checks that

  - a panic in a cell, in interpreted or in compiled code, becomes an error
    reply and the kernel keeps running with its variables;
  - Kernel -> Interrupt (SIGINT, as Jupyter sends it) stops a running vrvm
    fit that uses cell.Context() within a second, with a message saying so,
    and keeps the session's variables and the fit's partial state;
  - the interrupt reaches a loop in interpreted code that polls
    cell.Interrupted(), and an interrupt while idle does no harm;
  - messages that are not properly signed or framed (bad signature, wrong
    key, no delimiter, too few frames, not JSON, missing fields), replayed
    messages and clients that connect and disconnect repeatedly neither
    end the kernel nor run code, and the next good request runs;
  - an interrupt returns within a second (median of 5 interrupts at
    different times) for a fit by the paper's schedule at N = 2,000 and
    for a fit at N = 1,000 whose kernel function is written in the cell;
  - cell.NewProgress shows a fit's progress in one display that is
    updated in place (update_display_data);
  - the requests of the messaging protocol 5.3 are answered as ipykernel
    answers them: kernel_info (protocol 5.3, text/x-go), is_complete,
    complete (exported names only, metadata), inspect, history,
    comm_info, comm_open (closed: no targets), stop_on_error (the queued
    request aborted), the control channel served while a cell runs
    (kernel_info, interrupt_request, shutdown_request), the ipc
    transport; errors are error outputs with ename and traceback, compile
    errors in the Go compiler's words;
  - an interrupt stops, within a second, a plain Fit of 10,000 rows (no
    cell.Context()), which reports Canceled, in its iterations or (within
    2 s) in its set-up, and within 2 s a time.Sleep(time.Hour) and a
    for {} loop, by SIGINT and by
    interrupt_request; a panic in a goroutine the cell started is an error
    output of the cell and the kernel keeps its variables;

and prints the kernel start time and the interrupt latencies. It exits 1
after the checks if any failed.
"""

import re
import statistics
import sys
import threading
import time

import zmq
from jupyter_client.manager import KernelManager, start_new_kernel
from jupyter_client.session import Session

# How long an interrupted computation may take to return its reply.
INTERRUPT_LIMIT = 1.0  # seconds

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok   ", what)
    else:
        print("FAIL ", what)
        failures += 1


class Kernel:
    def __init__(self, name):
        self.name = name
        t0 = time.monotonic()
        self.km, self.kc = start_new_kernel(kernel_name=name, startup_timeout=120)
        self.start_time = time.monotonic() - t0

    def execute(self, code, timeout=120, interrupt_after=None):
        """Run code; return (reply content, outputs, seconds from the
        interrupt, or from the request, to the reply)."""
        msg_id = self.kc.execute(code)
        t0 = time.monotonic()
        sent = [None]
        worker = None
        if interrupt_after is not None:
            def interrupt():
                time.sleep(interrupt_after)
                sent[0] = time.monotonic()
                self.km.interrupt_kernel()
            worker = threading.Thread(target=interrupt)
            worker.start()
        while True:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        t1 = time.monotonic()
        if worker is not None:
            worker.join()
        outputs = []
        while True:
            msg = self.kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                break
            if kind == "stream":
                outputs.append(("stream", content["text"], None))
            elif kind == "error":
                outputs.append(("error", content["evalue"], None))
            elif kind in ("execute_result", "display_data", "update_display_data"):
                outputs.append((kind, content["data"].get("text/plain", ""),
                                content.get("transient", {}).get("display_id")))
        elapsed = t1 - (sent[0] if sent[0] is not None else t0)
        return reply["content"], outputs, elapsed

    def value(self, code, timeout=120):
        """Run code and return the text/plain of its result."""
        reply, outputs, _ = self.execute(code, timeout=timeout)
        texts = [o[1] for o in outputs if o[0] == "execute_result"]
        if reply["status"] != "ok":
            return "status %s: %s" % (reply["status"], outputs)
        return texts[-1] if texts else ""

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def errors(outputs):
    return " ".join(text for kind, text, _ in outputs if kind == "error")


SETUP = """
import (
	"math"

	"github.com/vrvm/vrvm/jupyter/cell"
	"github.com/vrvm/vrvm/vrvm"
	"gonum.org/v1/gonum/mat"
)
keep := 42
n := 400
x := mat.NewDense(n, 1, nil)
t := make([]float64, n)
for i := 0; i < n; i++ {
	v := -10 + 20*(float64(i)+0.5)/float64(n)
	x.Set(i, 0, v)
	t[i] = math.Sin(v) / v
}
// No pruning and no convergence test: a fit of 400 basis functions that
// would run for hours. The width is fixed, so that the interrupt lands in
// the solver, not in the default width's search.
m := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, NoPrune: true, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30}
"""


# Robustness: messages the kernel must survive without running them. Each
# bad message carries the code "hits++"; hits must stay at what the good
# requests made it.
HITS = "hits := 0"
HIT = "hits++"


class Raw:
    """A raw DEALER socket on one of the kernel's ROUTER ports."""

    def __init__(self, k, channel="shell"):
        self.k = k
        connect = {"shell": k.km.connect_shell, "control": k.km.connect_control}[channel]
        self.sock = connect()
        self.sock.setsockopt(zmq.LINGER, 0)

    def send(self, frames):
        self.sock.send_multipart([f if isinstance(f, bytes) else f.encode() for f in frames])

    def signed(self, msg_type, content, session=None, drop=()):
        """The frames of a message signed by session (the kernel's key by
        default), with header fields in drop removed before signing."""
        session = session or self.k.kc.session
        msg = session.msg(msg_type, content)
        for f in drop:
            msg["header"].pop(f, None)
        return session.serialize(msg), msg["header"].get("msg_id")

    def reply(self, timeout=5.0):
        """The decoded reply on this socket, or None after timeout."""
        if not self.sock.poll(int(timeout * 1000)):
            return None
        frames = self.sock.recv_multipart()
        _, rest = self.k.kc.session.feed_identities(frames)
        return self.k.kc.session.deserialize(rest)

    def close(self):
        self.sock.close(linger=0)


def alive_and_serving(k, hits, what):
    """The kernel is up, ran none of what it was sent (hits unchanged) and
    runs the next good request."""
    time.sleep(0.2)
    if not k.km.is_alive():
        check(False, "%s: the kernel died" % what)
        print("kernel_protocol_test: %d check(s) failed; stopping, the kernel is gone" % failures)
        sys.exit(1)
    try:
        got = k.value("hits", timeout=30)
    except Exception as e:  # no reply: the kernel hangs
        got = "no reply (%s)" % type(e).__name__
    check(got == str(hits),
          "%s: kernel up, nothing executed, next request runs (hits %s, want %d)" % (what, got, hits))


def robustness(k):
    reply, outputs, _ = k.execute(HITS)
    check(reply["status"] == "ok", "hits counter defined (%s)" % errors(outputs))
    raw = Raw(k)
    good, _ = raw.signed("execute_request", {"code": HIT, "silent": False})
    delim = good.index(b"<IDS|MSG>")

    bad = list(good)
    bad[delim + 1] = b"0" * 64
    raw.send(bad)
    alive_and_serving(k, 0, "bad signature (64 zeros)")
    bad = list(good)
    bad[delim + 5] = b'{"code": "hits++; hits++", "silent": false}'
    raw.send(bad)
    alive_and_serving(k, 0, "content changed after signing")
    bad = list(good)
    bad[delim + 1] = b"not hex at all"
    raw.send(bad)
    alive_and_serving(k, 0, "signature not hexadecimal")
    other, _ = raw.signed("execute_request", {"code": HIT, "silent": False},
                          session=Session(key=b"not-the-kernel-key"))
    raw.send(other)
    alive_and_serving(k, 0, "signed with the wrong key")
    unsigned, _ = raw.signed("execute_request", {"code": HIT, "silent": False},
                             session=Session(key=b""))
    raw.send(unsigned)
    alive_and_serving(k, 0, "unsigned (empty signature)")

    raw.send(good[delim + 1:])
    alive_and_serving(k, 0, "no <IDS|MSG> delimiter")
    raw.send(good[:delim + 5])
    alive_and_serving(k, 0, "fewer than 6 parts")
    raw.send([b"<IDS|MSG>"])
    alive_and_serving(k, 0, "delimiter only")
    raw.send([b"\xff" * 3, b"garbage"])
    alive_and_serving(k, 0, "garbage frames")
    for part, what in ((2, "header"), (5, "content")):
        frames = list(good)
        frames[delim + part] = b"[1, 2"
        frames[delim + 1] = k.kc.session.sign(frames[delim + 2:delim + 6])
        raw.send(frames)
        alive_and_serving(k, 0, "signed, %s not JSON" % what)
    frames, _ = raw.signed("execute_request", {"code": HIT, "silent": False}, drop=("msg_type",))
    raw.send(frames)
    alive_and_serving(k, 0, "signed, header without msg_type")
    frames, _ = raw.signed("execute_request", {"silent": False})
    raw.send(frames)
    r = raw.reply()
    check(r is not None and r["content"].get("status") == "error",
          "signed execute_request without code: an error reply (%s)" % (r and r["content"]))
    alive_and_serving(k, 0, "signed execute_request without code")
    frames, _ = raw.signed("execute_request", {"code": 7, "silent": False})
    raw.send(frames)
    raw.reply()
    alive_and_serving(k, 0, "signed execute_request with a number as code")
    for mt, content in (("complete_request", {}), ("is_complete_request", {"code": 5}),
                        ("no_such_request", {})):
        frames, _ = raw.signed(mt, content)
        raw.send(frames)
        raw.reply(timeout=1)
        alive_and_serving(k, 0, "signed %s with missing or wrong fields" % mt)

    # A signed request without "silent": runs once (silent = false).
    frames, _ = raw.signed("execute_request", {"code": HIT})
    raw.send(frames)
    r = raw.reply(timeout=30)
    check(r is not None and r["content"].get("status") == "ok",
          "signed execute_request without silent runs (%s)" % (r and r["content"]))
    alive_and_serving(k, 1, "execute_request without silent")

    # Replay: the same signed message twice runs once.
    frames, _ = raw.signed("execute_request", {"code": HIT, "silent": False})
    raw.send(frames)
    raw.reply(timeout=30)
    raw.send(frames)
    check(raw.reply(timeout=2) is None, "a replayed message gets no reply")
    alive_and_serving(k, 2, "identical message replayed")
    # The same msg_id, re-signed with other content.
    msg = k.kc.session.msg("execute_request", {"code": HIT, "silent": False})
    raw.send(k.kc.session.serialize(msg))
    raw.reply(timeout=30)
    msg["content"] = {"code": "hits += 10", "silent": False}
    raw.send(k.kc.session.serialize(msg))
    alive_and_serving(k, 3, "msg_id reused with other content")

    # Control channel: the same checks apply; good requests are answered there.
    ctl = Raw(k, "control")
    frames, _ = ctl.signed("kernel_info_request", {})
    bad = list(frames)
    bad[bad.index(b"<IDS|MSG>") + 1] = b"f" * 64
    ctl.send(bad)
    ctl.send(frames[:3])
    ctl.send(frames)
    r = ctl.reply()
    check(r is not None and r["msg_type"] == "kernel_info_reply",
          "control: bad messages dropped, kernel_info_request answered on control")
    ctl.close()
    alive_and_serving(k, 3, "bad control messages")

    # Clients that connect and disconnect, on every socket, some in the
    # middle of a request whose reply then has nowhere to go.
    ctx = zmq.Context.instance()
    info = k.km.get_connection_info()
    ports = {name: info[name + "_port"] for name in ("shell", "control", "iopub", "hb", "stdin")}
    kinds = {"shell": zmq.DEALER, "control": zmq.DEALER, "iopub": zmq.SUB, "hb": zmq.REQ, "stdin": zmq.DEALER}
    cycles = 40
    for i in range(cycles):
        for name, port in ports.items():
            sock = ctx.socket(kinds[name])
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect("tcp://%s:%d" % (info["ip"], port))
            if name in ("shell", "control") and i % 2 == 0:
                f, _ = raw.signed("kernel_info_request", {})
                sock.send_multipart(f)
            elif name == "hb" and i % 2 == 0:
                sock.send(b"ping")
            elif name == "shell" and i % 4 == 1:
                f, _ = raw.signed("execute_request", {"code": "hits++\nhits--", "silent": False})
                sock.send_multipart(f)
            sock.close(linger=0)
        time.sleep(0.01)
    time.sleep(0.5)
    alive_and_serving(k, 3, "%d connect/disconnect cycles on all five sockets" % cycles)
    hb = k.kc.hb_channel
    check(k.kc.is_alive() and k.km.is_alive(), "heartbeat still answered after the cycles (%s)" % hb.is_beating())
    raw.close()


# Interrupt latency at larger N: median of 5 interrupts at different times.
LATENCY_SETUP = """
sincData := func(n int) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 1, nil)
	t := make([]float64, n)
	for i := 0; i < n; i++ {
		v := -10 + 20*(float64(i)+0.5)/float64(n)
		x.Set(i, 0, v)
		t[i] = math.Sin(v)/v + 0.1*math.Sin(7.3*float64(i))
	}
	return x, t
}
x2k, t2k := sincData(2000)
x1k, t1k := sincData(1000)
type cellGauss struct{ w float64 }
func (k cellGauss) Eval(a, b []float64) float64 {
	d := a[0] - b[0]
	return math.Exp(-d * d / (k.w * k.w))
}
"""
PAPER_FIT = """mp := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, Method: vrvm.PaperSchedule{}, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30}
err = mp.FitContext(cell.Context(), x2k, t2k)
if err != nil {
	panic(err)
}"""
CELL_KERNEL_FIT = """var ck vrvm.Kernel = cellGauss{3}
mc := &vrvm.Regressor{Kernel: ck, Method: vrvm.PaperSchedule{}, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30}
err = mc.FitContext(cell.Context(), x1k, t1k)
if err != nil {
	panic(err)
}"""
INTERRUPT_TIMES = (0.5, 1.5, 3.0, 5.0, 8.0)  # seconds after the request: set-up and iterations


def latencies(k, code, what):
    lat, where = [], []
    for after in INTERRUPT_TIMES:
        reply, outputs, latency = k.execute(code, interrupt_after=after)
        if reply["status"] != "error" or "interrupt" not in errors(outputs).lower():
            check(False, "%s: interrupted at %.1f s (%s %s)" % (what, after, reply["status"], outputs))
        lat.append(latency)
        m = re.search(r"after (\d+) iterations", errors(outputs))
        where.append("%.1f s: %s" % (after, "after %s iterations" % m.group(1) if m else "?"))
    med = statistics.median(lat)
    print("interrupt latency, %s: %s s; median %.3f s, max %.3f s (interrupted at %s)" % (
        what, ", ".join("%.3f" % v for v in lat), med, max(lat), "; ".join(where)))
    check(med < INTERRUPT_LIMIT, "%s: median interrupt latency %.3f s < %.0f s" % (what, med, INTERRUPT_LIMIT))
    return lat


PROGRESS_FIT = """bar := cell.NewProgress("sinc fit", 0)
bar.Every = 50 * time.Millisecond
mb := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, Method: vrvm.PaperSchedule{}, NoPrune: true, MaxIter: 60, Tol: 1e-300, ParamTol: 1e-300, Monitor: bar.Monitor}
err = mb.FitContext(cell.Context(), x1k, t1k)
bar.Done(mb.Status().String())
bar.Updates()"""


def progress(k):
    reply, outputs, _ = k.execute('import "time"')
    reply, outputs, _ = k.execute(PROGRESS_FIT)
    shown = [o for o in outputs if o[0] == "display_data"]
    updates = [o for o in outputs if o[0] == "update_display_data"]
    ids = {o[2] for o in shown + updates}
    print("progress display: %d display_data, %d update_display_data; last: %s" % (
        len(shown), len(updates), (updates or shown or [("", "")])[-1][1]))
    check(reply["status"] == "ok", "the monitored fit runs (%s)" % errors(outputs))
    check(len(shown) == 1 and len(updates) >= 3 and len(ids) == 1 and None not in ids,
          "one progress display, updated in place at least 3 times (%d)" % len(updates))
    check(updates and "iteration limit reached" in updates[-1][1] and "iteration 60" in updates[-1][1],
          "the last update shows the final iteration and status")


# Messaging protocol 5.3, as ipykernel serves it.

def shell_reply(k, send, timeout=10):
    """Send a request through the client method send (kc.inspect…) and
    return the content of its reply."""
    msg_id = send()
    while True:
        reply = k.kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


def control_request(k, msg_type, content=None, timeout=5.0):
    """Send msg_type on the control channel (a socket of its own); return
    (reply content or None, seconds to the reply)."""
    raw = Raw(k, "control")
    try:
        frames, msg_id = raw.signed(msg_type, content or {})
        t0 = time.monotonic()
        raw.send(frames)
        while True:
            left = timeout - (time.monotonic() - t0)
            reply = raw.reply(timeout=left) if left > 0 else None
            if reply is None:
                return None, time.monotonic() - t0
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"], time.monotonic() - t0
    finally:
        raw.close()


def execute_async(k, code, **kw):
    return k.kc.execute(code, **kw)


def wait_reply(k, msg_id, timeout=60):
    while True:
        reply = k.kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


def protocol(k):
    info = shell_reply(k, k.kc.kernel_info)
    li = info.get("language_info", {})
    check(info.get("status") == "ok" and info.get("protocol_version") == "5.3",
          "kernel_info_reply: status ok, protocol 5.3 (%s, %s)" % (info.get("status"), info.get("protocol_version")))
    check(li.get("mimetype") == "text/x-go" and li.get("file_extension") == ".go" and li.get("name") == "go"
          and li.get("version", "").startswith("go") and info.get("implementation") and info.get("banner"),
          "kernel_info_reply: language_info complete (%s)" % li)

    for code, status in (("b := )", "invalid"), ("for i := 0; i < 3; i++ {", "incomplete"), ("x := 1", "complete")):
        r = shell_reply(k, lambda: k.kc.is_complete(code))
        check(r.get("status") == status, "is_complete %r: %s (%s)" % (code, status, r))
        if status == "incomplete":
            check(r.get("indent") == "\t", "is_complete %r: indent one tab (%r)" % (code, r.get("indent")))

    r = shell_reply(k, lambda: k.kc.complete("m.", 2))
    matches = r.get("matches", [])
    check(r.get("status") == "ok" and "metadata" in r and "cursor_start" in r and "cursor_end" in r,
          "complete_reply: status, metadata, cursor range (%s)" % sorted(r))
    check("Fit" in matches and "FitContext" in matches and all(m[:1].isupper() for m in matches),
          "completion on m. offers exported names only (%d: %s)" % (len(matches), [m for m in matches if not m[:1].isupper()][:5]))
    r = shell_reply(k, lambda: k.kc.complete("zzzNoSuchName", 13))
    check(r.get("status") == "ok" and r.get("matches") == [], "no completion: status ok, no matches (%s)" % r)

    r = shell_reply(k, lambda: k.kc.inspect("m.Fit(x, t)", 4))
    data = r.get("data", {})
    check(r.get("status") == "ok" and r.get("found") is True and "Fit(" in data.get("text/plain", "")
          and "Fit(" in data.get("text/markdown", ""),
          "inspect m.Fit: found, text/plain and text/markdown (%r)" % data.get("text/plain"))
    r = shell_reply(k, lambda: k.kc.inspect("vrvm.Regressor", 9))
    check(r.get("found") is True and "MaxIter" in r.get("data", {}).get("text/plain", ""),
          "inspect vrvm.Regressor shows its fields")
    r = shell_reply(k, lambda: k.kc.inspect("zzzNoSuchName", 3))
    check(r.get("status") == "ok" and r.get("found") is False, "inspect of an unknown name: found false (%s)" % r)

    k.execute("hist1 := 1")
    k.execute("hist2 := 2")
    r = shell_reply(k, lambda: k.kc.history(hist_access_type="tail", n=2))
    hist = r.get("history", [])
    check(r.get("status") == "ok" and [h[2] for h in hist] == ["hist1 := 1", "hist2 := 2"]
          and all(len(h) == 3 for h in hist), "history_request tail: the last two cells (%s)" % hist)
    r = shell_reply(k, lambda: k.kc.history(hist_access_type="search", pattern="hist1*"))
    check([h[2] for h in r.get("history", [])] == ["hist1 := 1"], "history_request search (%s)" % r.get("history"))

    r = shell_reply(k, lambda: k.kc.comm_info())
    check(r.get("status") == "ok" and r.get("comms") == {}, "comm_info_reply: no comms (%s)" % r)
    comm = k.kc.session.msg("comm_open", {"comm_id": "c0ffee", "target_name": "no.such.target", "data": {}})
    k.kc.shell_channel.send(comm)
    closed = False
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not closed:
        try:
            m = k.kc.get_iopub_msg(timeout=1)
        except Exception:
            continue
        closed = m["msg_type"] == "comm_close" and m["content"].get("comm_id") == "c0ffee"
    check(closed, "comm_open of an unknown target is answered by comm_close")
    k.kc.shell_channel.send(k.kc.session.msg("comm_msg", {"comm_id": "c0ffee", "data": {}}))
    check(k.value("keep") == "42", "comm_msg to a closed comm is ignored")

    # Errors as error outputs, in the words of the Go compiler.
    for code, words in (("m.Predcit(x)", "m.Predcit undefined (type *vrvm.Regressor has no field or method Predcit)"),
                        ('import "fmt"\nfmt.Printn("x")', "undefined: fmt.Printn")):
        reply, outputs, _ = k.execute(code)
        check(reply["status"] == "error" and words in reply.get("evalue", "") and reply.get("ename") == "CompileError"
              and reply.get("traceback") and words in " ".join(reply["traceback"]),
              "compile error %r: %s (%s: %s)" % (code, words, reply.get("ename"), reply.get("evalue")))
        check(words in errors(outputs), "the compile error is an error output")
    reply, outputs, _ = k.execute('panic("boom")')
    check(reply.get("ename") == "panic" and reply.get("traceback"), "a panic: ename panic, a traceback (%s)" % reply.get("ename"))

    # stop_on_error: the request queued behind a failing cell is aborted.
    k.execute("queued := 0")
    first = execute_async(k, 'time.Sleep(300 * time.Millisecond)\npanic("first fails")')
    second = execute_async(k, "queued++")
    r1, r2 = wait_reply(k, first), wait_reply(k, second)
    check(r1.get("status") == "error" and r2.get("status") == "aborted",
          "stop_on_error: the queued execute_request is aborted (%s, %s)" % (r1.get("status"), r2.get("status")))
    queued = k.value("queued")
    check(queued == "0", "the aborted request did not run, and a request sent on its reply runs (%s)" % queued)
    check(k.value("queued++\nqueued") == "1", "a request sent after the failure runs")
    first = execute_async(k, 'time.Sleep(300 * time.Millisecond)\npanic("first fails")', stop_on_error=False)
    second = execute_async(k, "queued++")
    r1, r2 = wait_reply(k, first), wait_reply(k, second)
    check(r1.get("status") == "error" and r2.get("status") == "ok",
          "stop_on_error false: the queued request runs (%s, %s)" % (r1.get("status"), r2.get("status")))

    # The control channel is served while a cell runs.
    busy = execute_async(k, "time.Sleep(3 * time.Second)")
    time.sleep(0.5)
    r, took = control_request(k, "kernel_info_request")
    check(r is not None and r.get("status") == "ok" and took < 1.0,
          "kernel_info_request on control answered during a cell (%.3f s)" % took)
    check(wait_reply(k, busy).get("status") == "ok", "the cell then ends normally")


# Interrupts of code that does not consult cell.Context().

PLAIN_SETUP = """import "math/rand"
n10k := 10000
rng := rand.New(rand.NewSource(1))
x10k := mat.NewDense(n10k, 1, nil)
t10k := make([]float64, n10k)
for i := 0; i < n10k; i++ {
	v := -10 + 20*rng.Float64()
	x10k.Set(i, 0, v)
	t10k[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
}
// No convergence test: the fit runs until interrupted. A fixed width, so
// that the interrupt lands in the iterations (a fit stopped before its
// first iteration has no state to keep), and 1,000 centres, so that an
// iteration is short beside the second the interrupt may take on a
// loaded machine.
plain := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, Centres: 1000, NoPrune: true, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30}
"""


def plain_interrupts(k):
    reply, outputs, _ = k.execute(PLAIN_SETUP)
    check(reply["status"] == "ok", "10,000-row set-up runs (%s)" % errors(outputs))
    reply, outputs, latency = k.execute("plain.Fit(x10k, t10k)", interrupt_after=2.0)
    print("interrupt of a plain Fit, N = 10000: reply %.3f s after SIGINT: %s" % (latency, errors(outputs)))
    check(reply["status"] == "error" and reply.get("ename") == "Interrupt" and latency < INTERRUPT_LIMIT,
          "a plain Fit of 10,000 rows: error reply within %.0f s of SIGINT (%s, %.3f s)" % (INTERRUPT_LIMIT, reply["status"], latency))
    check(k.value("plain.Status()") == "canceled", "the estimator reports Canceled")
    iters = k.value("plain.Iterations()")
    check(iters.isdigit() and int(iters) > 0, "the plain fit keeps its partial state (%s iterations)" % iters)

    # Interrupted in its set-up (choosing the default width, building the
    # design), before its first iteration: Canceled with no posterior, as
    # the fit contract says (a RobustRegressor reported NotFitted).
    reply, outputs, latency = k.execute("early := &vrvm.RobustRegressor{}\nearly.Fit(x10k, t10k)", interrupt_after=0.3)
    print("interrupt of a plain RobustRegressor Fit in its set-up: reply %.3f s after SIGINT" % latency)
    check(reply["status"] == "error" and reply.get("ename") == "Interrupt" and latency < 2.0,
          "a plain RobustRegressor Fit interrupted in its set-up: error reply within 2 s (%s, %.3f s)" %
          (reply["status"], latency))
    check(k.value("early.Status()") == "canceled",
          "it reports Canceled (%s after %s iterations)" % (k.value("early.Status()"), k.value("early.Iterations()")))

    for code, what in (("time.Sleep(time.Hour)", "time.Sleep(time.Hour)"), ("for {\n}", "for {}")):
        reply, outputs, latency = k.execute(code, interrupt_after=1.0)
        print("interrupt of %s: reply %.3f s after SIGINT" % (what, latency))
        check(reply["status"] == "error" and "interrupt" in errors(outputs).lower() and latency < 2.0,
              "%s is interrupted within 2 s (%s, %.3f s)" % (what, reply["status"], latency))

    # interrupt_request on the control channel (kernelspec interrupt_mode
    # "message") works as SIGINT does.
    busy = execute_async(k, "for {\n}")
    time.sleep(1.0)
    r, took = control_request(k, "interrupt_request")
    t0 = time.monotonic()
    reply = wait_reply(k, busy, timeout=10)
    check(r is not None and r.get("status") == "ok" and took < 1.0,
          "interrupt_request answered on control during a cell (%.3f s)" % took)
    check(reply.get("status") == "error" and time.monotonic() - t0 < 2.0,
          "interrupt_request stops a busy loop (%s)" % reply.get("status"))
    check(k.value("keep") == "42", "variables survive the interrupts")

    # A panic in a goroutine started by the cell.
    reply, outputs, _ = k.execute('go func() {\n\tpanic("boom in a goroutine")\n}()\ntime.Sleep(2 * time.Second)')
    check(k.km.is_alive(), "a panicking goroutine does not end the kernel")
    check("boom in a goroutine" in errors(outputs) and reply["status"] == "error",
          "the goroutine's panic is an error output of its cell (%s: %s)" % (reply["status"], errors(outputs)))
    reply, outputs, _ = k.execute('go func(s string) {\n\tpanic(s)\n}("boom again")\ntime.Sleep(2 * time.Second)')
    check("boom again" in errors(outputs), "a goroutine with arguments too (%s)" % errors(outputs))
    check(k.value("keep") == "42", "the kernel keeps an earlier variable after goroutine panics")


def ipc_and_shutdown(name):
    """The ipc transport (Jupyter's <ip>-<port> endpoints), and a
    shutdown_request answered while a cell runs."""
    km = KernelManager(kernel_name=name, transport="ipc")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        msg_id = kc.execute("1 + 1")
        reply = kc.get_shell_msg(timeout=30)
        check(reply["parent_header"].get("msg_id") == msg_id and reply["content"]["status"] == "ok",
              "a cell runs over the ipc transport")
        # Kernel -> Interrupt of a kernelspec with interrupt_mode
        # "message": jupyter_client sends interrupt_request on control.
        km.kernel_spec.interrupt_mode = "message"
        busy = kc.execute("for {\n}")
        time.sleep(0.5)
        t0 = time.monotonic()
        km.interrupt_kernel()
        while True:
            reply = kc.get_shell_msg(timeout=10)
            if reply["parent_header"].get("msg_id") == busy:
                break
        took = time.monotonic() - t0
        check(reply["content"]["status"] == "error" and took < 2.0,
              "interrupt_mode message: Kernel -> Interrupt stops a busy loop (%s, %.3f s)" % (reply["content"]["status"], took))
        k = type("K", (), {})()
        k.kc, k.km = kc, km
        kc.execute("for {\n}")
        time.sleep(0.5)
        r, took = control_request(k, "shutdown_request", {"restart": False})
        check(r is not None and r.get("status") == "ok" and took < 1.0,
              "shutdown_request answered during a cell (%.3f s)" % took)
        deadline = time.monotonic() + 5
        while km.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        check(not km.is_alive(), "and the kernel exits")
    except Exception as e:
        check(False, "ipc transport: %s: %s" % (type(e).__name__, e))
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
        km.cleanup_resources()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    k = Kernel(sys.argv[1])
    print("kernel start: %.2f s" % k.start_time)
    try:
        reply, outputs, _ = k.execute(SETUP)
        check(reply["status"] == "ok", "set-up cell runs (%s)" % errors(outputs))

        # Panics become error replies.
        reply, outputs, _ = k.execute('panic("boom")')
        check(reply["status"] == "error" and "boom" in reply.get("evalue", ""),
              "panic in interpreted code gives an error reply (%s)" % reply.get("evalue"))
        check(any(kind == "error" and "boom" in text for kind, text, _ in outputs),
              "the error is published to the cell")
        reply, outputs, _ = k.execute("mat.NewDense(2, 2, nil).At(5, 5)")
        check(reply["status"] == "error", "panic in compiled gonum code gives an error reply (%s)" % errors(outputs))
        check(k.value("keep") == "42", "the kernel survives panics with its variables")

        # Allocations Go refuses with a panic (too large for the address
        # space) become error replies; see jupyter/README.md for those that
        # still end the kernel.
        for code in ("big := make([]float64, 1<<62)", "mat.NewDense(1<<31, 1<<31, nil)"):
            reply, outputs, _ = k.execute(code)
            check(reply["status"] == "error" and k.km.is_alive(),
                  "an impossible allocation is an error reply, the kernel lives (%s: %s)" % (code, errors(outputs)))
        check(k.value("keep") == "42", "variables survive the failed allocations")

        # Interrupt a running fit.
        reply, outputs, latency = k.execute(
            "err := m.FitContext(cell.Context(), x, t)\nif err != nil {\n\tpanic(err)\n}",
            interrupt_after=2.0)
        message = errors(outputs)
        print("interrupt of a fit: reply %.3f s after SIGINT: %s" % (latency, message))
        check(reply["status"] == "error", "the interrupted fit ends the cell with an error")
        check(latency < INTERRUPT_LIMIT, "the fit stops within %.0f s of the interrupt (%.3f s)" % (INTERRUPT_LIMIT, latency))
        check("interrupt" in message.lower() or "cancel" in message.lower(),
              "the cell says the fit was interrupted (%r)" % message)
        check(k.value("keep") == "42", "variables survive the interrupt")
        check(k.value("m.Status()") == "canceled", "the model reports status canceled")
        iters = k.value("m.Iterations()")
        check(iters.isdigit() and int(iters) > 0, "the partial fit is kept (%s iterations)" % iters)

        # The next cell gets a fresh context.
        reply, outputs, _ = k.execute("m.MaxIter = 3\nerr = m.FitContext(cell.Context(), x, t)\nerr")
        check(reply["status"] == "ok" and not errors(outputs), "a fit in the next cell runs (%s)" % outputs)
        check(k.value("m.Status()") == "iteration limit reached", "and ends normally")

        # Interpreted code polling the context.
        reply, outputs, latency = k.execute(
            'for !cell.Interrupted() {\n}\n"loop stopped"', interrupt_after=1.0)
        print("interrupt of an interpreted loop: reply %.3f s after SIGINT" % latency)
        check(reply["status"] == "ok" and latency < INTERRUPT_LIMIT,
              "an interpreted loop polling cell.Interrupted() stops (%.3f s)" % latency)

        # An interrupt while idle.
        k.km.interrupt_kernel()
        time.sleep(0.5)
        check(k.value("cell.Interrupted()") == "false", "an interrupt while idle does not affect the next cell")

        robustness(k)

        reply, outputs, _ = k.execute('import "time"')
        protocol(k)
        plain_interrupts(k)

        reply, outputs, _ = k.execute(LATENCY_SETUP)
        check(reply["status"] == "ok", "latency set-up cell runs (%s)" % errors(outputs))
        latencies(k, PAPER_FIT, "paper's schedule, N = 2000")
        latencies(k, CELL_KERNEL_FIT, "kernel function defined in the cell, N = 1000")
        progress(k)
        check(k.km.is_alive(), "the kernel is alive at the end")
    finally:
        k.close()
    ipc_and_shutdown(sys.argv[1])
    if failures:
        print("kernel_protocol_test: %d check(s) failed" % failures)
        sys.exit(1)
    print("kernel_protocol_test: all checks passed")


if __name__ == "__main__":
    main()
