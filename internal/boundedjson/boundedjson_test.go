package boundedjson

import (
	"errors"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{" {\"a\": [1, 2]}\n ", `{"a": [1, 2]}`, ""},
		{`{"a":1} {}`, "", "{ after the JSON value"},
		{`{"a":1} x`, "", "invalid character 'x'"},
		{`{"a":`, "", "unexpected end of JSON input"},
		{"", "", "unexpected end of JSON input"},
		{"\x00\x00", "", "invalid character '\\x00'"},
		{`[` + strings.Repeat(`0,`, 100) + `0]`, "", "more than the limit of 100 bytes"},
	} {
		got, err := Read(strings.NewReader(c.in), 100)
		switch {
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		}
		var se *SyntaxError
		var tl *TooLargeError
		if err != nil && !errors.As(err, &se) && !errors.As(err, &tl) {
			t.Errorf("%q: error %T", c.in, err)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 8 << 30: "8 GiB", 3 << 29: "1.5 GiB", 300 << 20: "300 MiB", 1000: "1000 bytes", 2048: "2 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
