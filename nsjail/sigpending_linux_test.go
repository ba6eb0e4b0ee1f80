package nsjail

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// floodMarker, as the member's last argument, makes this test binary's
// pid 1 wait after the member's start (afterMemberStart), so the member
// has used up its pending signals before pid 1 goes on.
const floodMarker = "acbox-test-flood-first"

// stallMarker makes it stall for a minute instead; stallFirstMarker
// makes it stall before it starts the member (beforeMemberStart).
const (
	stallMarker      = "acbox-test-stall"
	stallFirstMarker = "acbox-test-stall-first"
)

func init() {
	afterMemberStart = func(cfg *helperConfig) {
		switch {
		case slices.Contains(cfg.Plan.Command, floodMarker):
			time.Sleep(300 * time.Millisecond)
		case slices.Contains(cfg.Plan.Command, stallMarker):
			time.Sleep(time.Minute)
		}
	}
	beforeMemberStart = func(cfg *helperConfig) {
		if slices.Contains(cfg.Plan.Command, stallFirstMarker) {
			time.Sleep(time.Minute)
		}
	}
}

// floodSigpending queues blocked real-time signals to itself until the
// kernel refuses one, then exits.
const floodSigpending = `
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
n = 0
while n < 10000000 and libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) == 0:
    n += 1
print("held %d errno %d" % (n, ctypes.get_errno()), flush=True)
`

// TestMemberSigpendingFloodFirst: a member that uses up the pending
// signals it may queue before pid 1 has finished starting it must not
// wedge pid 1. pid 1's capability drop is a broadcast of a real-time
// signal to each of its threads (same user, same namespace as the member),
// which the kernel refuses once those are used up, and the Go runtime
// then spins forever. Done after the member's start, as it once was, this
// launch never reports ready and never reaps the member.
func TestMemberSigpendingFloodFirst(t *testing.T) {
	const py = "/usr/bin/python3" // a system directory the sandbox sees
	if _, err := os.Stat(py); err != nil {
		t.Fatal("python3 is needed (the integration tests need it too): " + err.Error())
	}
	plan := resolveFromRoot(t, policy.Spec{Command: []string{py, "-c", floodSigpending, floodMarker}})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		out, err := Launch(plan, Options{Stdout: w})
		w.Close()
		if err != nil {
			done <- result{-1, err}
			return
		}
		done <- result{out.Code, nil}
	}()
	select {
	case res := <-done:
		b := make([]byte, 256)
		n, _ := r.Read(b)
		if res.err != nil {
			t.Fatal("launch: " + res.err.Error())
		}
		if res.code != 0 || !strings.HasPrefix(string(b[:n]), "held ") {
			t.Fatalf("launch: code %d, member said %q", res.code, b[:n])
		}
	case <-time.After(30 * time.Second):
		t.Fatal("pid 1 did not finish within 30 s of a member that used up its pending signals first (wedged in its capability broadcast)")
	}
}

// TestSetupDeadline: a pid 1 that never reports ready is ended, and the
// launch fails closed with the cause, instead of holding the caller (and
// the signals held during setup) forever.
func TestSetupDeadline(t *testing.T) {
	old := setupDeadline
	setupDeadline = 500 * time.Millisecond
	defer func() { setupDeadline = old }()
	plan := resolveFromRoot(t, policy.Spec{Command: []string{"sh", "-c", "sleep 30", stallFirstMarker}})
	start := time.Now()
	_, err := Launch(plan, Options{})
	if err == nil || !errors.Is(err, policy.ErrCannotSandbox) || !strings.Contains(err.Error(), "did not report ready") {
		t.Fatalf("a stalled pid 1: got %q, want ErrCannotSandbox saying it did not report ready", fmt.Sprint(err))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the launch took %s to give up", d)
	}
}

// TestSetupDeadlineAfterFork: a pid 1 that started the member but never
// reports ready is ended at the deadline too, and the member is reported
// killed with it (137, with a started report), not as a launch that ran
// nothing.
func TestSetupDeadlineAfterFork(t *testing.T) {
	old := setupDeadline
	setupDeadline = 500 * time.Millisecond
	defer func() { setupDeadline = old }()
	plan := resolveFromRoot(t, policy.Spec{Command: []string{"sh", "-c", "sleep 30", stallMarker}})
	readies := 0
	out, err := Launch(plan, Options{OnReady: func(backend.Started) { readies++ }})
	if err != nil {
		t.Fatalf("a pid 1 stalled after the member's start: %v, want the member reported killed", err)
	}
	if out.Code != 137 || out.Report == nil || readies != 1 {
		t.Errorf("outcome %+v, started %d times; want 137 with the report, started once", *out, readies)
	}
}
