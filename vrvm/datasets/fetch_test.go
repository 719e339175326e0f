package datasets

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// downloadable lists the files Fetch can download.
func downloadable() []file {
	var fs []file
	for _, s := range catalog {
		for _, f := range s.files {
			if f.upstream != "" {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// TestConvertUpstream checks the pinned checksums and that the conversion
// of each upstream file is byte-identical to the project's normalised copy.
func TestConvertUpstream(t *testing.T) {
	t.Parallel()
	up := upstreamData(t)
	for _, f := range downloadable() {
		body, err := os.ReadFile(filepath.Join(up, f.upstream))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256Hex(body); got != f.upstreamSHA256 {
			t.Errorf("%s: SHA-256 %s, pinned %s", f.upstream, got, f.upstreamSHA256)
		}
		norm := readShared(t, f.name)
		if got := sha256Hex(norm); got != f.sha256 {
			t.Errorf("%s: SHA-256 %s, pinned %s", f.name, got, f.sha256)
		}
		conv, err := convertUpstream(f, body)
		if err != nil {
			t.Errorf("%s: %v", f.upstream, err)
			continue
		}
		if !bytes.Equal(conv, norm) {
			cl, nl := strings.Split(string(conv), "\n"), strings.Split(string(norm), "\n")
			for i := range min(len(cl), len(nl)) {
				if cl[i] != nl[i] {
					t.Errorf("%s converted differs from %s at line %d: %q, want %q", f.upstream, f.name, i+1, cl[i], nl[i])
					break
				}
			}
			t.Errorf("%s converted: %d bytes, %s has %d", f.upstream, len(conv), f.name, len(norm))
		}
	}
}

func TestConvertUpstreamErrors(t *testing.T) {
	t.Parallel()
	good := "rownames,xs,ys,yc\n1,0.5,-0.25,0\n"
	f := ripleyTrainFile
	f.rows = 1
	if got, err := convertUpstream(f, []byte(good)); err != nil || string(got) != "xs,ys,yc\n0.50000000,-0.25000000,0\n" {
		t.Errorf("convertUpstream(%q) = %q, %v", good, got, err)
	}
	for _, tc := range []struct{ in, msg string }{
		{"rownames,xs,ys,yc\n1,0.5,-0.25,0", "newline"},
		{"xs,ys,yc\n0.5,-0.25,0\n", "line 1: header"},
		{"rownames,xs,ys,yc\n2,0.5,-0.25,0\n", `row name "2", want 1`},
		{"rownames,xs,ys,yc\n1,0.5,-0.25\n", "3 fields, want 4"},
		{"rownames,xs,ys,yc\n1,0.5,1e-3,0\n", `column "ys": "1e-3" is not a plain decimal number`},
		{"rownames,xs,ys,yc\n1,0.123456789,0,0\n", `"0.123456789" cannot be written with 8 decimals`},
		{"rownames,xs,ys,yc\n1,0.5,-0.25,0\n2,0.5,-0.25,0\n", "2 data rows, want 1"},
	} {
		if _, err := convertUpstream(f, []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("convertUpstream(%q): error %v, want one containing %q", tc.in, err, tc.msg)
		}
	}
}

func TestFixedDecimals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		d    int
		want string
	}{
		{"0.5", 3, "0.500"}, {"-0.5", 3, "-0.500"}, {"1", 2, "1.00"}, {"-12.345", 3, "-12.345"}, {"0", 1, "0.0"},
		{"0.14790267000000001", 8, "0.14790267"}, {"-0.031121068000000002", 9, "-0.031121068"}, {"0.496562", 8, "0.49656200"},
	} {
		if got, err := fixedDecimals(tc.in, tc.d); err != nil || got != tc.want {
			t.Errorf("fixedDecimals(%q, %d) = %q, %v; want %q", tc.in, tc.d, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "-", ".5", "1e3", "0x1", "1.2.3", "+1", "1.2345", "0.12350000000000001"} {
		if got, err := fixedDecimals(in, 3); err == nil {
			t.Errorf("fixedDecimals(%q, 3) = %q, want an error", in, got)
		}
	}
}

// recorder is an http.Handler serving the upstream copies and recording
// the paths requested.
type recorder struct {
	h     http.Handler
	mu    sync.Mutex
	paths []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.paths = append(r.paths, req.URL.Path)
	r.mu.Unlock()
	r.h.ServeHTTP(w, req)
}

func (r *recorder) requested() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.paths)
}

// upstreamServer serves the upstream copies, with handler h for the paths
// in override.
func upstreamServer(t *testing.T, override map[string]http.HandlerFunc) (*httptest.Server, *recorder) {
	t.Helper()
	files := http.FileServer(http.Dir(upstreamData(t)))
	rec := &recorder{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := override[r.URL.Path]; ok {
			h(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

// dirEntries returns the names in dir, or nil if dir does not exist.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFetch(t *testing.T) {
	srv, rec := upstreamServer(t, nil)
	dir := filepath.Join(t.TempDir(), "new", "data") // created by Fetch
	t.Setenv(EnvDir, dir)
	var progress bytes.Buffer
	opt := FetchOptions{BaseURL: srv.URL + "/", Progress: &progress, Timeout: 10 * time.Second}
	for _, name := range []string{"ripley", "pima", "boston"} {
		if err := Fetch(context.Background(), name, opt); err != nil {
			t.Fatalf("Fetch(%s): %v", name, err)
		}
	}
	if got, want := rec.requested(), []string{"/synth.tr.csv", "/synth.te.csv", "/Pima.tr.csv", "/Pima.te.csv", "/Boston.csv"}; !reflect.DeepEqual(got, want) {
		t.Errorf("requested %q, want %q", got, want)
	}
	want := []string{"boston.csv", "pima_test.csv", "pima_train.csv", "ripley_test.csv", "ripley_train.csv"}
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("data directory holds %q, want %q (no temporary files)", got, want)
	}
	for _, f := range want {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, readShared(t, f)) {
			t.Errorf("fetched %s differs from the shared copy", f)
		}
		if st, _ := os.Stat(filepath.Join(dir, f)); st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", f, st.Mode().Perm())
		}
	}
	for _, line := range []string{"datasets: synth.tr.csv: 7010 / 7010 bytes\n", "datasets: Boston.csv: 36636 / 36636 bytes\n"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress %q lacks %q", progress.String(), line)
		}
	}
	// The loaders read what was fetched.
	if _, test, err := LoadRipley(); err != nil || test.Len() != 1000 {
		t.Errorf("LoadRipley after Fetch: %v", err)
	}

	// Fetch replaces an existing file.
	p := filepath.Join(dir, "boston.csv")
	if err := os.WriteFile(p, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Fetch(context.Background(), "boston", opt); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, readShared(t, "boston.csv")) {
		t.Error("Fetch did not replace a stale boston.csv")
	}
}

// TestFetchUnknownLength fetches a file sent without Content-Length.
func TestFetchUnknownLength(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join(upstreamData(t), "Boston.csv"))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := upstreamServer(t, map[string]http.HandlerFunc{"/Boston.csv": func(w http.ResponseWriter, r *http.Request) {
		w.Write(body[:1000])
		w.(http.Flusher).Flush() // chunked: no Content-Length
		w.Write(body[1000:])
	}})
	dir := t.TempDir()
	var progress bytes.Buffer
	if err := Fetch(context.Background(), "boston", FetchOptions{BaseURL: srv.URL, Dir: dir, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(progress.String(), "\rdatasets: Boston.csv: 36636 bytes\n") {
		t.Errorf("progress %q, want a final line with 36636 bytes and no total", progress.String())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "boston.csv")); !bytes.Equal(got, readShared(t, "boston.csv")) {
		t.Error("fetched boston.csv differs from the shared copy")
	}
}

// checkNothingWritten checks that a failed fetch left dir as it was: only
// the file stale.csv, if any, unchanged.
func checkNothingWritten(t *testing.T, dir string, before []string) {
	t.Helper()
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("after a failed fetch the data directory holds %q, want %q", got, before)
	}
}

