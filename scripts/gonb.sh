#!/usr/bin/env bash
# gonb: build GoNB, the second Go kernel (docs/gonb.md), with the gopls and
# goimports it runs, and register its kernelspec "gonb" for you.
#
# Usage: scripts/gonb.sh [--no-install]      ("make gonb")
#
# Steps:
#   1. Build github.com/janpfeifer/gonb, golang.org/x/tools/gopls and
#      golang.org/x/tools/cmd/goimports into build/bin (GONB_BIN) from
#      tools/gonb/go.mod, their own module, which pins GoNB v0.11.1 and
#      gopls v0.23.0 as tools; the library's go.mod is not touched. The Go
#      module proxy supplies the sources ("go install gonb@v0.11.1" does not
#      work: GoNB's go.mod has replace directives).
#   2. Unless --no-install: "gonb --install", which writes
#      $JUPYTER_DATA_DIR/kernels/gonb/kernel.json (default
#      ~/.local/share/jupyter), then add to that kernelspec an "env" that
#      puts build/bin and the go command's directory first on the kernel's
#      PATH, since GoNB looks up go, gopls and goimports on PATH when it
#      runs: the kernel then works from any Jupyter, whatever its PATH.
# It prints the time each step takes.
#
# Environment: GO (the go command), GONB_BIN (default build/bin),
# JUPYTER_DATA_DIR (where the kernelspec goes), NOTEBOOK_PYTHON (the Python
# that edits kernel.json: default /usr/bin/python3, Debian's, else python3).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
bin=${GONB_BIN:-build/bin}
python=${NOTEBOOK_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
install=true
case "${1:-}" in
"") ;;
--no-install) install=false ;;
*)
	echo "usage: scripts/gonb.sh [--no-install]" >&2
	exit 2
	;;
esac

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

mkdir -p "$bin"
bin=$(cd "$bin" && pwd)
gobin=$(dirname "$(command -v "$go")")

t=$(now)
"$go" build -C tools/gonb -o "$bin/" \
	github.com/janpfeifer/gonb golang.org/x/tools/gopls golang.org/x/tools/cmd/goimports
echo "gonb: built gonb, gopls and goimports into $bin in $(since "$t")"

$install || exit 0

t=$(now)
# GoNB checks for gopls and goimports on PATH when it installs, and so do we.
PATH="$bin:$gobin:$PATH" "$bin/gonb" --install --logtostderr 2>&1 | sed 's/^/gonb: /'
data=${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}
spec="$data/kernels/gonb/kernel.json"
if [ ! -s "$spec" ]; then
	echo "gonb: gonb --install wrote no $spec" >&2
	exit 1
fi
# ${PATH} is substituted by jupyter_client (7 or later) when it starts the
# kernel: Jupyter's own PATH follows ours.
"$python" - "$spec" "$bin:$gobin" <<'EOF'
import json, sys
path, dirs = sys.argv[1], sys.argv[2]
with open(path) as f:
    spec = json.load(f)
spec.setdefault("env", {})["PATH"] = dirs + ":${PATH}"
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
EOF
echo "gonb: kernel \"Go (gonb)\" registered in $spec in $(since "$t")"
