//go:build integration

package lifecycle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPid1KilledMemberRan: the sandbox's pid 1 SIGKILLed from outside
// while the member runs, as the memory cgroup's OOM killer did when the
// member's memory was socket buffers (charged to no process), is the
// member's death: acbox exits 137, not 126 (which says nothing ran, and
// has a client run the command again elsewhere), the events are started
// then exited with the exit scan, and the checks after the run move aside
// the git redirect the member planted. Root runs it under --memory (a
// cgroup of its own).
func TestPid1KilledMemberRan(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		proj := r.project(t)
		args := []string{"run", "--status-fd", "3", "-w", proj, "--cwd", proj}
		if r.uid == 0 {
			args = append(args, "--memory", "128MiB")
		}
		c := r.cmd(append(args, "--", "sh", "-c", "git init -q src && exec sleep 7313")...)
		evf, err := os.Create(filepath.Join(r.base, "events"))
		if err != nil {
			t.Fatal(err)
		}
		defer evf.Close()
		var errb bytes.Buffer
		c.Stderr, c.ExtraFiles = &errb, []*os.File{evf}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
		e := r.waitPs(t, 1)[0]
		waitFor(t, func() bool { return len(procsWith("sleep", "7313")) > 0 })
		syscall.Kill(e.HelperPid, syscall.SIGKILL) // as the OOM killer's pick
		c.Wait()
		if code := c.ProcessState.ExitCode(); code != 137 {
			t.Errorf("exit %d, want 137 (the member killed with its pid 1); stderr: %s", code, errb.String())
		}
		if !strings.Contains(errb.String(), "pid 1 was killed by signal 9 while the member ran") {
			t.Errorf("stderr does not say pid 1 was killed: %s", errb.String())
		}
		if exists(filepath.Join(proj, "src", ".git")) {
			t.Errorf("src/.git planted by the member outlived the checks after the run; stderr: %s", errb.String())
		}
		b, _ := os.ReadFile(evf.Name())
		var kinds []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var ev struct {
				Event    string          `json:"event"`
				ExitScan json.RawMessage `json:"exit_scan"`
			}
			json.Unmarshal([]byte(line), &ev)
			kinds = append(kinds, ev.Event)
			if ev.Event == "exited" && len(ev.ExitScan) == 0 {
				t.Errorf("exited without its exit scan: %s", line)
			}
		}
		if strings.Join(kinds, " ") != "started exited" {
			t.Errorf("events %q, want started then exited:\n%s", kinds, b)
		}
	})
}
