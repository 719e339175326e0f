//go:build !linux

package main

// canWrite is nil where access(2) is not used: the write itself reports.
func canWrite(path string) error { return nil }

// stdoutClosed is false where the descriptor is not inspected.
func stdoutClosed() bool { return false }
