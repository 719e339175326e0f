//go:build unix

package main

import (
	"io/fs"
	"sync"
	"syscall"
)

// umask returns the process's file mode creation mask. Reading it means
// setting it, so it is read once.
var umask = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return fs.FileMode(m)
})
