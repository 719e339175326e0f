#!/usr/bin/python3
"""Display tests of the vrvm Jupyter kernel, through jupyter_client.

Usage: /usr/bin/python3 scripts/kernel_display_test.py KERNEL_NAME

The kernelspec KERNEL_NAME must be on Jupyter's search path (the caller,
scripts/notebook-test.sh, installs it in a temporary JUPYTER_PATH). The
script checks that

  - a cell whose value is a *plot.Plot (gonum/plot) yields exactly one
    image/png output, a PNG, with a text/plain form;
  - plotter.NewYErrorBars and plotter.NewXErrorBars accept a type declared
    in the notebook (their unnamed interface parameters have proxies), and
    the error bars draw;
  - a *datasets.Dataset and a fitted *vrvm.Regressor as a cell's value
    display as text/html tables with a readable text/plain form;
  - vrvmplot.PredictedVsTrue of that fit yields one image/png;
  - every estimator (Regressor, RobustRegressor, Classifier,
    MultiClassifier, RVMRegressor, RVMClassifier), not fitted and fitted,
    displays as a two-column HTML table of properties and values (its
    kernel and status a row each, the relevance vectors once fitted) with a
    text/plain summary that names it; vrvmplot.Reliability of the fitted
    Classifier yields one image/png.

It exits 1 after the checks if any failed.
"""

import base64
import re
import sys

from jupyter_client.manager import start_new_kernel

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok   ", what)
    else:
        print("FAIL ", what)
        failures += 1


def execute(kc, code, timeout=120):
    """Run code; return the reply content and the outputs, as (msg_type,
    content) pairs."""
    msg_id = kc.execute(code)
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            break
        if kind in ("stream", "error", "execute_result", "display_data", "update_display_data"):
            outputs.append((kind, content))
    return reply["content"], outputs


def bundles(outputs):
    """The data bundles of the rich outputs."""
    return [c["data"] for k, c in outputs if k in ("execute_result", "display_data")]


def pngs(outputs):
    return [b["image/png"] for b in bundles(outputs) if "image/png" in b]


def is_png(data):
    try:
        return base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    except (ValueError, TypeError):
        return False


def ok(reply, outputs, what):
    check(reply["status"] == "ok", "%s runs (%s)" % (what, reply.get("evalue") or
                                                   [c.get("text") for k, c in outputs if k == "stream"]))


PLOT = """
import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)
p := plot.New()
p.Title.Text = "a line"
l, err := plotter.NewLine(plotter.XYs{{0, 0}, {1, 1}, {2, 4}})
if err != nil { panic(err) }
p.Add(l)
p
"""

ERRBARS = """
type pts struct{ n int }
func (q pts) Len() int { return q.n }
func (q pts) XY(i int) (float64, float64) { return float64(i), float64(i * i) }
func (q pts) YError(i int) (float64, float64) { return 0.5, float64(i) }
func (q pts) XError(i int) (float64, float64) { return 0.25, 0.25 }
ye, err := plotter.NewYErrorBars(pts{4})
if err != nil { panic(err) }
xe, err := plotter.NewXErrorBars(pts{4})
if err != nil { panic(err) }
ye.YErrors[3].High + xe.XErrors[3].Low
"""

ERRPLOT = """
q := plot.New()
q.Title.Text = "error bars of a notebook type"
q.Add(ye, xe)
q
"""

ESTIMATOR = """
import (
	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)
d, err := datasets.Sinc(30, 0.1, 1)
if err != nil { panic(err) }
r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}
if err := r.Fit(d.X, d.T); err != nil { panic(err) }
"""


# The six estimators: (name, value, data of the fit). Each is displayed
# before and after its fit.
ESTIMATORS = [
    ("Regressor", "&vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}", "d.X, d.T"),
    ("RobustRegressor", "&vrvm.RobustRegressor{Kernel: vrvm.Gaussian{Width: 3}}", "d.X, d.T"),
    ("RVMRegressor", "&vrvm.RVMRegressor{Kernel: vrvm.Gaussian{Width: 3}}", "d.X, d.T"),
    ("Classifier", "&vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 0.5}}", "rp.X, rp.T"),
    ("RVMClassifier", "&vrvm.RVMClassifier{Kernel: vrvm.Gaussian{Width: 0.5}}", "rp.X, rp.T"),
    ("MultiClassifier", "&vrvm.MultiClassifier{Kernel: vrvm.Gaussian{Width: 0.5}}", "rp.X, names"),
]

CLASSES = """
rp, err := datasets.Ripley(60, 2)
if err != nil { panic(err) }
names := make([]string, len(rp.T))
for i, v := range rp.T {
	names[i] = []string{"left", "right"}[int(v)]
}
"""


def table_rows(html):
    """The (property, value) cells of an estimator's HTML table."""
    return re.findall(r"<tr><th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td></tr>", html)


