package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultFetchTimeout is the time allowed for downloading one file when
// FetchOptions.Timeout is zero.
const DefaultFetchTimeout = 2 * time.Minute

// maxDownload bounds the size of a downloaded file; the largest upstream
// file has 37 kB.
const maxDownload = 1 << 22

// ErrChecksum is wrapped by the error of a download whose SHA-256 differs
// from the pinned one.
var ErrChecksum = errors.New("checksum mismatch")

// FetchOptions configures Fetch and Ensure. The zero value downloads from
// DefaultBaseURL into Dir() with http.DefaultClient, allows
// DefaultFetchTimeout per file and reports nothing. Ensure, which never
// downloads, uses only Dir and Progress.
type FetchOptions struct {
	// BaseURL is the URL of the directory holding the upstream files;
	// "/" and the upstream file name (for example "synth.tr.csv") are
	// appended. Empty means DefaultBaseURL.
	BaseURL string

	// Client sends the requests. Nil means http.DefaultClient.
	Client *http.Client

	// Timeout bounds the download of each file, from sending the request
	// to receiving the last byte. Zero means DefaultFetchTimeout; a
	// negative Timeout means no bound other than ctx's.
	Timeout time.Duration

	// Progress, if not nil, receives a progress line per file ("bytes
	// received / total", rewritten in place with \r) and from Ensure a
	// line naming what was fetched. Commands pass os.Stderr.
	Progress io.Writer

	// Dir is the directory the files are stored in. Empty means Dir().
	Dir string
}

func (o FetchOptions) dir() (string, error) {
	if o.Dir != "" {
		return o.Dir, nil
	}
	return Dir()
}

// Fetch downloads the named data set ("ripley", "pima" or "boston"; see
// Names) from the Rdatasets repository at RdatasetsCommit, replacing any
// copy in the data directory.
//
// Each upstream file is checked against its pinned SHA-256 and converted to
// the normalised layout that the loaders read: the "rownames" column is
// dropped, Boston's columns get the upper-case UCI names (black becomes B,
// medv MEDV), and the decimals R dropped from Ripley's fixed-precision
// numbers are restored, so that the stored file is byte-identical to the
// project's copy (whose SHA-256 is checked too). The files of the set are
// all downloaded and checked before any is stored; each is stored
// atomically (written to a temporary file in the data directory, then
// renamed), so on error nothing is written.
//
// Fetching "sinc", "ripley-subsets", "boston-splits", "iris", "wine" or
// "digits" is an error wrapping ErrNotDownloadable: those files are fixed
// and have no upstream copy (they are embedded; Ensure writes them out).
func Fetch(ctx context.Context, name string, opt FetchOptions) error {
	s, err := lookup(name)
	if err != nil {
		return err
	}
	dir, err := opt.dir()
	if err != nil {
		return err
	}
	return fetchFiles(ctx, s.name, s.files, dir, opt)
}

// Ensure makes sure the files of the named data sets (all of Names if none
// is named) are in the data directory: it writes each missing file from
// the copy embedded in this package, byte for byte the project's copy, and
// writes a line naming each set written to opt.Progress. It never
// downloads (Fetch does), so only opt.Dir and opt.Progress matter. It
// returns the names of the files it wrote. Files already present are not
// checked or replaced. Each file is written atomically, as by Fetch; an
// error stops Ensure, which returns what it wrote before and the error.
//
// The loaders and LoadCSV read the embedded copy themselves when a file is
// missing; Ensure is for programs that need the files on disk, such as
// the vrvm command reading one by its path.
func Ensure(ctx context.Context, opt FetchOptions, names ...string) (written []string, err error) {
	if len(names) == 0 {
		names = Names()
	}
	sets := make([]dataSet, len(names))
	for i, n := range names {
		if sets[i], err = lookup(n); err != nil {
			return nil, err
		}
	}
	dir, err := opt.dir()
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		var got []string
		for _, f := range s.files {
			if err := ctx.Err(); err != nil {
				return written, err
			}
			path := filepath.Join(dir, filepath.FromSlash(f.name))
			_, err := os.Stat(path)
			if err == nil {
				continue
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return written, fmt.Errorf("datasets: %w", err)
			}
			b, err := readEmbedded(f.name)
			if err != nil {
				return written, err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return written, fmt.Errorf("datasets: %w", err)
			}
			if err := writeAtomic(path, b); err != nil {
				return written, fmt.Errorf("datasets: storing %s: %w", f.name, err)
			}
			got = append(got, f.name)
		}
		written = append(written, got...)
		if len(got) > 0 && opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "datasets: wrote %s: %s in %s (from the embedded copy)\n", s.name, strings.Join(got, ", "), dir)
		}
	}
	return written, nil
}

// fetchFiles downloads, checks and converts the files, then stores them.
func fetchFiles(ctx context.Context, set string, files []file, dir string, opt FetchOptions) error {
	base := opt.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimSuffix(base, "/")
	converted := make([][]byte, len(files))
	for i, f := range files {
		if f.upstream == "" {
			return fmt.Errorf("datasets: cannot fetch %q: %s is fixed and has no upstream copy: %w; its copy is embedded in this package (datasets.Ensure, or vrvm data fetch, writes it into the data directory)", set, f.name, ErrNotDownloadable)
		}
		url := base + "/" + f.upstream
		body, err := download(ctx, url, f.upstream, opt)
		if err != nil {
			return fmt.Errorf("datasets: fetching %s: %w", set, err)
		}
		if got := sha256Hex(body); got != f.upstreamSHA256 {
			return fmt.Errorf("datasets: fetching %s: %s: %w: SHA-256 %s, want %s", set, url, ErrChecksum, got, f.upstreamSHA256)
		}
		if converted[i], err = convertUpstream(f, body); err != nil {
			return fmt.Errorf("datasets: fetching %s: %s: %w", set, url, err)
		}
		if got := sha256Hex(converted[i]); got != f.sha256 {
			// Unreachable unless the conversion has a bug: the input is pinned.
			return fmt.Errorf("datasets: fetching %s: converting %s to %s: %w: SHA-256 %s, want %s", set, f.upstream, f.name, ErrChecksum, got, f.sha256)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	for i, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), converted[i]); err != nil {
			return fmt.Errorf("datasets: storing %s: %w", f.name, err)
		}
	}
	return nil
}

