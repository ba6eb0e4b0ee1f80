package coordinator

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/coordinator/sys"
)

// killedBy waits for c (started, not yet waited for) to end and tells
// whether SIGKILL ended it.
func killedBy(t *testing.T, c *exec.Cmd, within time.Duration) bool {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
		return strings.Contains(c.ProcessState.String(), "killed")
	case <-time.After(within):
		return false
	}
}

// TestSandboxPin: what a stop or a --within watch kills. A backend that
// reports no host pid (docker, the daemon's pid not verified as the
// container's) is ended its own way and no pid is signalled; a reported
// pid is SIGKILLed through a pidfd (the backend's, duplicated: it may be
// closed after OnReady), and the backend's way is used only if that fails.
func TestSandboxPin(t *testing.T) {
	calls := 0
	end := func() error { calls++; return nil }
	var none sandboxPin
	none.set(backend.Started{Pid: 0, Kill: end})
	if !none.kill() || calls != 1 {
		t.Fatalf("no pid: kill %d times through the backend, want 1", calls)
	}
	if _, ok := none.start(os.Getpid()); ok {
		t.Error("a start time was read for a pid that is not pinned")
	}
	none.close()
	var failing sandboxPin
	failing.set(backend.Started{Kill: func() error { return errors.New("daemon gone") }})
	if failing.kill() {
		t.Error("a failed kill through the backend was reported done")
	}

	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Skip(err)
	}
	defer c.Process.Kill()
	fd, err := sys.PidfdOpen(c.Process.Pid)
	if err != nil {
		t.Skip(err)
	}
	var pinned sandboxPin
	pinned.set(backend.Started{Pid: c.Process.Pid, Pidfd: fd, Kill: end})
	sys.Close(fd) // the backend's, closed when its Launch returns
	defer pinned.close()
	if _, ok := pinned.start(c.Process.Pid); !ok {
		t.Error("no start time for the pinned pid 1")
	}
	if !pinned.kill() || calls != 1 {
		t.Fatalf("pinned pid: backend kills %d, want 1 (the first test's)", calls)
	}
	if !killedBy(t, c, 5*time.Second) {
		t.Error("the pinned pid 1 was not SIGKILLed")
	}
}

// TestStartedWithoutPid: a backend that reports no host pid leaves the
// registry entry without one (acbox stop then asks the backend) and the
// started event without "pid".
func TestStartedWithoutPid(t *testing.T) {
	r := newRig(t)
	r.docker.started = func(id string) backend.Started {
		return backend.Started{ID: id, Report: &policy.Report{}, Kill: func() error { return nil }}
	}
	r.docker.during = func(p *policy.Plan, io backend.LaunchIO) {
		if e, err := r.l.Registry.Get(io.ID); err != nil || e.HelperPid != 0 {
			t.Errorf("entry %+v, %v: want no pid 1 recorded", e, err)
		}
	}
	if _, err := r.run(t, policy.Spec{Backend: "docker"}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(r.events.String(), "\n")
	if !strings.Contains(first, `"started"`) || strings.Contains(first, `"pid"`) {
		t.Errorf("started event %s: want it without a pid", first)
	}
}

// enderBackend is a fake backend that can end a sandbox without its pid
// (backend.Ender).
type enderBackend struct {
	*fakeBackend
	end func(id string, o backend.Owner) error
}

func (b enderBackend) End(ctx context.Context, id string, o backend.Owner) error { return b.end(id, o) }

// TestStopWithoutPid: acbox stop of a sandbox with no pid 1 recorded
// (docker, the daemon's pid not verified), whose member ignores SIGTERM,
// ends it through its backend after the grace; its acbox then runs its
// checks and exits, and is not killed. A backend that cannot end it
// leaves only the owner's SIGKILL, and stop says the checks did not run.
func TestStopWithoutPid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ender  bool
		how    string
		killed bool
	}{
		{"through the backend", true, "its checks ran", false},
		{"no way to end it", false, "its checks after the run did not run", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			done := filepath.Join(t.TempDir(), "ended")
			ready := done + ".ready"
			owner := exec.Command("sh", "-c", `trap "" TERM; : > "$2"; while [ ! -e "$1" ]; do sleep 0.05; done`, "sh", done, ready)
			if err := owner.Start(); err != nil {
				t.Skip(err)
			}
			defer owner.Process.Kill()
			for end := time.Now().Add(10 * time.Second); !exists(ready); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the owner did not set its trap in 10 s")
				}
			}
			e, err := registry.NewEntry(&policy.Plan{Backend: "docker"}, "dock")
			if err != nil {
				t.Fatal(err)
			}
			e.OwnerPid = owner.Process.Pid
			if e.OwnerStart, err = registry.ProcStart(owner.Process.Pid); err != nil {
				t.Fatal(err)
			}
			if err := r.l.Registry.Register(e); err != nil {
				t.Fatal(err)
			}
			if tc.ender {
				r.l.Backends[1] = enderBackend{r.docker, func(id string, o backend.Owner) error {
					if id != "dock" || o.Pid != e.OwnerPid || o.Start != e.OwnerStart {
						return errors.New("not this sandbox")
					}
					return os.WriteFile(done, nil, 0o600) // the container ends; its acbox checks and exits
				}}
			}
			var out strings.Builder
			if err := r.l.Stop(t.Context(), "dock", 200*time.Millisecond, &out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.how) {
				t.Errorf("stop printed %q; want %q", out.String(), tc.how)
			}
			if got := killedBy(t, owner, 5*time.Second); got != tc.killed {
				t.Errorf("owner SIGKILLed: %v, want %v", got, tc.killed)
			}
		})
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
