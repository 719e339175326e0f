// Package docker holds the Dockerfile of the vrvm Jupyter image and a test
// that keeps it honest: no Docker engine runs in CI, so "make build-check"
// runs the Dockerfile's build script outside Docker and this test checks
// that the Dockerfile really uses that script, pins its base image and
// keeps Jupyter's token authentication.
package docker

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var from, run, cmd []string
	var user string
	for _, line := range joinContinuations(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		arg := strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		switch strings.ToUpper(f[0]) {
		case "FROM":
			from = append(from, arg)
		case "RUN":
			run = append(run, arg)
		case "CMD", "ENTRYPOINT":
			cmd = append(cmd, arg)
		case "USER":
			user = arg
		}
	}
	if len(from) != 1 {
		t.Fatalf("want one FROM, got %q", from)
	}
	// A base image pinned by a full version (golang:1.26.8-bookworm) or digest.
	if !regexp.MustCompile(`^golang:\d+\.\d+\.\d+-(bookworm|trixie)(@sha256:[0-9a-f]{64})?$|@sha256:[0-9a-f]{64}$`).MatchString(from[0]) {
		t.Errorf("base image %q is not pinned to a full Debian-based Go version", from[0])
	}
	all := strings.Join(run, "\n")
	for _, want := range []string{"install-jupyter.sh", "scripts/build.sh", "vrvm kernel install"} {
		if !strings.Contains(all, want) {
			t.Errorf("the Dockerfile does not run %s", want)
		}
	}
	if strings.Contains(all, "go build") {
		t.Error("the Dockerfile builds with go build directly: use scripts/build.sh, the shared recipe")
	}
	if user == "" || user == "root" || user == "0" {
		t.Errorf("the image runs as %q, want a non-root user", user)
	}
	if len(cmd) != 1 || !strings.Contains(cmd[0], "--ip=0.0.0.0") || !strings.Contains(cmd[0], "8888") {
		t.Errorf("CMD %q does not start Jupyter on 0.0.0.0:8888", cmd)
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
