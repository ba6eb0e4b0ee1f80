package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsOnMacOS keeps the tree building and vetting for macOS, tests
// included: there the native backend and the escape suite report that they
// need Linux, and the docker backend that its host-side checks do
// (coordinator/docker/host.go), but acbox builds, so that its policy code,
// CLI and Node client can be developed on a Mac. Build tags or stubs that
// drift apart fail here, on Linux, rather than on a Mac later.
func TestBuildsOnMacOS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build and go vet for darwin")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go tool to cross-build with: %v", err)
	}
	for _, arch := range []string{"arm64", "amd64"} {
		for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = "../.." // the module root
			cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=darwin GOARCH=%s go %s ./...: %v\n%s", arch, args[0], err, out)
			}
		}
	}
}
