// Command mkkernel builds the vrvm Jupyter kernel: gophernotes v0.7.5,
// compiled unmodified from the module cache, plus the project's compiled
// packages.
//
// Usage (from anywhere in the module; "make kernel" runs it):
//
//	go run ./jupyter/mkkernel [-o build/vrvm-kernel] [-overlay file] [go build flags]
//
// gophernotes is a main package in the module cache, and "go build
// -overlay" may not add files there ("Files beneath GOMODCACHE must not be
// replaced"). It does accept overlay entries inside this module whose
// contents come from the module cache. mkkernel therefore declares the
// virtual package directory jupyter/gophernotes: it maps each Go file of
// gophernotes' main package (as "go list" reports them) into that
// directory, next to the project's own file jupyter/gophernotes/vrvm.go,
// and builds the directory with the vrvmkernel build tag. gophernotes'
// kernel.go (its message loop) is not mapped: the project's
// jupyter/gophernotes/kernel.go replaces it. The overlay
// file holds absolute, machine-specific paths; it is written to a
// temporary file and removed after the build (or written to -overlay and
// not built, for inspection).
//
// Arguments after the flags are passed to "go build" (for example -v or
// -trimpath). The go command is $GO, or "go".
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// replaced lists the files of gophernotes' main package that the project
// replaces with its own file of the same name in jupyter/gophernotes
// (kernel.go: the message loop, see the file's comment; main.go: the
// protocol version; messages.go: error outputs; complete.go: completion
// of exported names). Any other name
// clash is an error.
var replaced = map[string]bool{"complete.go": true, "kernel.go": true, "main.go": true, "messages.go": true}

const (
	gophernotes = "github.com/gopherdata/gophernotes"
	virtualDir  = "jupyter/gophernotes" // relative to the module root
	buildTag    = "vrvmkernel"
)

func main() {
	out := flag.String("o", "build/vrvm-kernel", "kernel binary to write, relative to the module root unless absolute")
	overlayOnly := flag.String("overlay", "", "write the overlay JSON to `file` and stop, without building")
	flag.Usage = func() {
		w := flag.CommandLine.Output()
		fmt.Fprintln(w, "usage: mkkernel [-o binary] [-overlay file] [go build flags]")
		fmt.Fprintln(w, "Builds gophernotes with the vrvm symbols compiled in (see the package documentation).")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*out, *overlayOnly, flag.Args(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkkernel:", err)
		os.Exit(1)
	}
}

func goCmd() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// goOutput runs the go command in dir and returns its standard output.
func goOutput(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(goCmd(), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", goCmd(), strings.Join(args, " "), err, stderr.Bytes())
	}
	return b, nil
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	b, err := goOutput("", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module: run mkkernel from the vrvm repository")
	}
	return filepath.Dir(gomod), nil
}

// listed is what "go list -json" reports about gophernotes.
type listed struct {
	Dir            string
	GoFiles        []string
	IgnoredGoFiles []string
	CgoFiles       []string
	EmbedFiles     []string
	Module         *struct{ Version string }
}

// Overlay builds the overlay that places gophernotes' main package in the
// virtual directory root/jupyter/gophernotes. It returns the overlay and
// the gophernotes version.
func Overlay(root string) (map[string]map[string]string, string, error) {
	b, err := goOutput(root, "list", "-json", gophernotes)
	if err != nil {
		return nil, "", err
	}
	var pkg listed
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, "", fmt.Errorf("decoding go list output: %v", err)
	}
	if len(pkg.CgoFiles) != 0 || len(pkg.EmbedFiles) != 0 {
		return nil, "", fmt.Errorf("%s has cgo or embedded files, which the overlay does not map", gophernotes)
	}
	version := "(unknown version)"
	if pkg.Module != nil {
		version = pkg.Module.Version
	}
	dst := filepath.Join(root, filepath.FromSlash(virtualDir))
	replace := map[string]string{}
	// Map the ignored files too: build constraints are evaluated again in
	// the virtual directory, for the target platform of this build.
	for _, f := range append(append([]string(nil), pkg.GoFiles...), pkg.IgnoredGoFiles...) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "_") || strings.HasPrefix(f, ".") {
			continue
		}
		to := filepath.Join(dst, f)
		_, err := os.Stat(to)
		switch {
		case replaced[f] && err == nil:
			continue // the project's file of the same name is built instead
		case replaced[f]:
			return nil, "", fmt.Errorf("%s is missing: it replaces gophernotes' %s", to, f)
		case err == nil:
			return nil, "", fmt.Errorf("%s exists: it would hide gophernotes' %s", to, f)
		}
		replace[to] = filepath.Join(pkg.Dir, f)
	}
	if len(pkg.GoFiles) == 0 {
		return nil, "", fmt.Errorf("go list reports no Go files for %s", gophernotes)
	}
	return map[string]map[string]string{"Replace": replace}, version, nil
}

func run(out, overlayOnly string, buildArgs []string, stdout, stderr io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	overlay, version, err := Overlay(root)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(overlay, "", "\t")
	if err != nil {
		return err
	}
	if overlayOnly != "" {
		return os.WriteFile(overlayOnly, append(b, '\n'), 0o644)
	}

	f, err := os.CreateTemp("", "vrvm-kernel-overlay-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	args := append([]string{"build", "-overlay", f.Name(), "-tags", buildTag, "-o", out}, buildArgs...)
	args = append(args, "./"+virtualDir)
	cmd := exec.Command(goCmd(), args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %v", err)
	}
	fmt.Fprintf(stdout, "mkkernel: built %s (gophernotes %s)\n", out, version)
	return nil
}
