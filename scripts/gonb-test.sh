#!/usr/bin/env bash
# gonb-test: execute the GoNB notebooks (notebooks/gonb/*.ipynb) under the
# GoNB kernel, headlessly ("make gonb-test", part of "make test").
#
# Usage: scripts/gonb-test.sh
#
# Steps:
#   1. Jupyter: scripts/install-jupyter.sh installs Debian's packages when
#      they are missing and we are root (as CI is), or names them.
#   2. scripts/gonb.sh builds gonb, gopls and goimports into build/bin and
#      registers the kernelspec "gonb" in a temporary Jupyter data directory
#      put on JUPYTER_PATH; every other Jupyter directory is temporary too,
#      so the user's configuration and kernels play no part.
#   3. Execute each notebook with "jupyter nbconvert --to notebook
#      --execute" (which fails on the first cell error) into
#      build/gonb-test/, then check it with scripts/check_notebook.py
#      (execution order, figures as image/png, no panics) and
#      scripts/check_expected.py (the outputs each cell's metadata expects).
# It prints the time each step takes.
#
# Environment: GO (the go command), NOTEBOOK_TIMEOUT (seconds per cell,
# default 600), NOTEBOOK_JUPYTER and NOTEBOOK_PYTHON (default /usr/bin/jupyter
# and /usr/bin/python3, Debian's).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
python=${NOTEBOOK_PYTHON:-/usr/bin/python3} # Debian's, never a pyenv or virtualenv one
jupyter=${NOTEBOOK_JUPYTER:-/usr/bin/jupyter}
timeout=${NOTEBOOK_TIMEOUT:-600} # seconds per cell

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
start=$(now)

NOTEBOOK_PYTHON=$python NOTEBOOK_JUPYTER=$jupyter scripts/install-jupyter.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export JUPYTER_PATH="$tmp/share/jupyter"
export JUPYTER_DATA_DIR="$tmp/share/jupyter"
export JUPYTER_CONFIG_DIR="$tmp/config"
export JUPYTER_RUNTIME_DIR="$tmp/runtime"
export IPYTHONDIR="$tmp/ipython"
export JUPYTER_PLATFORM_DIRS=0
# The notebooks find this checkout from their own directory; a VRVM_SRC
# from the caller's environment must not send them to another.
unset VRVM_SRC

GO="$go" NOTEBOOK_PYTHON="$python" scripts/gonb.sh

out=build/gonb-test
rm -rf "$out"
mkdir -p "$out"
notebooks=()
for nb in notebooks/gonb/*.ipynb; do
	[ -e "$nb" ] && notebooks+=("$nb")
done
if [ "${#notebooks[@]}" -eq 0 ]; then
	echo "gonb-test: no notebooks in notebooks/gonb" >&2
	exit 1
fi
status=0
executed=()
for nb in "${notebooks[@]}"; do
	t=$(now)
	base=$(basename "$nb" .ipynb)
	if "$jupyter" nbconvert --to notebook --execute \
		--ExecutePreprocessor.kernel_name=gonb \
		--ExecutePreprocessor.timeout="$timeout" \
		--output-dir "$out" --output "$base" "$nb" >"$tmp/nbconvert.log" 2>&1; then
		echo "gonb-test: executed $nb in $(since "$t")"
		executed+=("$out/$base.ipynb")
	else
		echo "gonb-test: FAIL executing $nb ($(since "$t")):" >&2
		tail -n 40 "$tmp/nbconvert.log" >&2
		status=1
	fi
done
if [ "${#executed[@]}" -gt 0 ]; then
	"$python" scripts/check_notebook.py "${executed[@]}" || status=1
	"$python" scripts/check_expected.py "${executed[@]}" || status=1
fi
if [ "$status" -ne 0 ]; then
	echo "gonb-test: FAILED ($(since "$start"))" >&2
	exit 1
fi
echo "gonb-test: all ${#notebooks[@]} GoNB notebooks passed in $(since "$start")"