func TestFetchChecksumMismatch(t *testing.T) {
	t.Parallel()
	up := upstreamData(t)
	good, err := os.ReadFile(filepath.Join(up, "synth.te.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(good, []byte("0.42942495"), []byte("0.42942496"), 1)
	// synth.tr.csv is good, synth.te.csv is not: neither may be stored.
	srv, _ := upstreamServer(t, map[string]http.HandlerFunc{"/synth.te.csv": func(w http.ResponseWriter, r *http.Request) {
		w.Write(bad)
	}})
	dir := t.TempDir()
	old := []byte("an old copy\n")
	if err := os.WriteFile(filepath.Join(dir, "ripley_test.csv"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	err = Fetch(context.Background(), "ripley", FetchOptions{BaseURL: srv.URL, Dir: dir})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("error %v, want one wrapping ErrChecksum", err)
	}
	for _, m := range []string{"synth.te.csv", sha256Hex(bad), ripleyTestFile.upstreamSHA256} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not contain %q", err, m)
		}
	}
	checkNothingWritten(t, dir, []string{"ripley_test.csv"})
	if got, _ := os.ReadFile(filepath.Join(dir, "ripley_test.csv")); !bytes.Equal(got, old) {
		t.Error("a failed fetch replaced the existing ripley_test.csv")
	}
}

func TestFetchTruncated(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join(upstreamData(t), "Boston.csv"))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := upstreamServer(t, map[string]http.HandlerFunc{"/Boston.csv": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:len(body)/2])
	}})
	dir := filepath.Join(t.TempDir(), "data")
	var progress bytes.Buffer
	err = Fetch(context.Background(), "boston", FetchOptions{BaseURL: srv.URL, Dir: dir, Progress: &progress})
	if err == nil {
		t.Fatal("no error for a truncated body")
	}
	if want := "cut short after 18318 of 36636 bytes"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if !strings.HasSuffix(progress.String(), "(failed)\n") {
		t.Errorf("progress %q does not end with a failure", progress.String())
	}
	checkNothingWritten(t, dir, nil)
}

