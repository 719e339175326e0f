package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// fakeKernel writes an executable file standing in for the kernel binary.
func fakeKernel(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vrvm-kernel")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// install runs "vrvm kernel install args…" and returns exit code and output.
func install(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"kernel", "install"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkSpec verifies the kernelspec directory dir.
func checkSpec(t *testing.T, dir, kernel string) kernelSpec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec kernelSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("kernel.json: %v\n%s", err, b)
	}
	if len(spec.Argv) != 2 || spec.Argv[0] != kernel || spec.Argv[1] != "{connection_file}" {
		t.Errorf("argv = %q, want [%q {connection_file}]", spec.Argv, kernel)
	}
	if !filepath.IsAbs(spec.Argv[0]) {
		t.Errorf("argv[0] = %q is not absolute", spec.Argv[0])
	}
	if spec.Language != "go" {
		t.Errorf("language = %q, want go", spec.Language)
	}
	if spec.InterruptMode != "signal" {
		t.Errorf("interrupt_mode = %q, want signal", spec.InterruptMode)
	}
	for _, size := range []int{32, 64} {
		name := filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size))
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("%s is %v, want %d × %d", name, b, size, size)
		}
	}
	return spec
}

func TestKernelInstallPrefix(t *testing.T) {
	kernel := fakeKernel(t)
	prefix := t.TempDir()
	code, out, errOut := install(t, "--prefix", prefix, "--kernel", kernel)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := filepath.Join(prefix, "share", "jupyter", "kernels", "vrvm")
	if !strings.Contains(out, dir) {
		t.Errorf("output does not say where it wrote (%s):\n%s", dir, out)
	}
	spec := checkSpec(t, dir, kernel)
	if !strings.Contains(spec.DisplayName, "Go") || !strings.Contains(spec.DisplayName, "vrvm") {
		t.Errorf("display_name = %q, want it to mention Go and vrvm", spec.DisplayName)
	}
}

func TestKernelInstallUser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG fallbacks are Linux rules")
	}
	kernel := fakeKernel(t)
	home := t.TempDir()
	data := t.TempDir()
	xdg := t.TempDir()
	for _, tc := range []struct {
		name, jupyterDataDir, xdgDataHome, want string
	}{
		{"JUPYTER_DATA_DIR", data, xdg, filepath.Join(data, "kernels", "vrvm")},
		{"XDG_DATA_HOME", "", xdg, filepath.Join(xdg, "jupyter", "kernels", "vrvm")},
		{"home", "", "", filepath.Join(home, ".local", "share", "jupyter", "kernels", "vrvm")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("JUPYTER_DATA_DIR", tc.jupyterDataDir)
			t.Setenv("XDG_DATA_HOME", tc.xdgDataHome)
			code, out, errOut := install(t, "--user", "--kernel", kernel)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q does not name %s", out, tc.want)
			}
			checkSpec(t, tc.want, kernel)
		})
	}
}

func TestKernelInstallNameAndReplace(t *testing.T) {
	kernel := fakeKernel(t)
	prefix := t.TempDir()
	dir := filepath.Join(prefix, "share", "jupyter", "kernels", "go-vrvm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "stale.txt")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := install(t, "--prefix", prefix, "--kernel", kernel, "--name", "Go-VRVM", "--display-name", "Go 1.26 (vrvm)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	spec := checkSpec(t, dir, kernel)
	if spec.DisplayName != "Go 1.26 (vrvm)" {
		t.Errorf("display_name = %q", spec.DisplayName)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("reinstalling kept a file of the old kernelspec (stat: %v)", err)
	}
}

func TestKernelInstallSysPrefix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("#! scripts")
	}
	kernel := fakeKernel(t)
	bin := t.TempDir()
	prefix := t.TempDir()
	// A stand-in Python that answers the sys.prefix query, and a jupyter
	// script whose #! line names it.
	python := filepath.Join(bin, "python")
	if err := os.WriteFile(python, []byte("#!/bin/sh\necho "+prefix+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "jupyter"), []byte("#!"+python+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	code, _, errOut := install(t, "--sys-prefix", "--kernel", kernel)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSpec(t, filepath.Join(prefix, "share", "jupyter", "kernels", "vrvm"), kernel)

	t.Setenv("PATH", t.TempDir()) // no jupyter
	code, _, errOut = install(t, "--sys-prefix", "--kernel", kernel)
	if code != 1 || !strings.Contains(errOut, "jupyter") {
		t.Errorf("without jupyter on PATH: exit %d, stderr %q; want 1 and a message naming jupyter", code, errOut)
	}
}

func TestKernelInstallUnwritable(t *testing.T) {
	kernel := fakeKernel(t)
	// A regular file where a directory must be created: fails even as root.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := install(t, "--prefix", file, "--kernel", kernel)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stdout %q, stderr %q)", code, out, errOut)
	}
	if !strings.Contains(errOut, "vrvm kernel install: cannot create "+file) || !strings.Contains(errOut, "not a directory") {
		t.Errorf("stderr %q does not name the path and the cause", errOut)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing on failure", out)
	}

	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Log("running as root: skipping the read-only directory case")
		return
	}
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	code, _, errOut = install(t, "--prefix", ro, "--kernel", kernel)
	if code != 1 || !strings.Contains(errOut, "permission denied") || !strings.Contains(errOut, ro) {
		t.Errorf("read-only prefix: exit %d, stderr %q; want 1 naming the path and permission denied", code, errOut)
	}
}

