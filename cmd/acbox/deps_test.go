package main

import (
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbiddenDeps are packages (and everything beneath them) that must not
// be linked into acbox, with why. The binary is also every sandbox's
// pid 1 and every nested launch: Go runs each linked package's init in
// each of those processes, so weight the CLI could carry costs every
// sandbox. This checks the binary as `make build` builds it, which is what
// runs in the sandbox; a check of single packages misses what main links.
var forbiddenDeps = map[string]string{
	"github.com/docker/docker":            "the official Docker client, a deprecated module path; coordinator/docker/engine speaks the dozen Engine API calls acbox makes",
	"go.opentelemetry.io":                 "tracing that acbox never exports, pulled in by the official Docker client; its init runs in every process",
	"github.com/distribution/reference":   "image reference regexps compiled at init (about 0.8 ms per process); acbox passes image names through to the daemon",
	"github.com/opencontainers/go-digest": "registers digest algorithms at init; acbox checks no image digests",
	"github.com/docker/go-connections":    "the official client's transport and port types; engine uses net/http on the Unix socket",
	"github.com/containerd/errdefs":       "the official client's error classes; engine matches the daemon's status codes",
	"github.com/containerd/log":           "logrus-based logging of the official client; acbox writes its own diagnostics",
	"github.com/sirupsen/logrus":          "a logger acbox does not use",
	"github.com/pkg/errors":               "superseded by the standard errors package",
	// Development-time only: coordinator/docker/profile narrows docker's
	// default seccomp profile and `go generate ./coordinator/docker/`
	// writes the JSON the binary embeds.
	"github.com/moby/profiles":                          "docker's default seccomp profile, read at development time (coordinator/docker/profile); linked, its 10 KB builder came into every process",
	"github.com/opencontainers/runtime-spec":            "the OCI types of docker's seccomp profile, development time only; their package init formats the spec version with fmt.Sprintf in every process",
	"github.com/acbox/acbox/coordinator/docker/profile": "the development-time builder of the docker backend's seccomp profile; the binary embeds its output",
	// `acbox image build` only checks that busybox names no dynamic loader
	// (coordinator/docker/elfstatic.go reads the program headers itself).
	"debug/elf":     "an ELF reader for a check of the program headers; it brings debug/dwarf, compress/zlib and internal/zstd",
	"debug/dwarf":   "DWARF tables built by its package init in every process; acbox reads no debug information",
	"internal/zstd": "zstd tables built by its package init in every process; acbox decompresses no ELF sections",
}

// requiredDeps show that the list is the real binary's: the docker
// backend and its client are linked, so a forbidden package would be too.
var requiredDeps = []string{
	"github.com/acbox/acbox/coordinator/docker",
	"github.com/acbox/acbox/coordinator/docker/engine",
}

// TestDeps lists the packages linked into the release binary (static,
// cgo-free, linux/amd64, the tags of `make build`, read from the Makefile)
// and refuses every forbidden one, the way Tailscale's
// cmd/tailscaled/deps_test.go does.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "-tags", releaseTags(t), ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderrOf(err))
	}
	deps := strings.Fields(string(out))
	have := map[string]bool{}
	linked := map[string][]string{} // forbidden prefix -> packages under it
	for _, dep := range deps {
		have[dep] = true
		if prefix := forbiddenDep(dep); prefix != "" {
			linked[prefix] = append(linked[prefix], dep)
		}
	}
	for _, prefix := range slices.Sorted(maps.Keys(linked)) {
		pkgs := linked[prefix]
		t.Errorf("acbox links %d package(s) of %s, which is forbidden: %s; linked: %s (find the importer with: go list -deps -f '{{.ImportPath}} {{.Imports}}' ./cmd/acbox | grep %s)",
			len(pkgs), prefix, forbiddenDeps[prefix], strings.Join(pkgs, " "), prefix)
	}
	for _, dep := range requiredDeps {
		if !have[dep] {
			t.Errorf("acbox does not link %s: the dependency list is not the binary's (%d packages)", dep, len(deps))
		}
	}
}

// TestNoHTTP2Bundle: the release build leaves out net/http's bundled
// HTTP/2 (tag nethttpomithttp2). acbox speaks HTTP/1.1 only, to clients on
// Unix sockets and loopback and to the Docker daemon's socket, never over
// TLS, so net/http would never negotiate HTTP/2; the bundle is 12,000
// lines and its package-level state is initialised in every process.
func TestNoHTTP2Bundle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-tags", releaseTags(t), "-f", "{{join .GoFiles \" \"}}", "net/http")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list net/http: %v\n%s", err, stderrOf(err))
	}
	files := strings.Fields(string(out))
	if slices.Contains(files, "h2_bundle.go") || !slices.Contains(files, "omithttp2.go") {
		t.Errorf("make build links net/http's HTTP/2 bundle (files: %s); add nethttpomithttp2 to the Makefile's STATIC tags", out)
	}
}

// releaseTags are the build tags `make build` passes (the Makefile's
// STATIC line), so that these lists are the release binary's.
func releaseTags(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "STATIC"); ok {
			if _, after, ok := strings.Cut(rest, "-tags "); ok {
				return strings.Fields(after)[0]
			}
		}
	}
	t.Fatal("the Makefile has no STATIC line with -tags: the release build's tags are unknown")
	return ""
}

func forbiddenDep(dep string) string {
	for p := range forbiddenDeps {
		if dep == p || strings.HasPrefix(dep, p+"/") {
			return p
		}
	}
	return ""
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
