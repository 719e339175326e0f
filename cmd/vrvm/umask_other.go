//go:build !unix

package main

import "io/fs"

// umask is the usual mask where the system has none to read.
func umask() fs.FileMode { return 0o022 }
