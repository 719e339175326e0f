// Package boundedjson reads one JSON document from a reader with a limit
// on its size, so that a device (/dev/zero), a pipe or a huge sparse file
// gives an error instead of exhausting memory.
package boundedjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// TooLargeError reports a document longer than the limit.
type TooLargeError struct {
	Size  int64 // the file's size if known (a regular file), else 0
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s, more than the limit of %s", Bytes(e.Size), Bytes(e.Limit))
	}
	return fmt.Sprintf("more than the limit of %s", Bytes(e.Limit))
}

// SyntaxError reports bytes that are not one JSON value.
type SyntaxError struct{ Err error }

func (e *SyntaxError) Error() string { return e.Err.Error() }
func (e *SyntaxError) Unwrap() error { return e.Err }

// Read returns the bytes of the one JSON value r holds (white space may
// surround it), reading at most limit bytes. A regular file (r has a
// Stat method, as *os.File has) larger than limit is refused before
// reading. Bytes that are not JSON stop the read where they start, so
// /dev/zero fails after its first block. The errors are a
// *TooLargeError, a *SyntaxError (with trailing data after the value
// too), or the reader's.
func Read(r io.Reader, limit int64) ([]byte, error) {
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return nil, &TooLargeError{Size: fi.Size(), Limit: limit}
		}
	}
	lr := &io.LimitedReader{R: r, N: limit + 1}
	dec := json.NewDecoder(lr)
	var v json.RawMessage
	err := dec.Decode(&v)
	if err == nil {
		// Nothing but white space may follow the value.
		var tok json.Token
		if tok, err = dec.Token(); err == io.EOF {
			err = nil
		} else if err == nil {
			err = &SyntaxError{Err: fmt.Errorf("%v after the JSON value", tok)}
		}
	}
	if lr.N <= 0 {
		return nil, &TooLargeError{Limit: limit}
	}
	var se *json.SyntaxError
	switch {
	case err == nil:
		return v, nil
	case err == io.EOF, err == io.ErrUnexpectedEOF:
		return nil, &SyntaxError{Err: errors.New("unexpected end of JSON input")}
	case errors.As(err, &se):
		return nil, &SyntaxError{Err: err}
	}
	return nil, err
}

// Bytes formats a size in bytes for a message: "1 GiB", "8.5 GiB",
// "300 MiB", "512 bytes".
func Bytes(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			v := float64(n) / float64(u.size)
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
