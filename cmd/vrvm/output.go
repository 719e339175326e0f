package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Output files are written like a careful Unix tool writes them (see
// outputHelp): a regular file through a temporary file beside it
// (".NAME.vrvm-tmp-*"), synced, then renamed over it, so a reader sees
// the old file or the whole new one; a new file gets mode 0666 less the
// umask (0644 usually), an existing one keeps its mode, and a symbolic
// link stays and its target is replaced. A regular file in a directory
// the user may not write is written in place, truncated once the whole
// output is ready. Devices, FIFOs and sockets (/dev/null, a named pipe)
// are opened and written, never replaced. "-", /dev/stdout, /dev/fd/1
// and /proc/self/fd/1 are standard output, written through the open
// descriptor. The temporary file is removed on every exit the process
// controls (an error, a return, Ctrl-C); only SIGKILL or a crash can
// leave one.

// outputHelp is the paragraph of the help texts of fit and predict on -o.
const outputHelp = `-o: a regular file is replaced atomically (a temporary file beside it,
synced, renamed over it; it keeps its mode, and a symbolic link keeps
pointing at it), so a reader sees the old file or the whole new one; in
a directory without write permission (no temporary file can be made
there) the file is written in place instead, truncated only once the
whole output is ready, so an error leaves it as it was, but a failure
of the write itself (a full disk) can leave it partial. A device, FIFO
or socket (/dev/null, a named pipe) is written directly and kept. "-"
and /dev/stdout are standard output; a write error there (standard
output closed, a full disk) is an error. Whether the output can be
written is checked before the work starts. -o never names an input.
`

// tempFiles are the temporary files being written, removed by
// removeTempFiles on an interrupt.
var tempFiles struct {
	sync.Mutex
	names   map[string]bool
	exiting bool // set by removeTempFiles
}

func dropTempFile(name string) {
	tempFiles.Lock()
	defer tempFiles.Unlock()
	delete(tempFiles.names, name)
}

// removeTempFiles removes every temporary file being written, and no new
// one is started after it: the process is about to exit.
func removeTempFiles() {
	tempFiles.Lock()
	defer tempFiles.Unlock()
	for name := range tempFiles.names {
		os.Remove(name)
	}
	tempFiles.names = nil
	tempFiles.exiting = true
}

// checkNotInput returns an error if the output path names one of the
// input files (the same file, by device and inode, or the same path).
func checkNotInput(out string, inputs ...string) error {
	if out == "-" {
		return nil
	}
	oi, oerr := os.Stat(out)
	oabs, _ := filepath.Abs(out)
	for _, in := range inputs {
		if in == "-" || in == "" {
			continue
		}
		if ii, err := os.Stat(in); err == nil && oerr == nil && os.SameFile(oi, ii) {
			return fmt.Errorf("-o %s: refusing to overwrite the input file %s", out, in)
		}
		if iabs, err := filepath.Abs(in); err == nil && iabs == oabs {
			return fmt.Errorf("-o %s: refusing to overwrite the input file %s", out, in)
		}
	}
	return nil
}

// isStdout reports whether path names standard output.
func isStdout(path string) bool {
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// pathError is err, from an operation on path or its temporary file,
// stated for path.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// checkOutput returns an error if path cannot be written, before the
// work of a command starts: standard output closed, a directory, a file
// or device without write permission, a new file in a directory that
// does not exist or may not be written.
func checkOutput(path string) error {
	if isStdout(path) {
		if stdoutClosed() {
			return fmt.Errorf("-o %s: standard output is closed", path)
		}
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		if err := canWrite(dir); err != nil {
			return pathError(path, err)
		}
		return nil
	case err != nil:
		return pathError(path, err)
	case fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	}
	if err := canWrite(path); err != nil {
		return pathError(path, err)
	}
	return nil
}

// writeOutput writes what write produces to path, as the comment at the
// top of this file says, or to stdout for "-" and its aliases. Errors
// name path, never the temporary file; an error of write itself is
// returned as it is.
func writeOutput(path string, stdout io.Writer, write func(w io.Writer) error) error {
	if isStdout(path) {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("standard output: %w", err)
		}
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return writeDirect(path, write)
	}
	target := path // the file replaced: a symbolic link's target
	if err == nil {
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
	}
	mode := fs.FileMode(0o666) &^ umask()
	if err == nil {
		mode = fi.Mode().Perm()
	}
	err = writeAtomic(path, target, mode, write)
	var noTemp *tempError
	if errors.As(err, &noTemp) && fi != nil && (errors.Is(noTemp.err, fs.ErrPermission) || errors.Is(noTemp.err, syscall.EROFS)) {
		// No temporary file beside it: write the file in place.
		return writeInPlace(path, write)
	}
	return err
}

// tempError is the error of creating the temporary file.
type tempError struct {
	path string
	err  error
}

func (e *tempError) Error() string { return pathError(e.path, e.err).Error() }
func (e *tempError) Unwrap() error { return e.err }

// writeAtomic writes target through a temporary file beside it, renamed
// over it; errors name path.
func writeAtomic(path, target string, mode fs.FileMode, write func(w io.Writer) error) error {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tempFiles.Lock() // the temporary file is registered before it exists
	if tempFiles.exiting {
		tempFiles.Unlock()
		return fmt.Errorf("%s: not written: interrupted", path)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".vrvm-tmp-*")
	if err != nil {
		tempFiles.Unlock()
		return &tempError{path: path, err: err}
	}
	name := tmp.Name()
	if tempFiles.names == nil {
		tempFiles.names = map[string]bool{}
	}
	tempFiles.names[name] = true
	tempFiles.Unlock()
	discard := func() {
		tmp.Close()
		os.Remove(name)
		dropTempFile(name)
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		discard()
		return err // an error of write, not of the file
	}
	for _, step := range []func() error{bw.Flush, func() error { return tmp.Chmod(mode) }, tmp.Sync, tmp.Close} {
		if err := step(); err != nil {
			discard()
			return pathError(path, err)
		}
	}
	if err := os.Rename(name, target); err != nil {
		os.Remove(name)
		dropTempFile(name)
		return pathError(path, err)
	}
	dropTempFile(name)
	// Make the rename durable; not every system can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeInPlace writes the regular file path in place: the whole output
// is produced first, so an error of write leaves the file as it was;
// then the file is truncated, written and synced.
func writeInPlace(path string, write func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return pathError(path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return pathError(path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return pathError(path, err)
	}
	if err := f.Close(); err != nil {
		return pathError(path, err)
	}
	return nil
}

// writeDirect writes a device, FIFO or socket path as it is, opened for
// writing (a FIFO's open waits for its reader, as the shell's does).
func writeDirect(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return pathError(path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return pathError(path, err)
	}
	if err := f.Close(); err != nil {
		return pathError(path, err)
	}
	return nil
}
