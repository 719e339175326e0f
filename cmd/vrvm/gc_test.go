package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		n, centres int
		env        string
		want       int
		ok         bool
	}{
		{n: 1000, want: 0, ok: false},                 // 8 MB design
		{n: 5000, want: 0, ok: false},                 // 200 MB
		{n: 20000, want: 33, ok: true},                // 800 MB
		{n: 40000, want: 16, ok: true},                // 1.6 GB
		{n: 100000, want: minGCPercent, ok: true},     // 4 GB
		{n: 100000, centres: 500, want: 67, ok: true}, // 400 MB at 500 centres
		{n: 20000, env: "200", want: 0, ok: false},    // the user's GOGC wins
		{n: 20000, env: "off", want: 0, ok: false},
	} {
		got, ok := gcPercentFor(c.n, c.centres, c.env)
		if got != c.want || ok != c.ok {
			t.Errorf("gcPercentFor(%d, %d, %q) = %d, %v; want %d, %v", c.n, c.centres, c.env, got, ok, c.want, c.ok)
		}
	}
}
