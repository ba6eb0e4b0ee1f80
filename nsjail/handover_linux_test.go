package nsjail_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

// TestSignalBeforeBackendCatch: a signal that reaches `acbox run` after
// the launcher's hold caught it and before the backend has begun (while
// the grants are opened, a few milliseconds) is passed on to the member
// once it runs, as one during the rest of the setup is. It was taken by
// the hold and lost: the member ran to its end and acbox exited 0. The
// launch is the CLI's (the primer, the launcher, the native backend); the
// backend raises the signal as its first step and waits until the
// process has taken it. Each signal runs in a child process.
func TestSignalBeforeBackendCatch(t *testing.T) {
	if n, _ := strconv.Atoi(os.Getenv("ACBOX_HANDOVER_SIGNAL")); n != 0 {
		handoverChild(t, syscall.Signal(n))
		return
	}
	if _, err := nsjail.Launch(planFor(t, t.TempDir(), "true"), quiet(t)); err != nil {
		t.Skipf("no sandbox on this host: %v", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalBeforeBackendCatch$")
			cmd.Env = append(os.Environ(), "ACBOX_HANDOVER_SIGNAL="+strconv.Itoa(int(sig)))
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			want := fmt.Sprintf("member's status %d", 128+int(sig))
			if err != nil || !strings.Contains(string(out), want) {
				t.Fatalf("want %q (the member killed by %v) in the child's output, got %v after %v:\n%s", want, sig, err, took.Round(time.Millisecond), out)
			}
		})
	}
}

// handoverChild launches `sleep 10` as `acbox run` does and prints the
// member's status.
func handoverChild(t *testing.T, sig syscall.Signal) {
	coordinator.PrimeSignals()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	h.StateDir = t.TempDir() // admission counts this launch only
	if err := os.Chmod(h.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.OpenRegistry(h.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	grant := t.TempDir()
	h.Cwd = grant
	l := &coordinator.Launcher{Host: h, Registry: reg, Backends: []backend.Backend{signalFirst{sig: sig}}}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	spec := policy.Spec{Backend: "native", Command: []string{"sleep", "10"}, Access: policy.Access{Write: []string{grant}}}
	r, err := l.Run(context.Background(), coordinator.Request{Spec: spec, Stdio: coordinator.Stdio{In: null, Out: os.Stdout, Err: os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("member's status %d\n", r.Code)
}

// signalFirst is the native backend, but its Launch first has the process
// take sig: after the launcher's hold, before anything of the backend's.
type signalFirst struct {
	nsjail.Backend
	sig syscall.Signal
}

func (b signalFirst) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	// The runtime hands a signal to every channel that wants it in one
	// pass: once seen has it, so has the hold's, and no later catch can.
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, b.sig)
	syscall.Kill(os.Getpid(), b.sig)
	<-seen
	signal.Stop(seen)
	return b.Backend.Launch(p, io)
}
