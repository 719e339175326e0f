// Package docker holds the Dockerfile of the vrvm Jupyter image and a test
// that keeps it honest: no Docker engine runs in CI, so "make build-check"
// runs the Dockerfile's build script outside Docker and this test checks
// that the Dockerfile really uses that script, pins its base image and
// keeps Jupyter's token authentication.
package docker

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// The instructions of each stage.
	type stage struct {
		from                  string
		run, copy             []string
		cmd, entrypoint, user string
	}
	var stages []*stage
	for _, line := range joinContinuations(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		arg := strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		if strings.ToUpper(f[0]) == "FROM" {
			stages = append(stages, &stage{from: arg})
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("%s before FROM", f[0])
		}
		s := stages[len(stages)-1]
		switch strings.ToUpper(f[0]) {
		case "RUN":
			s.run = append(s.run, arg)
		case "COPY":
			s.copy = append(s.copy, arg)
		case "CMD":
			s.cmd = arg
		case "ENTRYPOINT":
			s.entrypoint = arg
		case "USER":
			s.user = arg
		}
	}
	if len(stages) != 2 {
		t.Fatalf("want two stages (build, run), got %d", len(stages))
	}
	build, final := stages[0], stages[1]
	// Base images pinned by a full version, and optionally a digest.
	if !regexp.MustCompile(`^golang:\d+\.\d+\.\d+-(bookworm|trixie)(@sha256:[0-9a-f]{64})? AS build$`).MatchString(build.from) {
		t.Errorf("build stage %q is not a Debian-based Go image pinned to a full version, named build", build.from)
	}
	if !regexp.MustCompile(`^debian:\d+\.\d+-slim(@sha256:[0-9a-f]{64})?$`).MatchString(final.from) {
		t.Errorf("final stage %q is not a Debian point release", final.from)
	}
	if !strings.Contains(build.from, "bookworm") || !strings.HasPrefix(final.from, "debian:12.") {
		t.Errorf("the stages are different Debian releases: %q, %q", build.from, final.from)
	}
	if all := strings.Join(build.run, "\n"); !strings.Contains(all, "scripts/build.sh") || strings.Contains(all, "go build") {
		t.Errorf("the build stage must build with scripts/build.sh, the shared recipe, not go build: %q", all)
	}
	all := strings.Join(final.run, "\n")
	for _, want := range []string{"install-jupyter.sh", "tini", "vrvm kernel install"} {
		if !strings.Contains(all, want) {
			t.Errorf("the final stage does not run %s", want)
		}
	}
	copies := strings.Join(final.copy, "\n")
	if !strings.Contains(copies, "--from=build") || !strings.Contains(copies, "vrvm-kernel") {
		t.Errorf("the final stage does not copy the programs from the build stage: %q", copies)
	}
	if strings.Contains(copies, "/usr/local/go") || strings.Contains(all, "golang") {
		t.Error("the final stage installs a Go toolchain")
	}
	if u := final.user; u == "" || u == "root" || u == "0" {
		t.Errorf("the image runs as %q, want a non-root user", u)
	}
	if final.entrypoint != `["/usr/bin/tini", "--"]` {
		t.Errorf("ENTRYPOINT %q, want tini as PID 1", final.entrypoint)
	}
	if !strings.Contains(final.cmd, "--ip=0.0.0.0") || !strings.Contains(final.cmd, "8888") {
		t.Errorf("CMD %q does not start Jupyter on 0.0.0.0:8888 inside the container", final.cmd)
	}
	// The documented run line publishes on the host's loopback only.
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{string(b), string(readme)} {
		if strings.Contains(doc, "-p 8888:8888") || !strings.Contains(doc, "-p 127.0.0.1:8888:8888") {
			t.Error("a docker run line publishes port 8888 on every interface; use -p 127.0.0.1:8888:8888")
		}
	}
	// The build context leaves out the history and build output.
	ignore, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(ignore))
	for _, want := range []string{".git", "build/"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore does not leave out %s", want)
		}
	}
	if strings.Contains(string(b), "token=''") || strings.Contains(string(b), `token=""`) || strings.Contains(string(b), "disable_check_xsrf") {
		t.Error("token authentication must stay on")
	}
	for _, script := range []string{"../scripts/build.sh", "../scripts/install-jupyter.sh"} {
		if st, err := os.Stat(script); err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("%s missing or not executable: %v", script, err)
		}
	}
}

// joinContinuations joins lines ending in a backslash.
func joinContinuations(s string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}
