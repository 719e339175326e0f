#!/usr/bin/python3
"""Check notebooks executed by "jupyter nbconvert --execute".

Usage: /usr/bin/python3 scripts/check_notebook.py EXECUTED.ipynb...

For each notebook it fails on
  - an output of type "error" (nbconvert stops at the first one unless run
    with --allow-errors, so this guards the latter case), or a stderr
    stream that reports a panic;
  - a code cell that was not executed, or execution counts that are not
    1, 2, ... N in order;
  - a figure that did not come back as image/png: an output carrying an
    image/* type without image/png, image/png data that is not a PNG, or a
    text/plain output of more than 20000 characters (an image value the
    kernel printed instead of rendering);
  - no image/png output at all, unless the notebook's metadata sets
    "vrvm": {"figures": false}.
It prints one line per notebook and exits 1 if any check failed.
"""

import base64
import sys

import nbformat

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_TEXT = 20000


def check(path):
    problems = []
    nb = nbformat.read(path, as_version=4)
    pngs = 0
    count = 0
    for index, c in enumerate(nb.cells):
        if c.cell_type != "code" or not c.source.strip():
            continue
        where = "cell %d" % index
        count += 1
        if c.execution_count != count:
            problems.append("%s: execution count %s, want %d (not executed top to bottom?)"
                            % (where, c.execution_count, count))
        for o in c.outputs:
            kind = o.output_type
            if kind == "error":
                problems.append("%s: error output: %s: %s" % (where, o.get("ename"), o.get("evalue")))
            elif kind == "stream":
                if o.name == "stderr" and "panic" in o.text:
                    problems.append("%s: panic on stderr: %s" % (where, o.text.strip()[:300]))
            elif kind in ("execute_result", "display_data"):
                data = o.get("data", {})
                images = [k for k in data if k.startswith("image/")]
                if images and "image/png" not in data:
                    problems.append("%s: figure as %s, not image/png" % (where, ", ".join(images)))
                if "image/png" in data:
                    raw = base64.b64decode(data["image/png"])
                    if not raw.startswith(PNG_SIGNATURE):
                        problems.append("%s: image/png output is not a PNG" % where)
                    else:
                        pngs += 1
                text = data.get("text/plain", "")
                if len(text) > MAX_TEXT:
                    problems.append("%s: %d characters of text/plain (an image printed instead of rendered?)"
                                    % (where, len(text)))
    want_figures = nb.metadata.get("vrvm", {}).get("figures", True)
    if want_figures and pngs == 0:
        problems.append("no image/png figure in the notebook")
    return problems, pngs, count


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    failed = False
    for path in sys.argv[1:]:
        problems, pngs, cells = check(path)
        if problems:
            failed = True
            print("FAIL %s" % path)
            for p in problems:
                print("     " + p)
        else:
            print("ok   %s: %d code cells, %d PNG figures" % (path, cells, pngs))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
