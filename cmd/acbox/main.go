// Command acbox runs a command with only the access it was granted. See the
// README for the commands and what each control buys.
//
// Startup is on every launch's path: the Go runtime's container-aware
// GOMAXPROCS reads cgroup files at start and a background updater wakes up
// later; acbox needs neither.
//
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/acbox/acbox/nsjail"
)

func main() {
	// The sandbox's pid 1 is this same binary, re-executed by the native
	// backend; it never reaches the command line parser.
	if nsjail.IsHelper() {
		nsjail.HelperMain()
	}
	if nsjail.IsIPCChild() { // a user's pid 1's child that sets its IPC limits
		nsjail.IPCChildMain()
	}
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
