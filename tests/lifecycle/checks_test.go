//go:build integration

package lifecycle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStopRunsChecks: `acbox stop` of a sandbox whose member ignores
// SIGTERM and plants a git redirect in its trap kills the sandbox, not its
// acbox, which then moves the redirect aside and exits 137. Before, stop
// SIGKILLed the acbox and the redirect outlived every check.
func TestStopRunsChecks(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		proj := r.project(t)
		owner := r.cmd("run", "-w", proj, "--cwd", proj, "--", "sh", "-c", `trap "git init -q src" TERM; sleep 7306 & wait; wait`)
		var errb bytes.Buffer
		owner.Stderr = &errb
		if err := owner.Start(); err != nil {
			t.Fatal(err)
		}
		defer owner.Process.Kill()
		es := r.waitPs(t, 1)
		waitFor(t, func() bool { return len(procsWith("sleep", "7306")) > 0 })
		out, errs, code := r.run(t, "stop", "--grace", "1s", es[0].ID)
		if code != 0 || !strings.Contains(out, "its checks ran") {
			t.Fatalf("acbox stop: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		owner.Wait()
		if c := owner.ProcessState.ExitCode(); c != 137 {
			t.Errorf("owner exit %d, want 137 (the member killed, acbox not); stderr: %s", c, errb.String())
		}
		if exists(filepath.Join(proj, "src", ".git")) {
			t.Errorf("src/.git planted on SIGTERM outlived the stop unchecked; stderr: %s", errb.String())
		}
	})
}

// TestWithinChildChecked: a child launched --within A whose member ignores
// SIGTERM and plants a git redirect after A's member has exited: the
// child's sandbox is killed after the grace and the child's own checks move
// the redirect aside (exit 137); A's checks wait for the child and A ends
// after it. Before, the child's acbox was SIGKILLed and the redirect
// outlived both sandboxes' checks.
func TestWithinChildChecked(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		proj := r.project(t)
		lead := r.cmd("run", "-w", proj, "--cwd", proj, "--", "sh", "-c", `until [ -e go ]; do sleep 0.1; done; touch leaddone`)
		var leadErr, childErr bytes.Buffer
		lead.Stderr = &leadErr
		if err := lead.Start(); err != nil {
			t.Fatal(err)
		}
		defer lead.Process.Kill()
		es := r.waitPs(t, 1)
		child := r.cmd("run", "--within", es[0].ID, "-w", proj, "--cwd", proj, "--", "sh", "-c",
			`trap "" TERM; touch childready; until [ -e leaddone ]; do sleep 0.1; done; sleep 1; git init -q src; sleep 60`)
		child.Stderr = &childErr
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		defer child.Process.Kill()
		waitFor(t, func() bool { return exists(filepath.Join(proj, "childready")) })
		if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		childDone, leadDone := ended(child), ended(lead)
		var childAt, leadAt time.Time
		for childAt.IsZero() || leadAt.IsZero() {
			select {
			case childAt = <-childDone:
			case leadAt = <-leadDone:
			case <-time.After(60 * time.Second):
				t.Fatalf("not ended after 60 s; lead: %s child: %s", leadErr.String(), childErr.String())
			}
		}
		if c := child.ProcessState.ExitCode(); c != 137 {
			t.Errorf("child exit %d, want 137 (its sandbox killed, its acbox not); stderr: %s", c, childErr.String())
		}
		if exists(filepath.Join(proj, "src", ".git")) {
			t.Errorf("src/.git planted by the child after its lead ended outlived every check; child: %s", childErr.String())
		}
		if leadAt.Before(childAt) {
			t.Errorf("the lead ended %v before its --within child: its checks did not wait for it; lead: %s", childAt.Sub(leadAt), leadErr.String())
		}
	})
}

// project makes a git repository owned by the runner's user, for a write
// grant.
func (r *runner) project(t *testing.T) string {
	t.Helper()
	proj := filepath.Join(r.base, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	filepath.Walk(proj, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, r.uid, r.gid) })
	return proj
}

// ended waits for c in the background and sends the time it exited.
func ended(c *exec.Cmd) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() { c.Wait(); at <- time.Now() }()
	return at
}
