#!/usr/bin/env bash
# check-docs: fail when internal/symdoc/symdoc_gen.go, the documentation of the
# symbol set that the REPL's :doc prints, is stale.
#
# Usage: scripts/check-docs.sh [module root]   (default: this clone)
#
# It runs the generator exactly as the //go:generate line of
# internal/symdoc/symdoc.go does, into a temporary file, and fails when the
# generator exits non-zero or prints anything, or when its output differs
# from the committed file. Run "make generate" (or "go generate ./internal/symdoc"
# after "go generate ./symbols") to update it.
set -euo pipefail

root=${1:-"$(dirname "$0")/.."}
cd "$root"
go=${GO:-go}
file=internal/symdoc/symdoc_gen.go

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
(cd internal/symdoc && GO="$go" "$go" run ../../cmd/vrvm/internal/gendoc -o "$tmp/symdoc_gen.go") >"$tmp/out" 2>&1 || status=$?
if [ "$status" -ne 0 ] || [ -s "$tmp/out" ]; then
	echo "check-docs: the generator (cmd/vrvm/internal/gendoc) exited with status $status and printed:" >&2
	cat "$tmp/out" >&2
	exit 1
fi
if [ ! -e "$file" ]; then
	echo "check-docs: $file is missing: run 'make generate' and commit it" >&2
	exit 1
fi
if ! cmp -s "$tmp/symdoc_gen.go" "$file"; then
	echo "check-docs: $file is stale: run 'make generate'; the difference:" >&2
	diff -u "$file" "$tmp/symdoc_gen.go" | head -n 200 | sed 's/^/    /' >&2 || true
	exit 1
fi
echo "check-docs: $file is up to date ($(grep -c '^	"' "$file") entries)"
