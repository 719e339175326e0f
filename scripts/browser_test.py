#!/usr/bin/python3
"""Browser test of the notebooks, as a new user sees them, and the kernel's
survival of many open/close cycles through the notebook server.

Usage: /usr/bin/python3 scripts/browser_test.py KERNEL_NAME OUT_DIR NOTEBOOK...

The kernelspec KERNEL_NAME must be on Jupyter's search path and the Jupyter
directories temporary (scripts/notebook-test.sh sets both up), so that no
notebook is trusted, as in a fresh clone. The script

  1. starts Debian's notebook server on 127.0.0.1 with a random token, on a
     copy of the notebooks;
  2. starts headless Chromium (Debian's) with a fresh profile and, through
     the DevTools protocol, opens each notebook; checks that it is
     untrusted and that, cell by cell, every figure (image/png output) and
     every table (a <table> in an HTML output, or a Markdown table) saved
     in the file is visible in the rendered page: present, displayed, of
     non-zero size, images decoded; saves a screenshot of each notebook's
     first table (or first figure) as OUT_DIR/<notebook>.png;
  3. opens and closes a notebook CYCLES times (environment BROWSER_CYCLES,
     default 100) through the server's REST and websocket API: a session
     (which starts a kernel), a websocket on which kernel_info and a small
     execute request are answered, the websocket dropped, in every other
     cycle a second websocket, then the session deleted; it fails if a
     request goes unanswered or the server log shows a kernel that died or
     was restarted.

It exits 1 after all checks if any failed.
"""

import asyncio
import base64
import json
import logging
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

