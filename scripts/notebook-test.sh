#!/usr/bin/env bash
# notebook-test: run the notebooks in the vrvm Jupyter kernel, headlessly.
#
# Usage: scripts/notebook-test.sh [kernel binary]   (default: build/vrvm-kernel;
#        "make notebook-test" builds it first)
#
# Steps:
#   1. Jupyter: scripts/install-jupyter.sh installs Debian's packages when
#      they are missing and we are root (as CI is), or names them.
#   2. Register the kernel with "vrvm kernel install --prefix" in a
#      temporary directory put on JUPYTER_PATH; every other Jupyter
#      directory is temporary too, so the user's configuration and kernels
#      play no part.
#   3. scripts/kernel_protocol_test.py: the requests of the messaging
#      protocol 5.3 answered as ipykernel answers them, panics (goroutines'
#      too) become error outputs, Kernel -> Interrupt stops a fit (a plain
#      Fit too), a Sleep and a busy loop and keeps the variables, bad and
#      replayed messages are dropped; scripts/kernel_display_test.py: a
#      *plot.Plot renders as one image/png, gonum/plot's error bars take
#      notebook types, data sets and estimators display as HTML tables.
#   4. Execute jupyter/testdata/smoke.ipynb and every notebooks/*.ipynb with
#      "jupyter nbconvert --to notebook --execute" (which fails on the first
#      cell error) and check the results with scripts/check_notebook.py
#      (figures as image/png, execution order, no panics). The executed
#      copies are left in build/notebook-test/.
#   5. scripts/browser_test.py: the notebook server on 127.0.0.1 with a
#      token, each notebooks/*.ipynb as committed opened untrusted in
#      headless Chromium (Debian's), every saved figure and table visible
#      in the rendered page; screenshots in build/browser-test/; then
#      BROWSER_CYCLES (default 100) open/close cycles of a notebook through
#      the server's REST and websocket API with no kernel death.
# It prints the time each step takes.
#
# Environment: GO (the go command), NOTEBOOK_TIMEOUT (seconds per cell,
# default 1200), NOTEBOOK_JUPYTER and NOTEBOOK_PYTHON (default /usr/bin/jupyter
# and /usr/bin/python3, Debian's; for testing this script).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
kernel=$(realpath "${1:-build/vrvm-kernel}")
name=vrvm-test
python=${NOTEBOOK_PYTHON:-/usr/bin/python3} # Debian's, never a pyenv or virtualenv one
jupyter=${NOTEBOOK_JUPYTER:-/usr/bin/jupyter}
timeout=${NOTEBOOK_TIMEOUT:-1200} # seconds per cell

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

NOTEBOOK_PYTHON=$python NOTEBOOK_JUPYTER=$jupyter scripts/install-jupyter.sh --browser

if [ ! -x "$kernel" ]; then
	echo "notebook-test: no kernel binary at $kernel: run 'make kernel'" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export JUPYTER_PATH="$tmp/share/jupyter"
export JUPYTER_DATA_DIR="$tmp/data"
export JUPYTER_CONFIG_DIR="$tmp/config"
export JUPYTER_RUNTIME_DIR="$tmp/runtime"
export IPYTHONDIR="$tmp/ipython"
export JUPYTER_PLATFORM_DIRS=0

"$go" build -o "$tmp/vrvm" ./cmd/vrvm
"$tmp/vrvm" kernel install --prefix "$tmp" --name "$name" --kernel "$kernel"

# The kernel's own Go tests (jupyter/gophernotes/*_test.go), which build
# only with the overlay that builds the kernel.
"$go" run ./jupyter/mkkernel -overlay "$tmp/overlay.json"
"$go" test -count=1 -overlay "$tmp/overlay.json" -tags vrvmkernel ./jupyter/gophernotes

t=$(now)
"$python" scripts/kernel_protocol_test.py "$name"
echo "notebook-test: protocol tests: $(since "$t")"
t=$(now)
"$python" scripts/kernel_display_test.py "$name"
echo "notebook-test: display tests: $(since "$t")"

out=build/notebook-test
rm -rf "$out"
mkdir -p "$out"
notebooks=(jupyter/testdata/smoke.ipynb)
for nb in notebooks/*.ipynb; do
	[ -e "$nb" ] && notebooks+=("$nb")
done
status=0
executed=()
for nb in "${notebooks[@]}"; do
	t=$(now)
	base=$(basename "$nb" .ipynb)
	if "$jupyter" nbconvert --to notebook --execute \
		--ExecutePreprocessor.kernel_name="$name" \
		--ExecutePreprocessor.timeout="$timeout" \
		--output-dir "$out" --output "$base" "$nb" >"$tmp/nbconvert.log" 2>&1; then
		echo "notebook-test: executed $nb in $(since "$t")"
		executed+=("$out/$base.ipynb")
	else
		echo "notebook-test: FAIL executing $nb ($(since "$t")):" >&2
		# The traceback of the failing cell, without the kernel's own log.
		grep -v 'vrvm kernel: interrupt\|Shutting down in response' "$tmp/nbconvert.log" | tail -n 40 >&2
		status=1
	fi
done
if [ "${#executed[@]}" -gt 0 ]; then
	"$python" scripts/check_notebook.py "${executed[@]}" || status=1
fi
t=$(now)
# The notebooks ask for the kernel "vrvm": register it under that name too
# (in the temporary JUPYTER_PATH), as a user's "make notebooks" does.
"$tmp/vrvm" kernel install --prefix "$tmp" --name vrvm --kernel "$kernel" >/dev/null
nbs=()
for nb in notebooks/*.ipynb; do
	[ -e "$nb" ] && nbs+=("$nb")
done
if [ "${#nbs[@]}" -gt 0 ]; then
	if "$python" scripts/browser_test.py vrvm build/browser-test "${nbs[@]}"; then
		echo "notebook-test: browser test: $(since "$t")"
	else
		echo "notebook-test: FAIL browser test (server log: build/browser-test/notebook-server.log)" >&2
		status=1
	fi
fi
if [ "$status" -ne 0 ]; then
	echo "notebook-test: FAILED" >&2
	exit 1
fi
echo "notebook-test: all ${#notebooks[@]} notebooks passed"
