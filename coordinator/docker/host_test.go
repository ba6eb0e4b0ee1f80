package docker

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestOffLinuxUnavailable: where the host-side checks (descriptors held on
// every bind source, the container seen through /proc/<pid>/root) do not
// exist, the backend says so, lists it as lacking, and refuses to launch,
// before it talks to any daemon (DOCKER_HOST points nowhere: a launch that
// got that far would fail with a different error).
func TestOffLinuxUnavailable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	mac := Backend{goos: "darwin"}
	a := mac.Available(context.Background())
	if a.Available || a.Why != needsLinuxProc || a.Remedy == "" {
		t.Errorf("Available off Linux: %+v", a)
	}
	p := testSetup().plan
	if lacks := mac.Lacks(p); len(lacks) != 1 || !strings.Contains(lacks[0], needsLinuxProc) {
		t.Errorf("Lacks off Linux: %q", lacks)
	}
	_, err := mac.Launch(p, backend.LaunchIO{})
	if !errors.Is(err, policy.ErrCannotSandbox) || !strings.Contains(err.Error(), needsLinuxProc) || !strings.Contains(err.Error(), runOnLinux) {
		t.Errorf("Launch off Linux: %v", err)
	}
	if err := (Backend{goos: "linux"}).hostSupport(); err != nil {
		t.Errorf("on Linux: %v", err)
	}
}