from tornado.websocket import websocket_connect

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(url, method="GET", body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        text = r.read().decode()
        return json.loads(text) if text else None


def wait_for(f, timeout, what):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            v = f()
            if v:
                return v
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError("timed out waiting for " + what)


def expected(path):
    """Per code cell: (figures, tables) saved in the notebook file."""
    nb = json.load(open(path))
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        figs = tabs = 0
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "image/png" in data:
                figs += 1
            html = "".join(data.get("text/html", ""))
            md = "".join(data.get("text/markdown", ""))
            if "<table" in html:
                tabs += html.count("<table")
            elif re.search(r"^\|[-:| ]+\|\s*$", md, re.M):
                tabs += len(re.findall(r"^\|[-:| ]+\|\s*$", md, re.M))
        out.append((figs, tabs))
    return out


# Evaluated in the page: per code cell, the visible images and tables in
# its output area.
VISIBLE_JS = """
(() => {
  const visible = el => {
    const r = el.getBoundingClientRect();
    let e = el;
    while (e) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
      e = e.parentElement;
    }
    return r.width > 0 && r.height > 0;
  };
  const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code');
  return JSON.stringify({
    trusted: Jupyter.notebook.trusted,
    cells: cells.map(c => {
      const area = c.element[0].querySelector('.output');
      const imgs = area ? [...area.querySelectorAll('img')] : [];
      const tabs = area ? [...area.querySelectorAll('table')] : [];
      return [imgs.filter(i => visible(i) && i.complete && i.naturalWidth > 0).length,
              tabs.filter(visible).length, imgs.length, tabs.length];
    }),
  });
})()
"""

SCROLL_JS = """
(() => {
  const el = document.querySelector('.output_area table') || document.querySelector('.output_area img');
  if (!el) return false;
  el.scrollIntoView({block: 'start'});
  return true;
})()
"""


class Page:
    """A DevTools protocol connection to one page."""

    def __init__(self, ws):
        self.ws = ws
        self.n = 0

    async def call(self, method, **params):
        self.n += 1
        n = self.n
        await self.ws.write_message(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            msg = await asyncio.wait_for(self.ws.read_message(), 60)
            if msg is None:
                raise RuntimeError("DevTools connection closed")
            m = json.loads(msg)
            if m.get("id") == n:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]

    async def eval(self, expr):
        r = await self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        return r.get("result", {}).get("value")


async def browse(base, token, names, out_dir, tmp):
    port = free_port()
    profile = os.path.join(tmp, "chromium-profile")
    browser = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--user-data-dir=" + profile, "--remote-debugging-port=%d" % port,
         "--window-size=1280,1600", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "chromium.log"), "w"))
    try:
        pages = wait_for(lambda: [p for p in http("http://127.0.0.1:%d/json/list" % port)
                                  if p.get("type") == "page"], 60, "Chromium")
        ws = await websocket_connect(pages[0]["webSocketDebuggerUrl"], max_message_size=1 << 28)
        page = Page(ws)
        await page.call("Page.enable")
        for name in names:
            t0 = time.monotonic()
            await page.call("Page.navigate", url="%s/notebooks/%s?token=%s" % (base, name, token))
            ready = "typeof Jupyter !== 'undefined' && Jupyter.notebook && Jupyter.notebook._fully_loaded === true"
            for _ in range(300):
                if await page.eval(ready):
                    break
                await asyncio.sleep(0.2)
            else:
                check(False, "%s: the notebook loads in the browser" % name)
                continue
            # Let images decode and MathJax typeset (it moves the layout).
            typeset = ("typeof MathJax === 'undefined' || !MathJax.Hub || "
                       "(MathJax.Hub.queue.pending === 0 && MathJax.Hub.queue.running === 0)")
            for _ in range(100):
                await asyncio.sleep(0.2)
                if await page.eval(typeset):
                    break
            await asyncio.sleep(0.5)
            got = json.loads(await page.eval(VISIBLE_JS))
            want = expected(os.path.join(tmp, "notebooks", name))
            check(got["trusted"] is False, "%s: opened untrusted, as from a fresh clone" % name)
            figs = sum(w[0] for w in want)
            tabs = sum(w[1] for w in want)
            missing = []
            for i, (w, g) in enumerate(zip(want, got["cells"])):
                if g[0] < w[0]:
                    missing.append("code cell %d: %d of %d figures visible" % (i + 1, g[0], w[0]))
                if g[1] < w[1]:
                    missing.append("code cell %d: %d of %d tables visible (%d in the page)" % (i + 1, g[1], w[1], g[3]))
            if len(want) != len(got["cells"]):
                missing.append("%d code cells in the page, %d in the file" % (len(got["cells"]), len(want)))
            check(not missing, "%s: all %d figures and %d tables visible (%.1f s)%s" % (
                name, figs, tabs, time.monotonic() - t0, "".join("\n       " + m for m in missing)))
            if await page.eval(SCROLL_JS):
                await asyncio.sleep(0.3)
            shot = await page.call("Page.captureScreenshot", format="png")
            path = os.path.join(out_dir, os.path.splitext(name)[0] + ".png")
            with open(path, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            print("     screenshot: %s" % path)
        ws.close()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()


def wsmsg(msg_type, content, session):
    return json.dumps({
        "header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session,
                   "username": "test", "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "content": content, "channel": "shell", "buffers": []})


async def request(ws, msg_type, content, session, timeout=60):
    """Send a shell request on ws; return its reply's content."""
    text = wsmsg(msg_type, content, session)
    msg_id = json.loads(text)["header"]["msg_id"]
    await ws.write_message(text)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        m = await asyncio.wait_for(ws.read_message(), timeout)
        if m is None:
            raise RuntimeError("websocket closed")
        if isinstance(m, bytes):
            continue
        m = json.loads(m)
        if m.get("channel") == "shell" and m.get("parent_header", {}).get("msg_id") == msg_id:
            return m["content"]
    raise RuntimeError("no reply to " + msg_type)


async def cycles(base, token, kernel, name, n, log):
    api = "%s/api/%%s?token=%s" % (base, token)
    wsbase = base.replace("http://", "ws://")
    done = 0
    t0 = time.monotonic()
    for i in range(n):
        s = http(api % "sessions", "POST", {"path": name, "type": "notebook", "name": name, "kernel": {"name": kernel}})
        kid, sid = s["kernel"]["id"], s["id"]
        try:
            url = "%s/api/kernels/%s/channels?session_id=%s&token=%s" % (wsbase, kid, uuid.uuid4().hex, token)
            ws = await websocket_connect(url)
            info = await request(ws, "kernel_info_request", {}, sid)
            r = await request(ws, "execute_request", {"code": "%d + 1" % i, "silent": False}, sid)
            ws.close()  # dropped without a word, as a closed tab
            if i % 2 == 1:
                ws = await websocket_connect(url)
                r2 = await request(ws, "execute_request", {"code": "1", "silent": False}, sid)
                ws.close()
                if r2.get("status") != "ok":
                    raise RuntimeError("second connection: %s" % r2)
            if info.get("implementation") != "gophernotes" or r.get("status") != "ok":
                raise RuntimeError("unexpected replies %s %s" % (info, r))
            done += 1
        except Exception as e:
            check(False, "open/close cycle %d: %s" % (i + 1, e))
            break
        finally:
            http(api % ("sessions/" + sid), "DELETE")
    died = [l.strip() for l in open(log, errors="replace")
            if re.search(r"KernelRestarter: restarting|[Kk]ernel .*died|restarting kernel", l)]
    check(done == n and not died, "%d of %d open/close cycles of %s through the REST and websocket API, "
          "no kernel death (%.0f s)%s" % (done, n, name, time.monotonic() - t0,
                                          "".join("\n       " + d for d in died[:5])))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    kernel, out_dir, paths = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    n_cycles = int(os.environ.get("BROWSER_CYCLES", "100"))
    # Websockets are dropped on purpose (as a closed tab); asyncio need not
    # report their reader tasks.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="vrvm-browser-")
    nbdir = os.path.join(tmp, "notebooks")
    os.makedirs(nbdir)
    names = []
    for p in paths:
        shutil.copy(p, nbdir)
        names.append(os.path.basename(p))
    token = secrets.token_hex(24)
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    log = os.path.join(out_dir, "notebook-server.log")
    server = subprocess.Popen(
        ["/usr/bin/jupyter", "notebook", "--no-browser", "--ip=127.0.0.1", "--port=%d" % port,
         *(["--allow-root"] if os.geteuid() == 0 else []),
         "--port-retries=0", "--NotebookApp.token=" + token, "--notebook-dir=" + nbdir,
         "--MappingKernelManager.default_kernel_name=" + kernel],
        stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: http("%s/api/status?token=%s" % (base, token)), 60, "the notebook server")
        print("notebook server on %s (token authentication)" % base)
        specs = http("%s/api/kernelspecs?token=%s" % (base, token))["kernelspecs"]
        check(kernel in specs, "kernel %s registered with the server (%s)" % (kernel, ", ".join(sorted(specs))))
        asyncio.run(browse(base, token, names, out_dir, tmp))
        if n_cycles > 0:
            asyncio.run(cycles(base, token, kernel, names[0], n_cycles, log))
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("browser_test: %d check(s) failed" % failures)
        sys.exit(1)
    print("browser_test: all checks passed")


if __name__ == "__main__":
    main()
