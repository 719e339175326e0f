//go:build vrvmkernel

// This file replaces main.go of gophernotes v0.7.5 (MIT licence,
// Copyright (c) 2016 the gophernotes contributors) in the kernel build
// (see kernel.go): the kernel speaks version 5.3 of the Jupyter messaging
// protocol.
package main

import (
	"flag"
	"log"
)

const (

	// Version defines the gophernotes version.
	Version string = "1.0.0"

	// ProtocolVersion defines the Jupyter protocol version.
	ProtocolVersion string = "5.3"
)

func main() {

	// Parse the connection file.
	flag.Parse()
	if flag.NArg() < 1 {
		log.Fatalln("Need a command line argument specifying the connection file.")
	}

	// Run the kernel.
	runKernel(flag.Arg(0))
}
