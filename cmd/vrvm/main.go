// Command vrvm fits and applies variational relevance vector machines,
// reproduces the experiments of Bishop & Tipping (2000), runs Go scripts
// against the compiled library, and installs the Jupyter kernel.
//
// Usage:
//
//	vrvm <command> [flags] [arguments]
//
// Run "vrvm help" for the list of commands and "vrvm <command> -h" for the
// flags of one command.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand. Each lives in a file of its own and registers
// itself from an init function, as the subcommands of cmd/yaegi do.
type command struct {
	name  string
	short string // one line for the command list
	run   func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("vrvm: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "vrvm: unknown command %q; run \"vrvm help\" for the list\n", args[0])
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "vrvm: sparse Bayesian kernel models (Bishop & Tipping, UAI 2000)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: vrvm <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].short)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "vrvm <command> -h" for the flags of a command.`)
}
