package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedData returns the directory of the project's data files:
// $VRVM_DATA if it holds them, else shared/data beside the repository
// (../../../shared/data from this package). It skips the test if neither
// exists.
func sharedData(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, d := range []string{os.Getenv(EnvDir), filepath.Join("..", "..", "..", "shared", "data")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "ripley_train.csv")); err == nil {
			abs, err := filepath.Abs(d)
			if err != nil {
				t.Fatal(err)
			}
			return abs
		}
		tried = append(tried, d)
	}
	t.Skipf("no data directory with the benchmark files (tried $%s and %s); set %s to shared/data", EnvDir, strings.Join(tried, ", "), EnvDir)
	return ""
}

// useSharedData points VRVM_DATA at the project's data files.
func useSharedData(t *testing.T) string {
	t.Helper()
	d := sharedData(t)
	t.Setenv(EnvDir, d)
	return d
}

// upstreamData returns the directory of the upstream Rdatasets copies,
// skipping the test if it is missing.
func upstreamData(t *testing.T) string {
	t.Helper()
	d := filepath.Join(sharedData(t), "upstream")
	if _, err := os.Stat(filepath.Join(d, "Boston.csv")); err != nil {
		t.Skipf("no upstream copies in %s: %v", d, err)
	}
	return d
}

func readShared(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedData(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkParseError checks that err is a *ParseError wrapping want, at the
// given line, field and column, whose message contains each of msg.
func checkParseError(t *testing.T, err, want error, line, field int, column string, msg ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %q (%T) is not a *ParseError", err, err)
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	if pe.Line != line || pe.Field != field || pe.Column != column {
		t.Errorf("error %q at line %d field %d column %q, want line %d field %d column %q", err, pe.Line, pe.Field, pe.Column, line, field, column)
	}
	for _, m := range msg {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not contain %q", err, m)
		}
	}
}
