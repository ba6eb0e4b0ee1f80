// Command gen writes the docker backend's seccomp profile, which package
// docker embeds. Run it through go generate, from the module root, on
// Linux (moby builds docker's default profile there only):
//
//	go generate ./coordinator/docker/
//
// It writes seccomp_profile.json in the package directory: package
// profile's Build, indented. Package docker's golden test fails until the
// file matches.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"

	"github.com/acbox/acbox/coordinator/docker/profile"
)

const out = "seccomp_profile.json"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "docker seccomp gen:", err)
		os.Exit(1)
	}
}

func run() error {
	// go generate runs the command in the package's directory and says so;
	// anywhere else the file would land beside the wrong package.
	if os.Getenv("GOPACKAGE") != "docker" {
		return fmt.Errorf("run me as go generate ./coordinator/docker/")
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("docker's default profile is built on Linux only; run go generate there")
	}
	b, err := profile.Indented()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	c, err := profile.Compact()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "docker seccomp gen: %s: %d bytes, as passed %d bytes, sha256 %x\n", out, len(b), len(c), sha256.Sum256(c))
	return nil
}
