package coordinator

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestSignalAsWaitIsAdmitted: a Ctrl-C that reaches a launch waiting for a
// slot while its last look finds one gives up as any other during the
// wait (nothing started, no entry, no ticket, 130). The wait returned
// admitted and left the signal on its channel: the member ran to its end.
// In a child process, as acbox run is: the primer, then the launch; the
// signal comes while the wait counts the backend's live sandboxes.
func TestSignalAsWaitIsAdmitted(t *testing.T) {
	if os.Getenv("ACBOX_WAIT_SIGNAL_CHILD") != "" {
		signalAsAdmittedChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalAsWaitIsAdmitted$", "-test.v")
	cmd.Env = append(os.Environ(), "ACBOX_WAIT_SIGNAL_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func signalAsAdmittedChild(t *testing.T) {
	caught := make(chan struct{})
	primeSignals(caught)
	<-caught
	r := newRig(t)
	sent := false
	r.native.onLive = func() {
		if sent {
			return
		}
		sent = true
		seen := make(chan os.Signal, 1)
		signal.Notify(seen, syscall.SIGINT)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-seen
		signal.Stop(seen)
		flushPrimer() // the wait's channel has it now
	}
	_, err := r.run(t, policy.Spec{Wait: "10s"})
	var in *Interrupted
	if !errors.As(err, &in) || in.ExitStatus() != 130 {
		t.Errorf("launch: %v, want it given up on SIGINT (130)", err)
	}
	if r.j.has("native.launch") {
		t.Error("the backend was asked to launch after the wait took a SIGINT")
	}
	r.gone(t, "sandbox1")
	if ts, _ := os.ReadDir(filepath.Join(r.l.Host.StateDir, "queue")); len(ts) != 0 {
		t.Errorf("tickets left: %v", ts)
	}
}
