package main

import (
	"os"
	"syscall"
)

// canWrite returns the error of opening path for writing, by the
// process's real user (access(2)), without opening it: a FIFO's open
// would wait for its reader.
func canWrite(path string) error {
	const wOK = 2
	if err := syscall.Access(path, wOK); err != nil {
		return &os.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}

// stdoutClosed reports whether the process was started with standard
// output closed (vrvm … >&-). The Go runtime then opens /dev/null, for
// reading and writing, in its place, where a shell's >/dev/null opens it
// for writing only: so /dev/null open for both is taken as closed.
func stdoutClosed() bool {
	var st, null syscall.Stat_t
	if syscall.Fstat(1, &st) != nil {
		return true
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFCHR || syscall.Stat(os.DevNull, &null) != nil || st.Rdev != null.Rdev {
		return false
	}
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	return errno == 0 && fl&syscall.O_ACCMODE == syscall.O_RDWR
}