def estimator_displays(kc):
    reply, outputs = execute(kc, CLASSES)
    ok(reply, outputs, "60 Ripley points with class names")
    for i, (name, value, data) in enumerate(ESTIMATORS):
        var = "e%d" % i
        reply, outputs = execute(kc, "%s := %s\n%s" % (var, value, var))
        ok(reply, outputs, "a new %s" % name)
        for state in ("not fitted", "fitted"):
            b = bundles(outputs)
            html = b[0].get("text/html", "") if len(b) == 1 else ""
            text = b[0].get("text/plain", "") if len(b) == 1 else ""
            rows = dict(table_rows(html))
            check(html.startswith('<table class="vrvm-summary">') and "kernel" in rows and "status" in rows,
                  "a %s %s displays as a property/value table (%s)" % (state, name, sorted(rows)))
            check(text.startswith("vrvm.%s (" % name) and ("not fitted" in text) == (state == "not fitted"),
                  "a %s %s has a summary as text/plain (%s)" % (state, name, text[:70]))
            if state == "not fitted":
                check(rows.get("status") == "not fitted" and "relevance vectors" not in rows,
                      "the %s %s's table says not fitted (%s)" % (state, name, rows.get("status")))
                reply, outputs = execute(kc, "if err := %s.Fit(%s); err != nil { panic(err) }\n%s" % (var, data, var))
                ok(reply, outputs, "a fit of the %s" % name)
            else:
                check(" after " in rows.get("status", "") and rows.get("relevance vectors", "") != "",
                      "the fitted %s's table has its status and relevance vectors (%s, %s)" %
                      (name, rows.get("status"), rows.get("relevance vectors")))
    reply, outputs = execute(kc, "vrvmplot.Reliability(e3, rp.X, rp.T, vrvmplot.ReliabilityOptions{Bins: 5})")
    ok(reply, outputs, "vrvmplot.Reliability")
    images = pngs(outputs)
    check(len(images) == 1 and is_png(images[0]), "vrvmplot.Reliability yields one image/png (got %d)" % len(images))


def main():
    if len(sys.argv) != 2:
        print("usage: kernel_display_test.py KERNEL_NAME", file=sys.stderr)
        sys.exit(2)
    km, kc = start_new_kernel(kernel_name=sys.argv[1], startup_timeout=120)
    try:
        reply, outputs = execute(kc, PLOT)
        ok(reply, outputs, "a cell ending with a *plot.Plot")
        images = pngs(outputs)
        check(len(images) == 1, "a *plot.Plot yields exactly one image/png (got %d, %d outputs)" %
              (len(images), len(outputs)))
        check(all(is_png(i) for i in images), "the image/png is a PNG")
        check(all("text/plain" in b for b in bundles(outputs)), "the bundle has text/plain")
        check([b.get("text/plain") for b in bundles(outputs)] == ['<*plot.Plot "a line">'],
              "text/plain names the plot (%s)" % [b.get("text/plain") for b in bundles(outputs)])

        reply, outputs = execute(kc, ERRBARS)
        ok(reply, outputs, "NewYErrorBars and NewXErrorBars on a notebook type")
        texts = [b.get("text/plain") for b in bundles(outputs)]
        check(texts == ["3.25"], "the error bars hold the type's values (got %s, want 3.25)" % texts)
        reply, outputs = execute(kc, ERRPLOT)
        ok(reply, outputs, "a plot of the error bars")
        images = pngs(outputs)
        check(len(images) == 1 and is_png(images[0]), "the error bars draw as one image/png")

        reply, outputs = execute(kc, ESTIMATOR)
        ok(reply, outputs, "a fit of 30 sinc points")
        reply, outputs = execute(kc, "d")
        b = bundles(outputs)
        check(len(b) == 1 and "<table" in b[0].get("text/html", ""), "a *datasets.Dataset displays as an HTML table")
        check(len(b) == 1 and b[0].get("text/plain", "").startswith("datasets.Dataset: 30 rows × 1 input (x), target t"),
              "a *datasets.Dataset has a summary as text/plain (%s)" % (b[0].get("text/plain", "")[:60] if b else None))
        reply, outputs = execute(kc, "r")
        b = bundles(outputs)
        check(len(b) == 1 and "<table" in b[0].get("text/html", "") and "relevance vectors" in b[0].get("text/html", ""),
              "a fitted *vrvm.Regressor displays as an HTML table with its relevance vectors")
        check(len(b) == 1 and b[0].get("text/plain", "").startswith("vrvm.Regressor (kernel Gaussian(width=3)"),
              "a fitted *vrvm.Regressor has a summary as text/plain (%s)" % (b[0].get("text/plain", "")[:60] if b else None))
        reply, outputs = execute(kc, 'import "github.com/vrvm/vrvm/vrvm/vrvmplot"\nvrvmplot.PredictedVsTrue(r, d.X, d.T)')
        ok(reply, outputs, "vrvmplot.PredictedVsTrue")
        images = pngs(outputs)
        check(len(images) == 1 and is_png(images[0]), "vrvmplot.PredictedVsTrue yields one image/png (got %d)" % len(images))

        estimator_displays(kc)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    if failures:
        print("kernel_display_test: %d checks FAILED" % failures)
        sys.exit(1)
    print("kernel_display_test: all checks passed")


if __name__ == "__main__":
    main()
