#!/usr/bin/env bash
# notebooks: the main job ("make notebooks").
#
#   1. Jupyter from Debian's packages when missing (scripts/install-jupyter.sh).
#   2. Build the vrvm command and the Jupyter kernel into build/bin
#      (scripts/build.sh, the recipe docker/Dockerfile uses too).
#   3. Register the kernel for the user ("vrvm kernel install --user").
#   4. Fetch the data sets missing from the data directory ($VRVM_DATA, else
#      the user cache), once, with progress.
#   5. Execute every notebooks/*.ipynb headlessly into build/notebooks and
#      write an HTML copy into build/html. A notebook whose data sets (its
#      metadata "vrvm": {"datasets": [...]}) are missing is skipped, and the
#      script says which and why.
#
# Environment: GO, NOTEBOOK_TIMEOUT (seconds per cell, default 1200).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
python=/usr/bin/python3
jupyter=/usr/bin/jupyter
timeout=${NOTEBOOK_TIMEOUT:-1200}
start=$(date +%s)

scripts/install-jupyter.sh
GO="$go" scripts/build.sh build
vrvm=build/bin/vrvm
"$vrvm" kernel install --user --kernel "$root/build/bin/vrvm-kernel"

echo "notebooks: data sets"
"$vrvm" data fetch || echo "notebooks: some data sets are missing (above); notebooks that need them are skipped"

mkdir -p build/notebooks build/html
ran=() skipped=() failed=()
for nb in notebooks/*.ipynb; do
	[ -e "$nb" ] || continue
	base=$(basename "$nb" .ipynb)
	needs=$("$python" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1])).get("metadata",{}).get("vrvm",{}).get("datasets",[])))' "$nb")
	if [ -n "$needs" ]; then
		# shellcheck disable=SC2086
		if ! "$vrvm" data status $needs >/dev/null 2>&1; then
			skipped+=("$nb (needs data sets: $needs; run \"$vrvm data\" to see which are missing)")
			continue
		fi
	fi
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
echo "notebooks: ${#ran[@]} executed, ${#skipped[@]} skipped, ${#failed[@]} failed, in $(($(date +%s) - start)) s"
for s in "${skipped[@]}"; do echo "  skipped: $s"; done
echo "  executed notebooks: $root/build/notebooks/"
echo "  HTML copies:        $root/build/html/ (open build/html/01-regression.html in a browser)"
echo "  the kernel \"Go (vrvm)\" is registered for you; to work interactively run: make jupyter"
[ "${#failed[@]}" -eq 0 ]
