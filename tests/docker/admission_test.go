//go:build integration

package docker_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAdmissionCountsOtherOwners: the registry is per user, the daemon is
// shared. With the cap one above the acbox containers already running, a
// docker sandbox started under one registry makes a docker launch under
// another registry (as another user's would be) refused, while a native
// launch there is not affected.
func TestAdmissionCountsOtherOwners(t *testing.T) {
	e := setup(t)
	running := 0
	for _, c := range e.containers(t, "") {
		if c.State == "running" {
			running++
		}
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "config")
	os.MkdirAll(filepath.Join(cfg, "acbox"), 0o700)
	os.WriteFile(filepath.Join(cfg, "acbox", "config.json"), []byte(fmt.Sprintf(`{"max_sandboxes": %d}`, running+1)), 0o600)
	env := func(name string) []string {
		rt := filepath.Join(base, name)
		os.MkdirAll(rt, 0o700)
		return append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_RUNTIME_DIR="+rt)
	}
	first := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "--", "sleep", "60")
	var firstErr strings.Builder
	first.Env, first.Dir, first.Stderr = env("a"), "/", &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Signal(syscall.SIGTERM); first.Wait(); e.noneLeft(t) }()
	if _, ok := findContainer(t, e, first.Process.Pid); !ok {
		t.Fatalf("the first sandbox did not start: %s", firstErr.String())
	}
	second := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "--", "true")
	second.Env, second.Dir = env("b"), "/"
	out, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(string(out), "sandboxes already run") {
		t.Fatalf("docker launch under another registry: %v\n%s", err, out)
	}
	native := exec.Command(e.bin, "run", "--no-tty", "--", "true")
	native.Env, native.Dir = env("b"), "/"
	if out, err := native.CombinedOutput(); err != nil {
		t.Fatalf("native launch under another registry: %v\n%s", err, out)
	}
}
