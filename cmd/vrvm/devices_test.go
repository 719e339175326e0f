//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// The rows of issue 48's table: what a Unix tool does with its output
// and input files and with signals, vrvm does. Devices and FIFOs are made
// in the test's own directory, never the machine's /dev/null as root; the
// rows of a normal user run the command as nobody when the test runs as
// root, and are skipped otherwise.

// runCmd runs cmd and returns its output and status.
func runCmd(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &o
	}
	cmd.Stderr = &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// nobodyDir returns a directory whose files nobody may read, with a copy
// of the binary nobody may run, and the credential of nobody; it skips
// the test unless it runs as root.
func nobodyDir(t *testing.T) (dir, bin string, cred *syscall.Credential) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot run the command as another user")
	}
	parent := t.TempDir()
	dir = filepath.Join(parent, "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(parent), parent} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(vrvmBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(parent, "vrvm")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, bin, &syscall.Credential{Uid: 65534, Gid: 65534}
}

// fitModel fits the model m.json on v1.csv in dir.
func fitModel(t *testing.T, dir string) {
	t.Helper()
	copyTestdata(t, dir, "v1.csv")
	if _, errOut, code := runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "m.json", "v1.csv"); code != 0 {
		t.Fatal(errOut)
	}
}

// TestOutputDevices: -o a character device or a FIFO writes to it and
// keeps it; /dev/null and /dev/stdout work for a normal user.
func TestOutputDevices(t *testing.T) {
	dir := t.TempDir()
	fitModel(t, dir)
	want, _, code := runIn(t, dir, "predict", "-model", "m.json", "v1.csv")
	if code != 0 {
		t.Fatal("predict failed")
	}
	model, err := os.ReadFile(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("character device", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("not root: cannot make a device")
		}
		var null syscall.Stat_t
		if err := syscall.Stat("/dev/null", &null); err != nil {
			t.Skip(err)
		}
		dev := filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(null.Rdev)); err != nil {
			t.Skipf("mknod: %v", err)
		}
		for _, args := range [][]string{
			{"predict", "-model", "m.json", "-o", "null", "v1.csv"},
			{"fit", "-target", "t", "-quiet", "-o", "null", "v1.csv"},
		} {
			_, errOut, code := runIn(t, dir, args...)
			var st syscall.Stat_t
			if err := syscall.Lstat(dev, &st); err != nil {
				t.Fatal(err)
			}
			if code != 0 || errOut != "" || st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != null.Rdev {
				t.Errorf("%s -o a device: status %d, stderr %q; the device is now mode %o, rdev %d (want a character device %d)", args[0], code, errOut, st.Mode, st.Rdev, null.Rdev)
			}
		}
	})

	t.Run("FIFO", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"predict", "-model", "m.json", "-o", "fifo", "v1.csv"}, want},
			{[]string{"fit", "-target", "t", "-quiet", "-o", "fifo", "v1.csv"}, string(model)},
		} {
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo) // waits for the writer
				if err != nil {
					got <- err.Error()
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				got <- string(b)
			}()
			_, errOut, code := runIn(t, dir, c.args...)
			var read string
			select {
			case read = <-got:
			case <-time.After(30 * time.Second):
				t.Fatal("the FIFO's reader got nothing")
			}
			fi, err := os.Lstat(fifo)
			if err != nil {
				t.Fatal(err)
			}
			if code != 0 || errOut != "" || read != c.want || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("%s -o a FIFO: status %d, stderr %q, the reader got %d bytes (want %d), mode now %v", c.args[0], code, errOut, len(read), len(c.want), fi.Mode())
			}
		}
	})

	t.Run("symbolic link", func(t *testing.T) {
		// The link stays; its target is replaced atomically.
		if err := os.WriteFile(filepath.Join(dir, "real.csv"), []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real.csv", filepath.Join(dir, "link.csv")); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runIn(t, dir, "predict", "-model", "m.json", "-o", "link.csv", "v1.csv")
		fi, err := os.Lstat(filepath.Join(dir, "link.csv"))
		if err != nil {
			t.Fatal(err)
		}
		real, _ := os.ReadFile(filepath.Join(dir, "real.csv"))
		rfi, _ := os.Stat(filepath.Join(dir, "real.csv"))
		if code != 0 || errOut != "" || fi.Mode()&os.ModeSymlink == 0 || string(real) != want || rfi.Mode().Perm() != 0o600 {
			t.Errorf("predict -o a symbolic link: status %d, stderr %q, link mode %v, target %q with mode %v", code, errOut, fi.Mode(), real, rfi.Mode())
		}
	})

	t.Run("normal user", func(t *testing.T) {
		ndir, bin, cred := nobodyDir(t)
		copyTestdata(t, ndir, "v1.csv")
		if err := os.WriteFile(filepath.Join(ndir, "m.json"), model, 0o644); err != nil {
			t.Fatal(err)
		}
		as := func(args ...string) *exec.Cmd {
			cmd := exec.Command(bin, args...)
			cmd.Dir = ndir
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			return cmd
		}
		for _, dst := range []string{"/dev/null", "/dev/stdout"} {
			out, errOut, code := runCmd(t, as("predict", "-model", "m.json", "-o", dst, "v1.csv"))
			wantOut := ""
			if dst == "/dev/stdout" {
				wantOut = want
			}
			if code != 0 || errOut != "" || out != wantOut {
				t.Errorf("predict -o %s as nobody: status %d, stderr %q, %d bytes on stdout (want %d)", dst, code, errOut, len(out), len(wantOut))
			}
			out, errOut, code = runCmd(t, as("fit", "-target", "t", "-quiet", "-o", dst, "v1.csv"))
			if dst == "/dev/stdout" {
				wantOut = string(model)
			}
			if code != 0 || errOut != "" || out != wantOut {
				t.Errorf("fit -o %s as nobody: status %d, stderr %q, %d bytes on stdout (want %d)", dst, code, errOut, len(out), len(wantOut))
			}
		}
		var null syscall.Stat_t
		if err := syscall.Stat("/dev/null", &null); err != nil || null.Mode&syscall.S_IFMT != syscall.S_IFCHR {
			t.Errorf("/dev/null is no longer a character device: %v", err)
		}

		// A writable file in a directory nobody may write: written in
		// place, the same inode; an unwritable target fails before the fit.
		inPlace := filepath.Join(ndir, "p.csv")
		if err := os.WriteFile(inPlace, []byte("old\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(inPlace, 0o666); err != nil { // whatever the umask
			t.Fatal(err)
		}
		var before, after syscall.Stat_t
		syscall.Stat(inPlace, &before)
		_, errOut, code := runCmd(t, as("predict", "-model", "m.json", "-o", "p.csv", "v1.csv"))
		syscall.Stat(inPlace, &after)
		if b, _ := os.ReadFile(inPlace); code != 0 || errOut != "" || string(b) != want || before.Ino != after.Ino {
			t.Errorf("predict -o a writable file in a read-only directory: status %d, stderr %q, content %q, inode %d → %d", code, errOut, b, before.Ino, after.Ino)
		}
		// A failed predict leaves it as it was.
		os.WriteFile(filepath.Join(ndir, "bad.csv"), []byte("x1,x2\n1,oops\n"), 0o644)
		if _, _, code := runCmd(t, as("predict", "-model", "m.json", "-o", "p.csv", "bad.csv")); code != 1 {
			t.Errorf("predict on bad data: status %d", code)
		}
		if b, _ := os.ReadFile(inPlace); string(b) != want {
			t.Error("a failed predict changed the file written in place")
		}
		if _, errOut, code := runCmd(t, as("fit", "-target", "t", "-quiet", "-o", "p.csv", "v1.csv")); code != 0 || errOut != "" {
			t.Errorf("fit -o in place: status %d, %q", code, errOut)
		} else if b, _ := os.ReadFile(inPlace); string(b) != string(model) {
			t.Error("fit -o in place wrote another model")
		}
		matches, _ := filepath.Glob(filepath.Join(ndir, ".*vrvm-tmp*"))
		if len(matches) > 0 {
			t.Errorf("temporary files left: %q", matches)
		}
		// Without -quiet, a fit that started would print its summary.
		for _, c := range []struct{ out, want string }{
			{"new.json", "vrvm fit: new.json: permission denied\n"},
			{"m.json", "vrvm fit: m.json: permission denied\n"},
			{"v1.csv/x", "vrvm fit: v1.csv/x: not a directory\n"},
		} {
			_, errOut, code := runCmd(t, as("fit", "-target", "t", "-o", c.out, "v1.csv"))
			if code != 1 || errOut != c.want {
				t.Errorf("fit -o %s as nobody: status %d, stderr %q; want 1, %q before the fit", c.out, code, errOut, c.want)
			}
		}
	})
}

// TestStdoutErrors: a closed or full standard output is an error with a
// non-zero status, not a lost model.
func TestStdoutErrors(t *testing.T) {
	dir := t.TempDir()
	fitModel(t, dir)
	bin := vrvmBinary(t)
	for _, c := range []struct {
		name, redirect, want string
	}{
		{"closed", ">&-", "vrvm fit: -o -: standard output is closed\n"},
		{"full", ">/dev/full", "vrvm fit: write /dev/stdout: no space left on device\n"},
	} {
		if c.name == "full" {
			if _, err := os.Stat("/dev/full"); err != nil {
				continue
			}
		}
		cmd := exec.Command("/bin/sh", "-c", `exec "$0" "$@" `+c.redirect, bin, "fit", "-target", "t", "-quiet", "-o", "-", "v1.csv")
		cmd.Dir = dir
		_, errOut, code := runCmd(t, cmd)
		if code != 1 || errOut != c.want {
			t.Errorf("fit -o - with standard output %s: status %d, stderr %q; want 1, %q", c.name, code, errOut, c.want)
		}
		cmd = exec.Command("/bin/sh", "-c", `exec "$0" "$@" `+c.redirect, bin, "predict", "-model", "m.json", "v1.csv")
		cmd.Dir = dir
		if _, errOut, code := runCmd(t, cmd); code != 1 || !strings.HasPrefix(errOut, "vrvm predict: ") {
			t.Errorf("predict with standard output %s: status %d, stderr %q", c.name, code, errOut)
		}
	}
	// Standard output on /dev/null opened for writing (the shell's
	// >/dev/null) is not closed.
	cmd := exec.Command("/bin/sh", "-c", `exec "$0" "$@" >/dev/null`, bin, "predict", "-model", "m.json", "v1.csv")
	cmd.Dir = dir
	if _, errOut, code := runCmd(t, cmd); code != 0 || errOut != "" {
		t.Errorf("predict >/dev/null: status %d, stderr %q", code, errOut)
	}
}

// TestModelFileLimits: a model file read from /dev/zero or an 8 GiB
// sparse file is a bounded read and an error; a model whose numbers are
// out of range, checksum recomputed, is refused naming the field, and no
// accepted one predicts a non-finite value.
func TestModelFileLimits(t *testing.T) {
	dir := t.TempDir()
	fitModel(t, dir)
	sparse := filepath.Join(dir, "sparse.json")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	f.Close()
	for _, c := range []struct{ model, want string }{
		{"/dev/zero", `vrvm predict: /dev/zero: bad model file: not valid JSON (truncated?): invalid character '\x00' looking for beginning of value` + "\n"},
		{"sparse.json", "vrvm predict: sparse.json: bad model file: too large: 8 GiB, more than the limit of 1 GiB\n"},
	} {
		_, errOut, code := runIn(t, dir, "predict", "-model", c.model, "v1.csv")
		if code != 1 || errOut != c.want {
			t.Errorf("predict -model %s: status %d, stderr %q; want 1, %q", c.model, code, errOut, c.want)
		}
	}

	// The model's payload and metadata edited, the checksum recomputed.
	b, err := os.ReadFile(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, payload, meta map[string]any) {
		t.Helper()
		var p, m map[string]any
		json.Unmarshal(env["payload"], &p)
		json.Unmarshal(env["meta"], &m)
		for k, v := range payload {
			p[k] = v
		}
		for k, v := range meta {
			m[k] = v
		}
		pb, _ := json.Marshal(p)
		mb, _ := json.Marshal(m)
		sum := sha256.Sum256(append(append([]byte(nil), pb...), mb...))
		out, _ := json.Marshal(map[string]any{"format": "vrvm-model", "version": 2, "payload": json.RawMessage(pb), "meta": json.RawMessage(mb), "sha256": hex.EncodeToString(sum[:])})
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("same.json", nil, nil)
	if out, errOut, code := runIn(t, dir, "predict", "-model", "same.json", "v1.csv"); code != 0 || out == "" {
		t.Fatalf("the model re-checksummed unchanged: status %d, %s", code, errOut)
	}
	for _, c := range []struct {
		name          string
		payload, meta map[string]any
		want          string
	}{
		{"tau_rate.json", map[string]any{"tau_rate": 1e308, "tau_shape": 0.5}, nil,
			"vrvm predict: tau_rate.json: bad model file: tau_rate 1e+308 and tau_shape 0.5: the noise variance tau_rate/tau_shape is +Inf, want positive and finite\n"},
		{"tau_shape.json", map[string]any{"tau_shape": -1}, nil,
			"vrvm predict: tau_shape.json: bad model file: negative tau_shape -1\n"},
		{"alpha.json", map[string]any{"alpha": []float64{0}}, nil,
			"vrvm predict: alpha.json: bad model file: "},
		{"target_sd.json", nil, map[string]any{"target_sd": 1e300},
			`vrvm predict: target_sd.json: bad model file: target_sd: target column "t" (standard deviation 1e+300): `},
	} {
		edit(c.name, c.payload, c.meta)
		_, errOut, code := runIn(t, dir, "predict", "-model", c.name, "v1.csv")
		if code != 1 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%s: status %d, stderr %q; want 1, %q", c.name, code, errOut, c.want)
		}
	}
	// Numbers each in range whose predictions can overflow: finite
	// output, or an error naming the line.
	for _, c := range []struct {
		name          string
		payload, meta map[string]any
	}{
		{"noise.json", map[string]any{"tau_rate": math.MaxFloat64, "tau_shape": 1}, nil},
		{"noise2.json", map[string]any{"tau_rate": 1e308, "tau_shape": 1}, map[string]any{"target_sd": 1e10}},
		{"scale.json", nil, map[string]any{"input_sd": []float64{1e-300, 1e-300}, "input_mean": []float64{1e300, 1e300}}},
	} {
		edit(c.name, c.payload, c.meta)
		out, errOut, code := runIn(t, dir, "predict", "-model", c.name, "v1.csv")
		switch code {
		case 0:
			for i, row := range readCSV(t, out)[1:] {
				for _, cell := range row {
					if v := parse(t, cell); math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s: line %d predicts %v", c.name, i+2, v)
					}
				}
			}
		case 1:
			if !strings.HasPrefix(errOut, "vrvm predict: v1.csv:2: ") || !strings.Contains(errOut, "overflow at this row") {
				t.Errorf("%s: stderr %q, want an error naming line 2", c.name, errOut)
			}
		default:
			t.Errorf("%s: status %d, stderr %q", c.name, code, errOut)
		}
	}
}

