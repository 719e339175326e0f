#!/usr/bin/env bash
# notebooks: the main job ("make notebooks").
#
#   1. Jupyter from Debian's packages when missing (scripts/install-jupyter.sh).
#   2. Build the vrvm command and the Jupyter kernel into build/bin
#      (scripts/build.sh, the recipe docker/Dockerfile uses too).
#   3. Register the kernel for the user ("vrvm kernel install --user").
#   4. Write the data sets missing from the data directory ($VRVM_DATA, else
#      the user cache) from the copies built into vrvm ("vrvm data fetch";
#      no download), for the notebook that reads files by path.
#   5. Execute every notebooks/*.ipynb headlessly into build/notebooks and
#      write an HTML copy into build/html. Nothing is skipped: the data the
#      notebooks read ship with the project.
#
# Environment: GO, NOTEBOOK_TIMEOUT (seconds per cell, default 1200).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
jupyter=/usr/bin/jupyter
timeout=${NOTEBOOK_TIMEOUT:-1200}
start=$(date +%s)

scripts/install-jupyter.sh
GO="$go" scripts/build.sh build
vrvm=build/bin/vrvm
"$vrvm" kernel install --user --kernel "$root/build/bin/vrvm-kernel"

echo "notebooks: data sets"
"$vrvm" data fetch

mkdir -p build/notebooks build/html
ran=() failed=()
for nb in notebooks/*.ipynb; do
	[ -e "$nb" ] || continue
	base=$(basename "$nb" .ipynb)
	t=$(date +%s)
	if "$jupyter" nbconvert --to notebook --execute \
		--ExecutePreprocessor.kernel_name=vrvm --ExecutePreprocessor.timeout="$timeout" \
		--output-dir build/notebooks --output "$base" "$nb" >"build/notebooks/$base.log" 2>&1 &&
		"$jupyter" nbconvert --to html --output-dir build/html "build/notebooks/$base.ipynb" >>"build/notebooks/$base.log" 2>&1; then
		echo "notebooks: executed $nb in $(($(date +%s) - t)) s"
		ran+=("$nb")
	else
		echo "notebooks: FAILED $nb (log: build/notebooks/$base.log):" >&2
		tail -n 20 "build/notebooks/$base.log" >&2
		failed+=("$nb")
	fi
done

echo
echo "notebooks: ${#ran[@]} executed, ${#failed[@]} failed, in $(($(date +%s) - start)) s"
echo "  executed notebooks: $root/build/notebooks/"
echo "  HTML copies:        $root/build/html/ (open build/html/01-regression.html in a browser)"
echo "  the kernel \"Go (vrvm)\" is registered for you; to work interactively run: make jupyter"
[ "${#failed[@]}" -eq 0 ]
