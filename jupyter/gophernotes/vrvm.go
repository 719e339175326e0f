//go:build vrvmkernel

// This file is the project's only addition to the main package of
// gophernotes v0.7.5, which is otherwise compiled unmodified from the module
// cache: "go run ./jupyter/mkkernel" maps gophernotes' files into this
// directory with "go build -overlay" and builds the result with the
// vrvmkernel tag. Without the overlay the directory holds no buildable
// package, so ./... patterns skip it.
package main

import (
	"go/build"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	_ "github.com/vrvm/vrvm/jupyter/gomacrosym" // the compiled packages notebooks import
)

func init() {
	// gophernotes v0.7.5 panics at start on Go ≥ 1.23 ("*types.Alias: any"):
	// gomacro asks go/importer for the go/types of standard packages and
	// cannot digest generics or aliases in modern export data. When that
	// lookup fails it falls back to reflection, which is all it needs, so
	// make it fail: point go/build at a GOROOT that cannot exist (a
	// directory beneath the executable, which is a file). Importing
	// packages that are not compiled in (through Go plugins) is impossible
	// as a consequence; it would need a toolchain and the network anyway.
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	build.Default.GOROOT = filepath.Join(exe, "no-goroot")

	// Under a memory limit (cgroup v2 memory.max, as in a container), let
	// the garbage collector work to stay below 90 % of it, so that the
	// garbage of earlier cells does not push the kernel over the limit.
	// An allocation that does not fit still ends the kernel (see
	// jupyter/README.md, "Memory").
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && limit > 0 {
			debug.SetMemoryLimit(limit - limit/10)
		}
	}
}