// download returns the body of a successful GET of url.
func download(ctx context.Context, url, label string, opt FetchOptions) ([]byte, error) {
	parent := ctx
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = DefaultFetchTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	wrap := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			return fmt.Errorf("%s: timed out after %v (FetchOptions.Timeout): %w", url, timeout, err)
		}
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "vrvm-datasets")
	resp, err := client.Do(req)
	if err != nil {
		return nil, wrap(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	total := resp.ContentLength
	if total > maxDownload {
		return nil, fmt.Errorf("GET %s: %d bytes, more than the %d expected at most", url, total, maxDownload)
	}
	p := &progress{w: opt.Progress, label: label, total: total}
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(chunk)
		buf.Write(chunk[:n])
		p.add(n)
		if buf.Len() > maxDownload {
			p.fail()
			return nil, fmt.Errorf("GET %s: more than %d bytes", url, maxDownload)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			p.fail()
			if total >= 0 {
				return nil, wrap(fmt.Errorf("GET %s: body cut short after %d of %d bytes: %w", url, buf.Len(), total, err))
			}
			return nil, wrap(fmt.Errorf("GET %s: body cut short after %d bytes: %w", url, buf.Len(), err))
		}
	}
	if total >= 0 && int64(buf.Len()) != total {
		p.fail()
		return nil, fmt.Errorf("GET %s: received %d bytes, the server announced %d", url, buf.Len(), total)
	}
	p.done()
	return buf.Bytes(), nil
}

// progress writes "label: received / total bytes" lines, rewritten in place
// with \r at most every progressEvery, and ends them with \n.
type progress struct {
	w       io.Writer
	label   string
	total   int64 // -1 if unknown
	n       int64
	last    time.Time
	written bool
}

const progressEvery = 100 * time.Millisecond

func (p *progress) add(n int) {
	p.n += int64(n)
	if p.w == nil || time.Since(p.last) < progressEvery {
		return
	}
	p.print("")
	p.last = time.Now()
}

func (p *progress) print(end string) {
	if p.total >= 0 {
		fmt.Fprintf(p.w, "\rdatasets: %s: %d / %d bytes%s", p.label, p.n, p.total, end)
	} else {
		fmt.Fprintf(p.w, "\rdatasets: %s: %d bytes%s", p.label, p.n, end)
	}
	p.written = true
}

func (p *progress) done() {
	if p.w != nil {
		p.print("\n")
	}
}

func (p *progress) fail() {
	if p.w != nil && p.written {
		p.print(" (failed)\n")
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// convertUpstream converts an Rdatasets CSV file to the normalised layout:
// header renamed, rownames column dropped, fixed decimals restored.
func convertUpstream(f file, body []byte) ([]byte, error) {
	text, ok := strings.CutSuffix(string(body), "\n")
	if !ok {
		return nil, errors.New("file does not end with a newline")
	}
	lines := strings.Split(text, "\n")
	want := "rownames," + strings.Join(f.upstreamColumns, ",")
	if lines[0] != want {
		return nil, fmt.Errorf("line 1: header %q, want %q", lines[0], want)
	}
	if len(lines)-1 != f.rows {
		return nil, fmt.Errorf("%d data rows, want %d", len(lines)-1, f.rows)
	}
	var b bytes.Buffer
	b.Grow(len(body))
	b.WriteString(strings.Join(f.columns, ","))
	b.WriteByte('\n')
	for i, line := range lines[1:] {
		rn, rest, _ := strings.Cut(line, ",")
		if rn != strconv.Itoa(i+1) {
			return nil, fmt.Errorf("line %d: row name %q, want %d", i+2, rn, i+1)
		}
		if f.decimals == nil {
			b.WriteString(rest)
			b.WriteByte('\n')
			continue
		}
		fields := strings.Split(rest, ",")
		if len(fields) != len(f.decimals) {
			return nil, fmt.Errorf("line %d: %d fields, want %d", i+2, len(fields)+1, len(f.decimals)+1)
		}
		for j, s := range fields {
			if d := f.decimals[j]; d > 0 {
				p, err := fixedDecimals(s, d)
				if err != nil {
					return nil, fmt.Errorf("line %d: column %q: %w", i+2, f.upstreamColumns[j], err)
				}
				s = p
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(s)
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// fixedDecimals writes the plain decimal number s with exactly d decimals,
// which must not change its float64 value: R writes Ripley's 8-decimal
// 0.49656200 as 0.496562, and 0.14790267 as 0.14790267000000001 (17
// significant digits, enough to identify the double); both come back as
// written in the original file.
func fixedDecimals(s string, d int) (string, error) {
	ip, frac, _ := strings.Cut(s, ".")
	ip = strings.TrimPrefix(ip, "-")
	if ip == "" || strings.Trim(ip, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return "", fmt.Errorf("%q is not a plain decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", err
	}
	out := strconv.FormatFloat(v, 'f', d, 64)
	if w, err := strconv.ParseFloat(out, 64); err != nil || w != v {
		return "", fmt.Errorf("%q cannot be written with %d decimals without changing its value", s, d)
	}
	return out, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so that path holds either its old content or all
// of data.
func writeAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
