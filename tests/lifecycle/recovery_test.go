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

	"github.com/acbox/acbox/coordinator/registry"
)

// started is one `acbox run` left running.
type started struct {
	cmd *exec.Cmd
	id  string
}

// startSleepers starts n sandboxes in proxy mode (so each has a runtime
// directory with a socket) whose member is `sleep mark`, and waits until
// the registry lists them with their helpers.
func startSleepers(t *testing.T, r *runner, n int, mark string) ([]*exec.Cmd, []registry.Entry) {
	t.Helper()
	var cmds []*exec.Cmd
	var errs []*bytes.Buffer
	for range n {
		c := r.cmd("run", "--net", "proxy", "--", "sleep", mark)
		e := new(bytes.Buffer)
		c.Stderr = e
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, errs = append(cmds, c), append(errs, e)
	}
	t.Cleanup(func() {
		for i, c := range cmds {
			c.Process.Kill()
			c.Wait()
			if t.Failed() {
				t.Logf("sleeper %d (%s): %v; stderr:\n%s", i, mark, c.ProcessState, errs[i])
			}
		}
	})
	return cmds, r.waitPs(t, n)
}

// leftovers are the files a sandbox owns outside itself.
func leftovers(r *runner, es []registry.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, filepath.Join(r.state(), "sandboxes", e.ID+".json"),
			filepath.Join(r.state(), "run", e.ID, "proxy.sock"))
		out = append(out, cgroupsOf(e.HelperPid, e.ID)...)
	}
	return out
}

func killOwners(t *testing.T, cmds []*exec.Cmd, mark string) {
	t.Helper()
	for _, c := range cmds {
		c.Process.Kill()
		c.Wait()
	}
	// Pdeathsig killed each pid 1, and the kernel the rest of its pid namespace.
	waitGone(t, 5*time.Second, "sleep", mark)
}

// TestRecoveryAfterSIGKILL: owners killed with SIGKILL leave entries,
// runtime directories and (as root) cgroups; `acbox ps` shows none of them
// and reaps their files, and `acbox gc` removes the rest.
func TestRecoveryAfterSIGKILL(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		cmds, es := startSleepers(t, r, 3, "7301")
		files := leftovers(r, es)
		for _, f := range files {
			if !exists(f) {
				t.Fatalf("%s missing while the sandbox runs", f)
			}
		}
		killOwners(t, cmds, "7301")
		if got := r.ps(t); len(got) != 0 {
			t.Fatalf("acbox ps after SIGKILL of every owner: %+v", got)
		}
		for _, f := range files {
			if exists(f) {
				t.Errorf("%s left behind after ps reaped the dead owners", f)
			}
		}

		cmds, es = startSleepers(t, r, 2, "7302")
		files = leftovers(r, es)
		stray := filepath.Join(r.state(), "run", "deadbeef0000")
		os.Mkdir(stray, 0o700)
		os.Chown(stray, r.uid, r.gid)
		killOwners(t, cmds, "7302")
		out, errs, code := r.run(t, "gc")
		if code != 0 {
			t.Fatalf("acbox gc: exit %d: %s", code, errs)
		}
		for _, e := range es {
			if !strings.Contains(out, "removed sandbox "+e.ID) {
				t.Errorf("gc output does not name %s:\n%s", e.ID, out)
			}
		}
		for _, f := range append(files, stray) {
			if exists(f) {
				t.Errorf("%s left behind after acbox gc:\n%s", f, out)
			}
		}
		t.Logf("acbox gc:\n%s", out)
	})
}
