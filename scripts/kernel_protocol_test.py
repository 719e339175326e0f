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

and prints the kernel start time and the interrupt latencies. It exits 1 on
the first failed check.
"""

import sys
import threading
import time

from jupyter_client.manager import start_new_kernel

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
                outputs.append(("stream", content["text"]))
            elif kind == "error":
                outputs.append(("error", content["evalue"]))
            elif kind in ("execute_result", "display_data"):
                outputs.append((kind, content["data"].get("text/plain", "")))
        elapsed = t1 - (sent[0] if sent[0] is not None else t0)
        return reply["content"], outputs, elapsed

    def value(self, code):
        """Run code and return the text/plain of its result."""
        reply, outputs, _ = self.execute(code)
        texts = [o[1] for o in outputs if o[0] == "execute_result"]
        if reply["status"] != "ok":
            return "status %s: %s" % (reply["status"], outputs)
        return texts[-1] if texts else ""

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def errors(outputs):
    return " ".join(text for kind, text in outputs if kind == "error")


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
// would run for hours.
m := &vrvm.Regressor{NoPrune: true, Tol: 1e-300, ParamTol: 1e-300, MaxIter: 1 << 30}
"""


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
        check(any(kind == "error" and "boom" in text for kind, text in outputs),
              "the error is published to the cell")
        reply, outputs, _ = k.execute("mat.NewDense(2, 2, nil).At(5, 5)")
        check(reply["status"] == "error", "panic in compiled gonum code gives an error reply (%s)" % errors(outputs))
        check(k.value("keep") == "42", "the kernel survives panics with its variables")

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
        check(k.km.is_alive(), "the kernel is alive at the end")
    finally:
        k.close()
    if failures:
        print("kernel_protocol_test: %d check(s) failed" % failures)
        sys.exit(1)
    print("kernel_protocol_test: all checks passed")


if __name__ == "__main__":
    main()
