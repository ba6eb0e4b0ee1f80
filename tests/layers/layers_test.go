// Package layers holds the test of acbox's package map: which package may
// import which (docs/design.md, "The shape of the code"). An import from a
// lower layer up, or between the two backends, fails here, and so does a
// package the map does not list.
package layers

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/acbox/acbox/"

// allowed is the package map: each product package and the acbox packages
// it may import. Layers, top down: the program (cmd/acbox); the launcher
// (coordinator) and the escape suite (coordinator/probe); the backends
// (nsjail, coordinator/docker) and the docker in-container init; the
// shared pieces; the leaves, which import nothing of acbox.
var allowed = map[string][]string{
	"cmd/acbox": {"coordinator", "coordinator/backend", "coordinator/docker", "coordinator/docker/initproc",
		"coordinator/exitscan", "coordinator/homes", "coordinator/policy", "coordinator/probe", "coordinator/registry", "nsjail"},

	"coordinator": {"coordinator/backend", "coordinator/exitscan", "coordinator/gitguard", "coordinator/homes", "coordinator/policy",
		"coordinator/registry", "coordinator/sys", "egress"},
	"coordinator/probe": {"coordinator/backend", "coordinator/policy", "nsjail"},

	"nsjail": {"bridge", "coordinator/backend", "coordinator/dirents", "coordinator/pin", "coordinator/policy",
		"coordinator/seccomp", "coordinator/sys", "egress", "landlock"}, // egress: the plan's network policy, on the wire to pid 1
	"coordinator/docker": {"coordinator/backend", "coordinator/docker/engine", "coordinator/docker/gate",
		"coordinator/pin", "coordinator/policy", "coordinator/seccomp", "coordinator/sys"},
	"coordinator/docker/initproc": {"bridge", "coordinator/docker/gate", "coordinator/policy", "coordinator/sys"},

	"coordinator/backend":         {"coordinator/policy"},
	"coordinator/registry":        {"coordinator/policy", "coordinator/sys"},
	"coordinator/exitscan":        {"coordinator/dirents", "coordinator/policy", "coordinator/sys"},
	"coordinator/homes":           {"coordinator/policy", "coordinator/sys"},
	"coordinator/gitguard":        {"coordinator/policy", "coordinator/sys"},
	"coordinator/pin":             {"coordinator/policy", "coordinator/sys"},
	"coordinator/policy":          {"coordinator/dirents", "coordinator/seccomp", "coordinator/sys", "egress"},
	"coordinator/dirents":         {"coordinator/sys"},
	"coordinator/seccomp/compile": {"coordinator/seccomp"},
	// The tests' BPF interpreter (seccomp's and compile's tests only).
	"coordinator/seccomp/internal/bpfvm": nil,
	"coordinator/seccomp/internal/gen":   {"coordinator/seccomp", "coordinator/seccomp/compile"},
	"bridge":                             {"coordinator/sys"},
	"egress":                             {"coordinator/sys"},
	"coordinator/docker/gate":            {"coordinator/sys"}, // StatPaths and ReadSelf, run by the in-container init

	// Development time only, as coordinator/seccomp/compile: the docker
	// backend's seccomp profile, which the binary embeds as JSON.
	"coordinator/docker/profile":              {"coordinator/seccomp"},
	"coordinator/docker/profile/internal/gen": {"coordinator/docker/profile"},

	// The module's root package: the embedded VERSION and the contract
	// version (cmd/acbox reports them). Its import path has no module/
	// prefix, so it is listed by its full path.

	"coordinator/sys":           nil,
	"coordinator/seccomp":       nil,
	"coordinator/docker/engine": nil,
	"landlock":                  nil,
}

func TestPackageMap(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if strings.HasPrefix(pkg, "tests/") {
			continue // tests may import anything
		}
		seen[pkg] = true
		may, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s is not in the package map: add it to allowed here and to docs/design.md", pkg)
			continue
		}
		for _, imp := range f[1:] {
			if dep, ours := strings.CutPrefix(imp, module); ours && !slices.Contains(may, dep) {
				t.Errorf("%s imports %s, which the package map does not allow (docs/design.md)", pkg, dep)
			}
		}
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("the package map lists %s, which does not exist", pkg)
		}
	}
}

// TestDesignListsEveryPackage: docs/design.md's package map names every
// product package, so the document cannot fall behind the code.
func TestDesignListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range allowed {
		if !strings.Contains(string(b), "`"+pkg+"`") {
			t.Errorf("docs/design.md's package map does not name `%s`", pkg)
		}
	}
}
