package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register(&command{
		name:  "kernel",
		short: "install the Go Jupyter kernel (gophernotes with vrvm compiled in)",
		run:   kernelCommand,
	})
}

const kernelUsage = `Usage: vrvm kernel install [--user | --prefix DIR | --sys-prefix]
                          [--name NAME] [--display-name TEXT] [--kernel PATH]
                          [--data DIR]

Install registers the vrvm Jupyter kernel, the way "python -m ipykernel
install" registers Python's: it writes the kernelspec directory
kernels/NAME (kernel.json, logo-32x32.png, logo-64x64.png) under a Jupyter
data directory and prints where. The kernel is gophernotes with the vrvm,
gonum and gonum/plot packages compiled in; build it with "make kernel"
(it is written to build/vrvm-kernel). An existing kernelspec of the same
name is replaced.

Where (at most one of):
  (none)        system-wide: /usr/local/share/jupyter (%PROGRAMDATA%\jupyter
                on Windows), as ipykernel; usually needs root
  --user        the user's Jupyter data directory: $JUPYTER_DATA_DIR if set,
                else $XDG_DATA_HOME/jupyter or ~/.local/share/jupyter
                (~/Library/Jupyter on macOS, %APPDATA%\jupyter on Windows)
  --prefix DIR  DIR/share/jupyter (Jupyter searches it when DIR is the
                prefix of its Python environment, or when
                DIR/share/jupyter is in $JUPYTER_PATH)
  --sys-prefix  the prefix of the Python environment that runs the jupyter
                command found on $PATH (sys.prefix), for virtualenvs and
                conda environments

Flags:
  --name NAME          kernelspec name, letters, digits, '.', '_' and '-',
                       lower-cased as Jupyter does (default "vrvm"); notebooks
                       record it, nbconvert selects it with
                       --ExecutePreprocessor.kernel_name=NAME
  --display-name TEXT  name shown in Jupyter's menus (default "Go (vrvm)")
  --kernel PATH        the kernel binary (default: vrvm-kernel next to this
                       vrvm executable, else vrvm-kernel on $PATH); its
                       absolute path is written into kernel.json
  --data DIR           the data directory the kernel's datasets package reads
                       (default $VRVM_DATA), recorded as an absolute path in
                       kernel.json's "env", so that a Jupyter started in any
                       way gives the notebooks that directory; --data= records
                       none (the kernel then uses $VRVM_DATA as Jupyter's
                       environment sets it, else the user cache). Files the
                       directory lacks are read from the copies built in.

In a notebook, Kernel → Interrupt stops a fit that runs under
cell.Context() (import "github.com/vrvm/vrvm/jupyter/cell"), and the
kernel keeps its variables.
`

// kernelCommand is the "kernel" command; "install" is its only subcommand.
func kernelCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, kernelUsage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, kernelUsage)
		return 0
	case "install":
		return kernelInstall(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "vrvm kernel: unknown subcommand %q\n\n", args[0])
	fmt.Fprint(stderr, kernelUsage)
	return 2
}

// defaultKernelName is the kernelspec name when --name is not given.
const defaultKernelName = "vrvm"

// kernelBinary is the file name of the kernel "make kernel" builds.
const kernelBinary = "vrvm-kernel"

// validKernelName is jupyter_client's rule for kernelspec names.
var validKernelName = regexp.MustCompile(`^[a-z0-9._\-]+$`)

// kernelSpec is the content of kernel.json, as jupyter_client reads it.
type kernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata"`
}

func kernelInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kernel install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), kernelUsage) }
	user := fs.Bool("user", false, "")
	prefix := fs.String("prefix", "", "")
	sysPrefix := fs.Bool("sys-prefix", false, "")
	name := fs.String("name", defaultKernelName, "")
	display := fs.String("display-name", "Go (vrvm)", "")
	kernel := fs.String("kernel", "", "")
	dataDir := fs.String("data", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "vrvm kernel install: "+format+"\n", a...)
		return 1
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "vrvm kernel install: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	prefixSet, dataSet := false, false
	fs.Visit(func(f *flag.Flag) {
		prefixSet = prefixSet || f.Name == "prefix"
		dataSet = dataSet || f.Name == "data"
	})
	n := 0
	for _, set := range []bool{*user, prefixSet, *sysPrefix} {
		if set {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintln(stderr, "vrvm kernel install: --user, --prefix and --sys-prefix are exclusive")
		return 2
	}
	if prefixSet && *prefix == "" {
		fmt.Fprintln(stderr, "vrvm kernel install: --prefix needs a directory")
		return 2
	}
	kname := strings.ToLower(*name)
	if !validKernelName.MatchString(kname) {
		fmt.Fprintf(stderr, "vrvm kernel install: invalid kernel name %q: use letters, digits, '.', '_' and '-'\n", *name)
		return 2
	}

	bin, err := findKernel(*kernel)
	if err != nil {
		return fail("%v", err)
	}
	if !dataSet {
		*dataDir = os.Getenv(datasets.EnvDir)
	}
	var env map[string]string
	if *dataDir != "" {
		abs, err := filepath.Abs(*dataDir)
		if err != nil {
			return fail("data directory: %v", err)
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return fail("data directory %s is not a directory", abs)
		}
		env = map[string]string{datasets.EnvDir: abs}
	}

	var data string
	switch {
	case *user:
		data, err = jupyterDataDir()
	case prefixSet:
		data, err = filepath.Abs(filepath.Join(*prefix, "share", "jupyter"))
	case *sysPrefix:
		var p string
		p, err = jupyterSysPrefix()
		data = filepath.Join(p, "share", "jupyter")
	default:
		data = systemJupyterDir()
	}
	if err != nil {
		return fail("%v", err)
	}
	dest := filepath.Join(data, "kernels", kname)

	spec := kernelSpec{
		Argv:          []string{bin, "{connection_file}"},
		DisplayName:   *display,
		Language:      "go",
		InterruptMode: "signal",
		Env:           env,
		Metadata:      map[string]any{},
	}
	if err := writeKernelSpec(dest, spec); err != nil {
		hint := ""
		if !*user && !prefixSet && errors.Is(err, os.ErrPermission) {
			hint = "\n(use --user to install for the current user only, or --prefix DIR)"
		}
		return fail("%v%s", err, hint)
	}
	fmt.Fprintf(stdout, "Installed kernelspec %s in %s\n", kname, dest)
	if env != nil {
		fmt.Fprintf(stdout, "The kernel reads its data sets from %s (%s in kernel.json).\n", env[datasets.EnvDir], datasets.EnvDir)
	}
	if prefixSet {
		fmt.Fprintf(stdout, "Jupyter finds it if %s is in JUPYTER_PATH or %s is its Python prefix.\n", data, filepath.Dir(filepath.Dir(data)))
	}
	return 0
}

