package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register(&command{
		name:  "data",
		short: "show or fetch the data sets of the paper's experiments",
		run:   dataCommand,
	})
}

const dataUsage = `Usage: vrvm data [status | fetch] [NAME ...]

The data sets of the paper's experiments live in the data directory:
$VRVM_DATA if set, else "vrvm" in the user cache directory.

  status   list each data set and whether its files are present (default)
  fetch    download the missing ones that can be downloaded (Ripley, Pima,
           Boston from the Rdatasets repository at a pinned commit, checked
           by SHA-256), with progress on stderr

NAME is one of: %s (default: all).
The sinc sets, the Ripley subsets and the Boston splits were drawn once and
are fixed; they cannot be downloaded: point $VRVM_DATA at a copy.
Exit status: 0 when every named set is present afterwards, 1 otherwise.
`

func dataCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vrvm data", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, dataUsage, strings.Join(datasets.Names(), ", ")) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	verb, names := "status", fs.Args()
	if len(names) > 0 && (names[0] == "status" || names[0] == "fetch") {
		verb, names = names[0], names[1:]
	}
	if len(names) == 0 {
		names = datasets.Names()
	}
	for _, n := range names {
		if _, err := datasets.Files(n); err != nil {
			fmt.Fprintf(stderr, "vrvm data: %v\n", err)
			return 2
		}
	}
	dir, err := datasets.Dir()
	if err != nil {
		fmt.Fprintf(stderr, "vrvm data: %v\n", err)
		return 1
	}
	if verb == "fetch" {
		ctx, stop := onInterrupt("data", stderr)
		defer stop()
		fetched, err := datasets.Ensure(ctx, datasets.FetchOptions{Progress: stderr}, names...)
		if len(fetched) == 0 && err == nil {
			fmt.Fprintf(stderr, "vrvm data: nothing to fetch; all present in %s\n", dir)
		}
		if err != nil && !errors.Is(err, datasets.ErrNotDownloadable) {
			fmt.Fprintf(stderr, "vrvm data: %v\n", err)
		}
	}
	fmt.Fprintf(stdout, "data directory: %s\n", dir)
	missing := 0
	for _, n := range names {
		files, _ := datasets.Files(n)
		var absent []string
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				absent = append(absent, f)
			}
		}
		state := "present"
		if len(absent) > 0 {
			missing++
			state = "missing " + strings.Join(absent, ", ")
			if !datasets.Downloadable(n) {
				state += " (not downloadable: point VRVM_DATA at a copy)"
			} else if verb == "status" {
				state += " (vrvm data fetch " + n + ")"
			}
		}
		fmt.Fprintf(stdout, "  %-15s %s\n", n, state)
	}
	if missing > 0 {
		return 1
	}
	return 0
}