// TestFirstBadLine: predict reports the first bad line of its input,
// whatever the kind of the error.
func TestFirstBadLine(t *testing.T) {
	dir := t.TempDir()
	fitModel(t, dir)
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("x1,x2\n1,2\n3,NaN\n4,5\n6,+Inf\n7,8\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad2.csv"), []byte("x1,x2\n1,2\n3,4\n4,5\n6,+Inf\n7,NaN\n"), 0o644)
	for _, c := range []struct{ file, want string }{
		{"bad.csv", "vrvm predict: bad.csv:3: "},
		{"bad2.csv", "vrvm predict: bad2.csv:5: "},
	} {
		_, errOut, code := runIn(t, dir, "predict", "-model", "m.json", c.file)
		if code != 1 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%s: status %d, stderr %q; want %q…", c.file, code, errOut, c.want)
		}
	}
}

// TestSignals: SIGINT during a long predict stops it promptly with
// status 130 and no output file; SIGTERM gives 143, for fit and predict.
func TestSignals(t *testing.T) {
	dir := t.TempDir()
	// A model of 400 rows; predicting 5,000,000 rows takes several
	// seconds even with the low-rank augmentation (A10)–(A13).
	sinc, err := datasets.Sinc(400, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var train strings.Builder
	train.WriteString("x,t\n")
	for i, ti := range sinc.T {
		fmt.Fprintf(&train, "%v,%v\n", sinc.X.At(i, 0), ti)
	}
	os.WriteFile(filepath.Join(dir, "train.csv"), []byte(train.String()), 0o644)
	if _, errOut, code := runIn(t, dir, "fit", "-target", "t", "-quiet", "-o", "m.json", "train.csv"); code != 0 {
		t.Fatal(errOut)
	}
	var big strings.Builder
	big.WriteString("x\n")
	const rows = 5000000
	for i := range rows {
		fmt.Fprintf(&big, "%.6g\n", -10+20*float64(i)/rows)
	}
	os.WriteFile(filepath.Join(dir, "big.csv"), []byte(big.String()), 0o644)

	// signal starts cmd, sends sig once stderr shows ready, and returns
	// stderr, the status and the time from the signal to the exit.
	signal := func(t *testing.T, sig syscall.Signal, ready string, args ...string) (string, int, time.Duration) {
		t.Helper()
		cmd := exec.Command(vrvmBinary(t), args...)
		cmd.Dir = dir
		var e syncBuffer
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(e.String(), ready) && time.Now().Before(deadline) {
			select {
			case <-done:
				t.Fatalf("%v ended before it printed %q (status %d): too quick to interrupt; stderr %q", args, ready, cmd.ProcessState.ExitCode(), e.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		sent := time.Now()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("no exit 60 s after %v; stderr %q", sig, e.String())
		}
		return e.String(), cmd.ProcessState.ExitCode(), time.Since(sent)
	}

	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		errOut, code, took := signal(t, c.sig, "vrvm predict: predicting 5000000 rows", "predict", "-model", "m.json", "-o", "p.csv", "big.csv")
		// A block of 2,048 rows takes about 0.2 s; 10 s allows for a
		// loaded machine, against about a minute for the whole run.
		if code != c.code || !strings.Contains(errOut, "vrvm predict: interrupted; no output written") || took > 10*time.Second {
			t.Errorf("predict, %v: status %d (want %d) %v after the signal; stderr %q", c.sig, code, c.code, took, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "p.csv")); err == nil {
			t.Errorf("predict, %v: wrote p.csv", c.sig)
		}
	}

	// fit: 300 points without pruning take minutes with the paper's schedule.
	var b strings.Builder
	b.WriteString("x,t\n")
	for i := range 300 {
		x := -10 + 20*float64(i)/299
		fmt.Fprintf(&b, "%v,%v\n", x, datasets.SincTrue(x)+0.1*math.Sin(7*x))
	}
	os.WriteFile(filepath.Join(dir, "slow.csv"), []byte(b.String()), 0o644)
	errOut, code, _ := signal(t, syscall.SIGTERM, "iteration", "fit", "-target", "t", "-no-prune", "-paper-schedule", "-max-iter", "1000000", "-o", "slow.json", "slow.csv")
	if code != 143 || !strings.Contains(errOut, "no model written") {
		t.Errorf("fit, SIGTERM: status %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "slow.json")); err == nil {
		t.Error("an interrupted fit wrote a model file")
	}
}