func TestFetchNotFound(t *testing.T) {
	t.Parallel()
	srv, _ := upstreamServer(t, map[string]http.HandlerFunc{"/Pima.te.csv": http.NotFound})
	dir := t.TempDir()
	err := Fetch(context.Background(), "pima", FetchOptions{BaseURL: srv.URL, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), srv.URL+"/Pima.te.csv") {
		t.Fatalf("error %v, want a 404 naming the URL", err)
	}
	checkNothingWritten(t, dir, nil)
}

func TestFetchStall(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join(upstreamData(t), "synth.tr.csv"))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	srv, _ := upstreamServer(t, map[string]http.HandlerFunc{
		// No answer at all.
		"/synth.tr.csv": stall,
		// Headers and part of the body, then nothing.
		"/Boston.csv": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "36636")
			w.Write(body[:100])
			w.(http.Flusher).Flush()
			stall(w, r)
		},
	})
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	for _, name := range []string{"ripley", "boston"} {
		dir := t.TempDir()
		const timeout = 200 * time.Millisecond
		start := time.Now()
		err := Fetch(context.Background(), name, FetchOptions{BaseURL: srv.URL, Dir: dir, Timeout: timeout})
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("Fetch(%s) from a stalled server took %v with a timeout of %v", name, elapsed, timeout)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 200ms") {
			t.Errorf("Fetch(%s): error %v, want a timeout after 200ms", name, err)
		}
		checkNothingWritten(t, dir, nil)
	}

	// Cancelling the caller's context is not reported as a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err = Fetch(ctx, "ripley", FetchOptions{BaseURL: srv.URL, Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "timed out") {
		t.Errorf("Fetch with a cancelled context: error %v, want context.Canceled", err)
	}
}