// findKernel resolves the kernel binary to an absolute path: path if given,
// else vrvm-kernel next to the running executable, else on $PATH.
func findKernel(path string) (string, error) {
	if path == "" {
		if exe, err := os.Executable(); err == nil {
			if exe, err := filepath.EvalSymlinks(exe); err == nil {
				cand := filepath.Join(filepath.Dir(exe), kernelBinary+exeSuffix())
				if isExecutable(cand) {
					path = cand
				}
			}
		}
	}
	if path == "" {
		p, err := exec.LookPath(kernelBinary)
		if err != nil {
			return "", fmt.Errorf("kernel binary %s not found next to vrvm or on $PATH: build it with \"make kernel\" and pass --kernel build/%s", kernelBinary, kernelBinary)
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("kernel binary: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("kernel binary %s is not a regular file", abs)
	}
	if !isExecutable(abs) {
		return "", fmt.Errorf("kernel binary %s is not executable", abs)
	}
	return abs, nil
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// jupyterDataDir is jupyter_core.paths.jupyter_data_dir: the per-user
// data directory.
func jupyterDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot locate the user's Jupyter data directory: %v (set JUPYTER_DATA_DIR)", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter"), nil
		}
		return filepath.Join(home, ".jupyter", "data"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// systemJupyterDir is the first entry of jupyter_core's SYSTEM_JUPYTER_PATH,
// where jupyter_client installs a kernelspec by default.
func systemJupyterDir() string {
	if runtime.GOOS == "windows" {
		return filepath.Join(os.Getenv("PROGRAMDATA"), "jupyter")
	}
	return "/usr/local/share/jupyter"
}

// jupyterSysPrefix returns sys.prefix of the Python that runs the jupyter
// command on $PATH, read by running the interpreter of its #! line.
func jupyterSysPrefix() (string, error) {
	j, err := exec.LookPath("jupyter")
	if err != nil {
		return "", errors.New("--sys-prefix: no jupyter command on $PATH to take the Python prefix from; use --user or --prefix DIR")
	}
	f, err := os.Open(j)
	if err != nil {
		return "", fmt.Errorf("--sys-prefix: %v", err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	interp := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#!"))
	if !strings.HasPrefix(line, "#!") || len(interp) == 0 {
		return "", fmt.Errorf("--sys-prefix: %s has no #! line naming its Python; use --prefix DIR", j)
	}
	cmd := exec.Command(interp[0], append(interp[1:], "-c", "import sys; print(sys.prefix)")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("--sys-prefix: running %s: %v %s", strings.Join(interp, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	p := strings.TrimSpace(string(out))
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("--sys-prefix: %s reported sys.prefix %q", strings.Join(interp, " "), p)
	}
	return p, nil
}

// writeKernelSpec replaces directory dest with kernel.json and the logos.
func writeKernelSpec(dest string, spec kernelSpec) error {
	js, err := json.MarshalIndent(spec, "", " ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"kernel.json": append(js, '\n')}
	for _, size := range []int{32, 64} {
		var b bytes.Buffer
		if err := png.Encode(&b, kernelLogo(size)); err != nil {
			return err
		}
		files[fmt.Sprintf("logo-%dx%d.png", size, size)] = b.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", filepath.Dir(dest), unwrapPath(err))
	}
	if err := os.RemoveAll(dest); err != nil {
		return fmt.Errorf("cannot replace %s: %w", dest, unwrapPath(err))
	}
	if err := os.Mkdir(dest, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dest, unwrapPath(err))
	}
	for _, name := range []string{"kernel.json", "logo-32x32.png", "logo-64x64.png"} {
		p := filepath.Join(dest, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return fmt.Errorf("cannot write %s: %w", p, unwrapPath(err))
		}
	}
	return nil
}

// unwrapPath drops the *PathError wrapper, whose path the caller's message
// already names (it may name a parent directory instead), keeping the
// cause ("permission denied", "not a directory").
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kernelLogo draws the kernel's logo, size × size pixels: a Go-blue
// rounded square with a white curve, the regression function, through
// three dark "relevance vectors". Each pixel is 4 × 4 supersampled.
func kernelLogo(size int) image.Image {
	const ss = 4
	goBlue := color.NRGBA{0x00, 0xad, 0xd8, 0xff}
	dark := color.NRGBA{0x00, 0x3b, 0x5c, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	f := func(x float64) float64 { // curve in unit coordinates, y down
		u := (x - 0.5) * 12
		s := 1.0
		if u != 0 {
			s = math.Sin(u) / u
		}
		return 0.6 - 0.36*s
	}
	rv := []float64{0.5, 0.5 - 4.49/12, 0.5 + 4.49/12} // peak and the two troughs
	at := func(x, y float64) color.NRGBA {
		// Rounded square, corner radius 0.18.
		const r = 0.18
		dx := math.Max(math.Max(r-x, x-(1-r)), 0)
		dy := math.Max(math.Max(r-y, y-(1-r)), 0)
		if dx*dx+dy*dy > r*r {
			return color.NRGBA{}
		}
		for _, c := range rv {
			if math.Hypot(x-c, y-f(c)) < 0.085 {
				return dark
			}
		}
		// Vertical distance scaled by the slope approximates the distance
		// to the curve.
		const h = 1e-3
		slope := (f(x+h) - f(x-h)) / (2 * h)
		if x > 0.06 && x < 0.94 && math.Abs(y-f(x))/math.Sqrt(1+slope*slope) < 0.035 {
			return white
		}
		return goBlue
	}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					c := at((float64(px)+(float64(sx)+0.5)/ss)/float64(size), (float64(py)+(float64(sy)+0.5)/ss)/float64(size))
					fa := float64(c.A) / 255
					r += float64(c.R) * fa
					g += float64(c.G) * fa
					b += float64(c.B) * fa
					a += fa
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(r / a)),
				G: uint8(math.Round(g / a)),
				B: uint8(math.Round(b / a)),
				A: uint8(math.Round(255 * a / ss / ss)),
			})
		}
	}
	return img
}
