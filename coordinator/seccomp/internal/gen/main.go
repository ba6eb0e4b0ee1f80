// Command gen compiles the seccomp policy with libseccomp and writes the
// filter package seccomp embeds. Run it through go generate, from the module
// root, on an x86_64 Linux host with cgo and libseccomp-dev:
//
//	go generate ./coordinator/seccomp/
//
// It writes, in the package directory, filter_amd64.bpf (struct sock_filter,
// little-endian), filter_amd64.bpf.sha256 (in sha256sum's format) and
// filter_amd64.rules (the rules compiled, one per line, for review and for
// package seccomp's cgo-free staleness test). The compile package's golden
// test fails until the filter matches the policy.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/acbox/acbox/coordinator/seccomp"
	"github.com/acbox/acbox/coordinator/seccomp/compile"
)

const (
	out       = "filter_amd64.bpf"
	rulesFile = "filter_amd64.rules"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seccomp gen:", err)
		os.Exit(1)
	}
}

func run() error {
	// go generate runs the command in the package's directory and says so;
	// anywhere else the files would land beside the wrong package.
	if os.Getenv("GOPACKAGE") != "seccomp" {
		return fmt.Errorf("run me as go generate ./coordinator/seccomp/")
	}
	bpf, err := compile.Compile(seccomp.Policy())
	if err != nil {
		return err
	}
	sum := sha256.Sum256(bpf)
	if err := os.WriteFile(out, bpf, 0o644); err != nil {
		return err
	}
	line := fmt.Sprintf("%s  %s\n", hex.EncodeToString(sum[:]), out)
	if err := os.WriteFile(out+".sha256", []byte(line), 0o644); err != nil {
		return err
	}
	var rules strings.Builder
	for _, r := range seccomp.Policy() {
		rules.WriteString(r.String() + "\n")
	}
	if err := os.WriteFile(rulesFile, []byte(rules.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "seccomp gen: %s: %d instructions, sha256 %x\n", out, len(bpf)/8, sum)
	return nil
}
