#!/usr/bin/env bash
# jupyter: "make jupyter", Jupyter Notebook on working copies of the tutorials.
#
#   1. Jupyter from Debian's packages when missing (scripts/install-jupyter.sh).
#   2. The kernel "vrvm" registered for the user, building build/bin first
#      (scripts/build.sh) when it is not registered yet.
#   3. Copy notebooks/*.ipynb into the working directory, my-notebooks/ in the
#      repository (or $VRVM_NOTEBOOKS), each only if not there already: your
#      edits there are kept, and autosave never writes into the tracked
#      notebooks/. Delete a copy to get the tutorial afresh.
#   4. Start Jupyter Notebook there, with build/bin on $PATH (notebook 5 runs
#      the vrvm command) and --allow-root when run as root (as in a
#      container). Extra arguments for Jupyter: $JUPYTER_ARGS, for example
#      JUPYTER_ARGS="--no-browser --port 8889".
#
# The working directory sits beside notebooks/ so that the relative paths the
# tutorials use (../examples, ../build/bin) hold there too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
jupyter=/usr/bin/jupyter
work=${VRVM_NOTEBOOKS:-$root/my-notebooks}

scripts/install-jupyter.sh
if ! "$jupyter" kernelspec list 2>/dev/null | grep -q '^ *vrvm '; then
	if [ ! -x build/bin/vrvm ] || [ ! -x build/bin/vrvm-kernel ]; then
		GO="$go" scripts/build.sh build
	fi
	build/bin/vrvm kernel install --user --kernel "$root/build/bin/vrvm-kernel"
fi

mkdir -p "$work"
copied=()
for nb in notebooks/*.ipynb; do
	[ -e "$nb" ] || continue
	dest="$work/$(basename "$nb")"
	if [ ! -e "$dest" ]; then
		cp "$nb" "$dest"
		copied+=("$(basename "$nb")")
	fi
done
if [ "${#copied[@]}" -gt 0 ]; then
	echo "jupyter: copied ${copied[*]} into $work"
fi
echo "jupyter: working copies in $work (the tracked notebooks/ stay as they are)"

args=(--notebook-dir="$work")
if [ "$(id -u)" -eq 0 ]; then
	args+=(--allow-root)
fi
# shellcheck disable=SC2206
args+=(${JUPYTER_ARGS:-})
PATH="$root/build/bin:$PATH" exec "$jupyter" notebook "${args[@]}"
