package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		n    int
		env  string
		want int
		ok   bool
	}{
		{n: 1000, want: 0, ok: false},              // 8 MB design
		{n: 5000, want: 0, ok: false},              // 200 MB
		{n: 5792, want: 0, ok: false},              // 232 MB: 5,000 centres above 5,000 rows
		{n: 6711, want: 99, ok: true},              // 268.44 MB, just above 256 MiB
		{n: 20000, want: 33, ok: true},             // 800 MB
		{n: 40000, want: 16, ok: true},             // 1.6 GB
		{n: 100000, want: minGCPercent, ok: true},  // 4 GB
		{n: 20000, env: "200", want: 0, ok: false}, // the user's GOGC wins
		{n: 20000, env: "off", want: 0, ok: false},
	} {
		got, ok := gcPercentFor(c.n, c.env)
		if got != c.want || ok != c.ok {
			t.Errorf("gcPercentFor(%d, %q) = %d, %v; want %d, %v", c.n, c.env, got, ok, c.want, c.ok)
		}
	}
}
