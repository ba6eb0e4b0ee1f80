package nsjail_test

import (
	"bufio"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/nsjail"
)

// TestSignalBeforeSupervise: a signal that reaches acbox after the member
// was released but before the parent began supervising (the window the CI
// run of 2026-11-30 hit with SIGHUP) is held and delivered to the member;
// it must neither kill acbox with its default action nor be lost.
func TestSignalBeforeSupervise(t *testing.T) {
	dir := t.TempDir()
	plan := planFor(t, dir, "trap 'exit 42' HUP; echo ready; while :; do sleep 1; done")
	out := pipeFile(t)
	opt := nsjail.Options{Stdout: out.w, Stderr: os.Stderr}
	opt.SetAfterRelease(func() {
		if !awaitLine(out.r, "ready", 15*time.Second) {
			t.Error("the member never printed ready")
			return
		}
		// Without a handler in place this ends the test binary.
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
	})
	res, err := nsjail.Launch(plan, opt)
	out.w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 42 {
		t.Fatalf("member exited %d, want 42 (its HUP trap)", res.Code)
	}
}

// awaitLine reads r until a line equal to want, or gives up after d.
func awaitLine(r *os.File, want string, d time.Duration) bool {
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == want {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(d):
		return false
	}
}