func TestKernelInstallErrors(t *testing.T) {
	kernel := fakeKernel(t)
	notExec := filepath.Join(t.TempDir(), "vrvm-kernel")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two locations", []string{"--user", "--prefix", prefix, "--kernel", kernel}, 2, "exclusive"},
		{"empty prefix", []string{"--prefix", "", "--kernel", kernel}, 2, "--prefix needs a directory"},
		{"bad name", []string{"--prefix", prefix, "--name", "go vrvm", "--kernel", kernel}, 2, "invalid kernel name"},
		{"missing kernel", []string{"--prefix", prefix, "--kernel", filepath.Join(prefix, "nope")}, 1, "no such file"},
		{"not executable", []string{"--prefix", prefix, "--kernel", notExec}, 1, "not executable"},
		{"directory", []string{"--prefix", prefix, "--kernel", prefix}, 1, "not a regular file"},
		{"argument", []string{"--prefix", prefix, "--kernel", kernel, "extra"}, 2, "unexpected argument"},
		{"unknown flag", []string{"--bogus"}, 2, "bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := install(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestKernelInstallFindsKernelOnPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec bits")
	}
	kernel := fakeKernel(t)
	t.Setenv("PATH", filepath.Dir(kernel))
	prefix := t.TempDir()
	code, _, errOut := install(t, "--prefix", prefix)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSpec(t, filepath.Join(prefix, "share", "jupyter", "kernels", "vrvm"), kernel)

	t.Setenv("PATH", t.TempDir())
	code, _, errOut = install(t, "--prefix", prefix)
	if code != 1 || !strings.Contains(errOut, "make kernel") {
		t.Errorf("no kernel anywhere: exit %d, stderr %q; want 1 and advice to run make kernel", code, errOut)
	}
}

func TestKernelHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"kernel", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("kernel --help: exit %d", code)
	}
	for _, want := range []string{"--user", "--prefix DIR", "--sys-prefix", "--name", "--kernel PATH", "kernel.json", "make kernel", "Interrupt"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("kernel --help does not mention %q", want)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"kernel", "install", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("kernel install --help: exit %d", code)
	}
	if !strings.Contains(stdout.String()+stderr.String(), "--sys-prefix") {
		t.Error("kernel install --help does not explain the flags")
	}
	if code := run([]string{"kernel"}, &stdout, &stderr); code != 2 {
		t.Errorf("kernel without subcommand: exit %d, want 2", code)
	}
	if code := run([]string{"kernel", "frob"}, &stdout, &stderr); code != 2 {
		t.Errorf("unknown subcommand: exit %d, want 2", code)
	}
}

func TestKernelLogoDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := png.Encode(&a, kernelLogo(64)); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&b, kernelLogo(64)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("logo differs between runs")
	}
	img := kernelLogo(64)
	if _, _, _, alpha := img.At(0, 0).RGBA(); alpha != 0 {
		t.Error("corner of the rounded square is not transparent")
	}
	if _, _, _, alpha := img.At(32, 60).RGBA(); alpha != 0xffff {
		t.Error("inside of the square is not opaque")
	}
}

// TestKernelInstallData checks that the data directory, from $VRVM_DATA or
// --data, is recorded as an absolute path in kernel.json's env, and that
// none is recorded without one or with --data=.
func TestKernelInstallData(t *testing.T) {
	kernel := fakeKernel(t)
	data := t.TempDir()
	rel, err := filepath.Rel(mustGetwd(t), data)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, env string
		args      []string
		want      map[string]string
	}{
		{"unset", "", nil, nil},
		{"VRVM_DATA", data, nil, map[string]string{"VRVM_DATA": data}},
		{"relative VRVM_DATA", rel, nil, map[string]string{"VRVM_DATA": data}},
		{"--data", "/elsewhere", []string{"--data", rel}, map[string]string{"VRVM_DATA": data}},
		{"--data=", data, []string{"--data="}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("VRVM_DATA", tc.env)
			prefix := t.TempDir()
			code, out, errOut := install(t, append([]string{"--prefix", prefix, "--kernel", kernel}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			dir := filepath.Join(prefix, "share", "jupyter", "kernels", "vrvm")
			spec := checkSpec(t, dir, kernel)
			if !reflect.DeepEqual(spec.Env, tc.want) {
				t.Errorf("env = %q, want %q", spec.Env, tc.want)
			}
			if tc.want != nil && !strings.Contains(out, tc.want["VRVM_DATA"]) {
				t.Errorf("output does not name the data directory:\n%s", out)
			}
			b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil && strings.Contains(string(b), `"env"`) {
				t.Errorf("kernel.json has an env without a data directory:\n%s", b)
			}
		})
	}
	t.Setenv("VRVM_DATA", "")
	if code, _, errOut := install(t, "--prefix", t.TempDir(), "--kernel", kernel, "--data", file); code != 1 || !strings.Contains(errOut, "not a directory") {
		t.Errorf("--data naming a file: exit %d, stderr %q", code, errOut)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
