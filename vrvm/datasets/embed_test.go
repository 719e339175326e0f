package datasets

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEmbeddedChecksums checks every embedded file against the catalogue's
// SHA-256 and that nothing else is embedded.
func TestEmbeddedChecksums(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, n := range Names() {
		s, _ := lookup(n)
		for _, f := range s.files {
			want[f.name] = true
			b, err := readEmbedded(f.name)
			if err != nil {
				t.Errorf("%s: %v", f.name, err)
				continue
			}
			if got := sha256Hex(b); got != f.sha256 {
				t.Errorf("embedded %s: SHA-256 %s, want %s", f.name, got, f.sha256)
			}
		}
	}
	err := fs.WalkDir(embedded, "data", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := strings.TrimPrefix(p, "data/")
		if !want[name] {
			t.Errorf("embedded %s belongs to no data set", name)
		}
		delete(want, name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range want {
		t.Errorf("%s is not embedded", name)
	}
}

// TestEmbeddedMatchesReference compares every embedded file byte for byte
// with the reference copy in $VRVM_DATA (or shared/data beside the
// repository), skipping if there is none.
func TestEmbeddedMatchesReference(t *testing.T) {
	t.Parallel()
	dir := sharedData(t)
	for _, n := range Names() {
		files, _ := Files(n)
		for _, f := range files {
			ref, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
			if err != nil {
				t.Errorf("reference copy: %v", err)
				continue
			}
			emb, err := readEmbedded(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(emb, ref) {
				t.Errorf("embedded %s (%d bytes) differs from %s (%d bytes)", f, len(emb), filepath.Join(dir, f), len(ref))
			}
		}
	}
}

// loaded holds every data set the loaders read.
type loaded struct {
	ripleyTrain, ripleyTest, pimaTrain, pimaTest, boston *Dataset
	sinc100, sinc50                                      []*Dataset
	subsets, splits                                      [][]int
	split0Train, split0Test, subset0                     *Dataset
	iris                                                 *Table
}

// TestLoadEmbedded loads every set from an empty data directory, and with
// no data directory at all, and compares the result with the reference
// copies.
func TestLoadEmbedded(t *testing.T) {
	shared := sharedData(t)
	load := func(t *testing.T) loaded {
		t.Helper()
		var l loaded
		var err error
		check := func(what string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		l.ripleyTrain, l.ripleyTest, err = LoadRipley()
		check("LoadRipley", err)
		l.pimaTrain, l.pimaTest, err = LoadPima()
		check("LoadPima", err)
		l.boston, err = LoadBoston()
		check("LoadBoston", err)
		l.sinc100, err = SincSets(100)
		check("SincSets(100)", err)
		l.sinc50, err = SincSets(50)
		check("SincSets(50)", err)
		l.subsets, err = RipleySubsets()
		check("RipleySubsets", err)
		l.splits, err = BostonSplits()
		check("BostonSplits", err)
		l.split0Train, l.split0Test, err = BostonSplit(0)
		check("BostonSplit(0)", err)
		l.subset0, err = RipleySubset(0)
		check("RipleySubset(0)", err)
		l.iris, err = LoadCSV("realworld/iris_train.csv", CSVOptions{})
		check("LoadCSV", err)
		return l
	}
	t.Setenv(EnvDir, shared)
	ref := load(t)
	if !strings.HasPrefix(ref.iris.Name(), shared) {
		t.Errorf("with the reference data LoadCSV read %q, want a file in %s", ref.iris.Name(), shared)
	}

	t.Setenv(EnvDir, t.TempDir())
	emb := load(t)
	if got := emb.iris.Name(); got != "embedded realworld/iris_train.csv" {
		t.Errorf("from an empty data directory LoadCSV read %q, want the embedded copy", got)
	}
	if !equalLoaded(ref, emb) {
		t.Error("the data sets read from the embedded copies differ from the reference copies")
	}

	// No data directory at all: $VRVM_DATA unset and no user cache.
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if _, err := Dir(); err == nil {
		t.Log("this system has a user cache directory without $HOME; testing only the empty data directory")
	} else if none := load(t); !equalLoaded(ref, none) {
		t.Error("the data sets read with no data directory differ from the reference copies")
	}
}

// equalLoaded compares loaded values, ignoring the file name of the table.
func equalLoaded(a, b loaded) bool {
	ta, tb := a.iris, b.iris
	a.iris, b.iris = nil, nil
	return reflect.DeepEqual(a, b) && reflect.DeepEqual(ta.columns, tb.columns) && reflect.DeepEqual(ta.data, tb.data) && reflect.DeepEqual(ta.lines, tb.lines)
}

func TestLoadCSVErrors(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	_, err := LoadCSV("realworld/breast_train.csv", CSVOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "realworld/iris_train.csv") {
		t.Errorf("LoadCSV of a file neither present nor embedded: %v, want fs.ErrNotExist listing the embedded files", err)
	}
	// A file of the data directory wins over the embedded copy, and its
	// errors name its path.
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if err := os.WriteFile(filepath.Join(dir, "boston.csv"), []byte("CRIM\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadCSV("boston.csv", CSVOptions{})
	checkParseError(t, err, ErrNotNumber, 2, 1, "CRIM", filepath.Join(dir, "boston.csv"))
	_, err = LoadBoston()
	checkParseError(t, err, ErrHeader, 1, 0, "", filepath.Join(dir, "boston.csv"))
}