func TestFetchNotDownloadable(t *testing.T) {
	t.Parallel()
	srv, rec := upstreamServer(t, nil)
	dir := t.TempDir()
	for _, name := range []string{"sinc", "ripley-subsets", "boston-splits", "iris", "wine", "digits"} {
		if Downloadable(name) {
			t.Errorf("Downloadable(%q) = true", name)
		}
		err := Fetch(context.Background(), name, FetchOptions{BaseURL: srv.URL, Dir: dir})
		if !errors.Is(err, ErrNotDownloadable) || !strings.Contains(err.Error(), "vrvm data fetch") {
			t.Errorf("Fetch(%q): error %v, want ErrNotDownloadable pointing at vrvm data fetch", name, err)
		}
	}
	err := Fetch(context.Background(), "nosuch", FetchOptions{BaseURL: srv.URL, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "ripley, pima, boston, sinc, ripley-subsets, boston-splits, iris, wine, digits") {
		t.Errorf("Fetch(nosuch): error %v, want one listing the known names", err)
	}
	for _, name := range []string{"ripley", "pima", "boston"} {
		if !Downloadable(name) {
			t.Errorf("Downloadable(%q) = false", name)
		}
	}
	if Downloadable("nosuch") {
		t.Error(`Downloadable("nosuch") = true`)
	}
	if got := rec.requested(); len(got) != 0 {
		t.Errorf("requested %q, want nothing", got)
	}
	checkNothingWritten(t, dir, nil)
}

func TestNamesFiles(t *testing.T) {
	t.Parallel()
	if got, want := Names(), []string{"ripley", "pima", "boston", "sinc", "ripley-subsets", "boston-splits", "iris", "wine", "digits"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	// Every file of the shared data directory belongs to one set, and the
	// sets' files in realworld/ are there too.
	shared := sharedData(t)
	var top []string
	for _, n := range Names() {
		f, err := Files(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range f {
			if dir, _ := filepath.Split(name); dir != "" {
				if _, err := os.Stat(filepath.Join(shared, filepath.FromSlash(name))); err != nil {
					t.Errorf("file %s of set %s: %v", name, n, err)
				}
				continue
			}
			top = append(top, name)
		}
	}
	slices.Sort(top)
	var csvs []string
	for _, n := range dirEntries(t, shared) {
		if strings.HasSuffix(n, ".csv") {
			csvs = append(csvs, n)
		}
	}
	if !reflect.DeepEqual(top, csvs) {
		t.Errorf("files of all sets %q, want the shared files %q", top, csvs)
	}
	if _, err := Files("nosuch"); err == nil {
		t.Error("Files(nosuch): no error")
	}
}

func TestEnsure(t *testing.T) {
	t.Parallel()
	srv, rec := upstreamServer(t, nil)
	dir := t.TempDir()
	// boston.csv and pima_train.csv are there already; boston.csv with
	// other content, which Ensure must leave alone.
	if err := os.WriteFile(filepath.Join(dir, "boston.csv"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pima_train.csv"), readShared(t, "pima_train.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	opt := FetchOptions{BaseURL: srv.URL, Dir: dir, Progress: &progress}
	written, err := Ensure(context.Background(), opt, "ripley", "boston", "pima", "iris")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ripley_train.csv", "ripley_test.csv", "pima_test.csv", "realworld/iris_train.csv", "realworld/iris_test.csv"}; !reflect.DeepEqual(written, want) {
		t.Errorf("Ensure wrote %q, want %q", written, want)
	}
	if got := rec.requested(); len(got) != 0 {
		t.Errorf("Ensure requested %q, want nothing: it writes the embedded copies", got)
	}
	for _, f := range written {
		if got, want := readFileT(t, filepath.Join(dir, filepath.FromSlash(f))), readShared(t, f); !bytes.Equal(got, want) {
			t.Errorf("%s as written by Ensure differs from the reference copy", f)
		}
	}
	if got := readFileT(t, filepath.Join(dir, "boston.csv")); string(got) != "mine\n" {
		t.Errorf("Ensure replaced the present boston.csv with %d bytes", len(got))
	}
	for _, line := range []string{
		"datasets: wrote ripley: ripley_train.csv, ripley_test.csv in " + dir + " (from the embedded copy)\n",
		"datasets: wrote pima: pima_test.csv in " + dir + " (from the embedded copy)\n",
		"datasets: wrote iris: realworld/iris_train.csv, realworld/iris_test.csv in " + dir + " (from the embedded copy)\n",
	} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress %q lacks %q", progress.String(), line)
		}
	}
	// Nothing is missing now.
	written, err = Ensure(context.Background(), opt, "ripley", "boston", "pima", "iris")
	if err != nil || len(written) != 0 {
		t.Errorf("second Ensure wrote %q, %v; want nothing", written, err)
	}

	// All sets into an empty directory: every file of every set.
	all := t.TempDir()
	written, err = Ensure(context.Background(), FetchOptions{Dir: all})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range Names() {
		f, _ := Files(n)
		want = append(want, f...)
	}
	if !reflect.DeepEqual(written, want) {
		t.Errorf("Ensure() wrote %q, want %q", written, want)
	}

	// A directory that cannot be created stops Ensure with the error.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if written, err := Ensure(context.Background(), FetchOptions{Dir: blocker}, "iris"); err == nil || len(written) != 0 {
		t.Errorf("Ensure into a file = %q, %v; want an error", written, err)
	}
	// A cancelled context stops it before it writes.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if written, err := Ensure(ctx, FetchOptions{Dir: t.TempDir()}, "pima"); !errors.Is(err, context.Canceled) || len(written) != 0 {
		t.Errorf("Ensure with a cancelled context = %q, %v", written, err)
	}
	if _, err := Ensure(context.Background(), opt, "nosuch"); err == nil {
		t.Error("Ensure(nosuch): no error")
	}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
