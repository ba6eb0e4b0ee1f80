//go:build integration

package lifecycle

import (
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestStop: a member that takes SIGTERM ends with it; one that ignores it
// is killed with its owner after the grace period. Either way every process
// of the sandbox is gone and so is its entry.
func TestStop(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		t.Run("SIGTERM", func(t *testing.T) {
			stopOne(t, r, []string{"sleep", "7303"}, "5s", "SIGTERM", 143)
		})
		t.Run("ignores SIGTERM", func(t *testing.T) {
			stopOne(t, r, []string{"sh", "-c", "trap '' TERM; sleep 7304 & wait; wait"}, "1s", "SIGKILL to its sandbox after 1s", 137)
		})
		t.Run("unknown id", func(t *testing.T) {
			_, errs, code := r.run(t, "stop", "feedfeedfeed")
			if code != policy.ExitUsage || !strings.Contains(errs, "acbox ps") {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if _, _, code := r.run(t, "stop", "../x"); code != policy.ExitUsage {
				t.Fatalf("a path as id: exit %d", code)
			}
		})
	})
}

func stopOne(t *testing.T, r *runner, member []string, grace, how string, wantCode int) {
	mark := member[len(member)-1]
	if member[0] == "sh" {
		mark = "7304"
	}
	owner := r.cmd(append([]string{"run", "--"}, member...)...)
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer owner.Process.Kill()
	es := r.waitPs(t, 1)
	waitFor(t, func() bool { return len(procsWith("sleep", mark)) > 0 })
	t0 := time.Now()
	out, errs, code := r.run(t, "stop", "--grace", grace, es[0].ID)
	if code != 0 || !strings.Contains(out, how) {
		t.Fatalf("acbox stop: exit %d, stdout %q, stderr %q; want %q", code, out, errs, how)
	}
	err := owner.Wait()
	if wantCode >= 0 && owner.ProcessState.ExitCode() != wantCode {
		t.Errorf("owner exit %v, want %d", err, wantCode)
	}
	waitGone(t, 2*time.Second, "sleep", mark)
	if es := r.ps(t); len(es) != 0 {
		t.Errorf("entries after stop: %+v", es)
	}
	t.Logf("stopped in %v: %s", time.Since(t0).Round(time.Millisecond), strings.TrimSpace(out))
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
