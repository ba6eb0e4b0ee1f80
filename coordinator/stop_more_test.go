package coordinator

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// sleeper is a process of this user to stand in for an owner or a pid 1.
func sleeper(t *testing.T) (int, uint64) {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Skip(err)
	}
	go c.Wait()
	t.Cleanup(func() { c.Process.Kill() })
	start, err := registry.ProcStart(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid, start
}

// TestStopTree: a nested sandbox is stopped through its own pid 1 before
// its requester is stopped through the owner.
func TestStopTree(t *testing.T) {
	r := newRig(t)
	top, err := registry.NewEntry(&policy.Plan{Backend: "native"}, "top")
	if err != nil {
		t.Fatal(err)
	}
	top.OwnerPid, top.OwnerStart = sleeper(t)
	kid, _ := registry.NewEntry(&policy.Plan{Backend: "native", Depth: 1, Parent: "top"}, "kid")
	kid.HelperPid, kid.HelperStart = sleeper(t)
	for _, e := range []registry.Entry{top, kid} {
		if err := r.l.Registry.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := r.l.Stop(t.Context(), "top", 2*time.Second, &out); err != nil {
		t.Fatal(err)
	}
	if want := "kid stopped (SIGTERM to its pid 1)\ntop stopped (SIGTERM)\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestServeProxy: acbox proxy refuses a bad rule, listens on a 0600
// socket and ends on SIGTERM, removing its socket.
func TestServeProxy(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "p.sock")
	if err := ServeProxy(sock, []string{"bad host:x"}, nil, io.Discard); policy.ExitCode(err) != policy.ExitUsage {
		t.Errorf("bad rule: %v", err)
	}
	pr, pw, _ := os.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeProxy(sock, nil, nil, pw) }()
	line := make([]byte, 100)
	if _, err := pr.Read(line); err != nil || !strings.Contains(string(line), "listening on") {
		t.Fatalf("%q %v", line, err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v %v", fi, err)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("still serving after SIGTERM")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}
