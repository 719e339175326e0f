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

  status   list each data set and whether its files are in the data
           directory (default)
  fetch    write the missing files into the data directory from the copies
           built into vrvm (byte for byte the project's reference data; no
           download), naming each set written on stderr

NAME is one of: %s (default: all).
Every data set is built into vrvm, so the library's loaders (and the
notebooks) work with an empty data directory; fetch is for reading the
files by path, as "vrvm fit FILE" does.
Exit status: 0 when every named set is in the data directory afterwards,
1 otherwise.
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
		written, err := datasets.Ensure(ctx, datasets.FetchOptions{Progress: stderr}, names...)
		if len(written) == 0 && err == nil {
			fmt.Fprintf(stderr, "vrvm data: nothing to fetch; all present in %s\n", dir)
		}
		if err != nil {
			fmt.Fprintf(stderr, "vrvm data: %v\n", err)
		}
	}
	fmt.Fprintf(stdout, "data directory: %s\n", dir)
	missing := 0
	for _, n := range names {
		files, _ := datasets.Files(n)
		var absent []string
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				absent = append(absent, f)
			}
		}
		state := "present"
		if len(absent) > 0 {
			missing++
			state = "missing " + strings.Join(absent, ", ")
			state += " (the built-in copy is used; vrvm data fetch " + n + " writes it out)"
		}
		fmt.Fprintf(stdout, "  %-15s %s\n", n, state)
	}
	if missing > 0 {
		return 1
	}
	return 0
}
