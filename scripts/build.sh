#!/usr/bin/env bash
# build: the one recipe that builds vrvm's programs, used by "make notebooks",
# by docker/Dockerfile and (into a temporary prefix) by "make test":
#
#   PREFIX/bin/vrvm          the command line (fit, predict, paper, run, repl, data, kernel)
#   PREFIX/bin/vrvm-kernel   the Jupyter kernel: gophernotes with vrvm compiled in
#
# Usage: scripts/build.sh PREFIX        The go command is $GO, or "go".
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/build.sh PREFIX" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go=${GO:-go}
mkdir -p "$1/bin"
prefix=$(cd "$1" && pwd)
start=$(date +%s)
"$go" build -o "$prefix/bin/vrvm" ./cmd/vrvm
GO="$go" "$go" run ./jupyter/mkkernel -o "$prefix/bin/vrvm-kernel"
echo "build: $prefix/bin/vrvm and $prefix/bin/vrvm-kernel in $(($(date +%s) - start)) s"
