#!/usr/bin/python3
"""Check the outputs an executed notebook's cells declare they produce.

Usage: /usr/bin/python3 scripts/check_expected.py EXECUTED.ipynb...

A code cell's metadata "vrvm" may hold
  - "expect": regular expressions, each of which must match a line (re.search
    with re.MULTILINE) of the cell's text output: its stdout stream and the
    text/plain of its results, joined;
  - "mimes": MIME types, each of which the cell's results or displays must
    include at least once (say "image/png" or "text/html").
A cell that declares either must also have no error output and nothing on
stderr. A notebook in which no cell declares anything fails too: the check
would otherwise pass on a notebook that lost its expectations.
It prints one line per notebook and exits 1 if any check failed.
"""

import re
import sys

import nbformat


def text(value):
    return "".join(value) if isinstance(value, list) else value


def check(path):
    problems = []
    declared = 0
    nb = nbformat.read(path, as_version=4)
    for index, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        want = c.metadata.get("vrvm", {})
        expect, mimes = want.get("expect", []), want.get("mimes", [])
        if not expect and not mimes:
            continue
        declared += 1
        where = "cell %d" % index
        out, have = [], set()
        for o in c.get("outputs", []):
            kind = o.output_type
            if kind == "error":
                problems.append("%s: error output: %s: %s" % (where, o.get("ename"), o.get("evalue")))
            elif kind == "stream":
                if o.name == "stderr":
                    problems.append("%s: stderr: %s" % (where, text(o.text).strip()[:300]))
                else:
                    out.append(text(o.text))
            elif kind in ("execute_result", "display_data"):
                data = o.get("data", {})
                have.update(data)
                if "text/plain" in data:
                    out.append(text(data["text/plain"]) + "\n")
        joined = "".join(out)
        for pattern in expect:
            if not re.search(pattern, joined, re.MULTILINE):
                problems.append("%s: no output line matches %r; output was:\n%s" % (where, pattern, joined.rstrip()))
        for mime in mimes:
            if mime not in have:
                problems.append("%s: no %s output (have: %s)" % (where, mime, ", ".join(sorted(have)) or "none"))
    if declared == 0:
        problems.append("no cell declares expected outputs (metadata \"vrvm\": {\"expect\"/\"mimes\"})")
    return declared, problems


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    failed = False
    for path in paths:
        declared, problems = check(path)
        if problems:
            failed = True
            print("check_expected: FAIL %s:" % path)
            for p in problems:
                print("  " + p)
        else:
            print("check_expected: ok %s (%d cells with expected outputs)" % (path, declared))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
