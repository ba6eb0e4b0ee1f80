//go:build integration

package docker_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestSignalBeforeSupervise: a signal that reaches acbox after the member
// was released but before the parent began supervising is held and passed
// on; it must not end acbox with its default action (orphaning the
// container) or be lost.
func TestSignalBeforeSupervise(t *testing.T) {
	e := setup(t)
	_, rw := dirs(t)
	ready := filepath.Join(rw, "ready")
	spec := policy.Spec{Command: []string{"sh", "-c", "trap 'exit 42' HUP; touch " + ready + "; while :; do sleep 1; done"},
		Access: policy.Access{Write: []string{rw}}}
	hook := func() {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(ready); err == nil {
				// Without a handler in place this ends the test binary.
				syscall.Kill(os.Getpid(), syscall.SIGHUP)
				return
			}
		}
		t.Error("the member never became ready")
	}
	out, err := e.launch(t, spec, docker.Hooks{AfterRelease: hook})
	if err != nil {
		t.Fatal(err)
	}
	if out.Code != 42 {
		t.Fatalf("member exited %d, want 42 (its HUP trap)", out.Code)
	}
	e.noneLeft(t)
}

// TestSignalsFromCaller: a signal the caller caught before Launch (the
// launcher's hold, LaunchIO.Signals) is passed on once the member runs,
// as one during the setup is; SIGPIPE, which the hold catches too, is
// not. The backend's own catch began only after the daemon's checks and
// the container's creation (tens of milliseconds), and the launcher's
// hold took a signal sent meanwhile and dropped it: the member ran on.
func TestSignalsFromCaller(t *testing.T) {
	e := setup(t)
	sigs := make(chan os.Signal, 2)
	sigs <- syscall.SIGPIPE
	sigs <- syscall.SIGTERM
	start := time.Now()
	out, err := e.launchSignals(t, policy.Spec{Command: []string{"sleep", "30"}}, docker.Hooks{}, sigs)
	if err != nil {
		t.Fatal(err)
	}
	if out.Code != 128+int(syscall.SIGTERM) {
		t.Fatalf("member exited %d after %v, want %d (killed by the SIGTERM the caller caught)", out.Code, time.Since(start).Round(time.Millisecond), 128+int(syscall.SIGTERM))
	}
	e.noneLeft(t)
}
