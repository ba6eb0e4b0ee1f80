package backend_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/acbox/acbox/"

// peers are the backends. Each may import the shared packages beneath it
// (coordinator/backend, coordinator/policy, coordinator/pin, ...) but never
// another backend, the launcher above it or the CLI: what two backends
// share lives beneath both, so that adding a third touches only its own
// package and one registration line.
var peers = []string{"nsjail", "coordinator/docker"}

// above are the layers over the backends, with why a backend must not
// import them.
var above = map[string]string{
	"coordinator": "the launcher, which knows backends only through this package's interface",
	"cmd/acbox":   "the CLI, which wires the launcher to the backends",
}

// TestBackendsArePeers lists each backend's dependencies as the release
// build sees them (linux/amd64, cgo off) and refuses an import of another
// backend or of a layer above.
func TestBackendsArePeers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, pkg := range peers {
		deps := listDeps(t, pkg)
		for _, other := range peers {
			if other != pkg && deps[mod+other] {
				t.Errorf("%s imports the backend %s: backends are peers; move what both need into a package beneath both (find the importer with: go list -deps -f '{{.ImportPath}} {{.Imports}}' ./%s | grep %s)", pkg, other, pkg, other)
			}
		}
		for up, why := range above {
			if deps[mod+up] {
				t.Errorf("%s imports %s, %s", pkg, up, why)
			}
		}
	}
}

func listDeps(t *testing.T, pkg string) map[string]bool {
	cmd := exec.Command("go", "list", "-deps", "-tags", "netgo,osusergo", mod+pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		deps[d] = true
	}
	if !deps[mod+pkg] {
		t.Fatalf("go list -deps %s does not list the package itself: the list is not its dependencies", pkg)
	}
	return deps
}
