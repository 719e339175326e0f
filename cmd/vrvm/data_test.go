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
	for _, want := range []string{"data directory: " + empty, "ripley          missing ripley_train.csv, ripley_test.csv (vrvm data fetch ripley)", "not downloadable"} {
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
