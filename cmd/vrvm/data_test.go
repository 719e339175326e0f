package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDataStatus(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("VRVM_DATA", empty)
	var out, errb bytes.Buffer
	if code := run([]string{"data", "status", "ripley", "sinc"}, &out, &errb); code != 1 {
		t.Errorf("missing data: exit %d, want 1", code)
	}
	for _, want := range []string{"data directory: " + empty, "ripley          missing ripley_train.csv, ripley_test.csv (the built-in copy is used; vrvm data fetch ripley writes it out)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// Present files.
	for _, f := range []string{"ripley_train.csv", "ripley_test.csv"} {
		if err := os.WriteFile(filepath.Join(empty, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if code := run([]string{"data", "ripley"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "ripley          present") {
		t.Errorf("present data: exit %d, output %s", code, out.String())
	}
	errb.Reset()
	if code := run([]string{"data", "status", "nosuch"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "nosuch") {
		t.Errorf("unknown data set: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"data", "-bogus"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "bogus") {
		t.Errorf("unknown flag: exit %d, stderr %q", code, errb.String())
	}
}

// TestDataFetch writes the built-in copies into an empty data directory:
// no download, every set present afterwards, the files those of the
// reference data when $VRVM_DATA holds it.
func TestDataFetch(t *testing.T) {
	ref := os.Getenv("VRVM_DATA")
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv("VRVM_DATA", dir)
	var out, errb bytes.Buffer
	if code := run([]string{"data", "fetch"}, &out, &errb); code != 0 {
		t.Fatalf("vrvm data fetch: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"datasets: wrote sinc: sinc_N100_25sets.csv, sinc_N50_25sets.csv in " + dir, "datasets: wrote digits: realworld/digits_train.csv, realworld/digits_test.csv"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if strings.Contains(out.String(), "missing") || !strings.Contains(out.String(), "iris            present") {
		t.Errorf("status after fetch:\n%s", out.String())
	}
	if ref != "" {
		if _, err := os.Stat(filepath.Join(ref, "ripley_train.csv")); err == nil {
			for _, f := range []string{"boston_splits.csv", "sinc_N50_25sets.csv", "realworld/wine_test.csv"} {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join(ref, f))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s written by vrvm data fetch differs from the reference copy", f)
				}
			}
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "pima"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "nothing to fetch") {
		t.Errorf("second fetch: exit %d, stderr %q", code, errb.String())
	}
}
