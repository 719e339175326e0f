package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Output files are written like a careful Unix tool writes them: to a
// temporary file beside the destination (".NAME.vrvm-tmp-*"), synced,
// then renamed over it, so a reader sees the old file or the whole new
// one. A new file gets mode 0666 less the umask (0644 usually); an
// existing file keeps its mode. "-" is standard output. The temporary
// file is removed on every exit the process controls (an error, a
// return, Ctrl-C); only SIGKILL or a crash can leave one.

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

// writeOutput writes what write produces to path, atomically, or to
// stdout for "-". Errors name path, never the temporary file.
func writeOutput(path string, stdout io.Writer, write func(w io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	pathErr := func(err error) error {
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
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	mode := fs.FileMode(0o666) &^ umask()
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
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
		return pathErr(err)
	}
	name := tmp.Name()
	if tempFiles.names == nil {
		tempFiles.names = map[string]bool{}
	}
	tempFiles.names[name] = true
	tempFiles.Unlock()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		dropTempFile(name)
		return pathErr(err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		tmp.Close()
		os.Remove(name)
		dropTempFile(name)
		return err // an error of write, not of the file
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		dropTempFile(name)
		return pathErr(err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		dropTempFile(name)
		return pathErr(err)
	}
	dropTempFile(name)
	// Make the rename durable; not every system can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
