//go:build integration

package lifecycle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryTaskInItsCgroup: where a sandbox gets its own cgroup (root on a
// host with cgroups), every thread of pid 1 and of every process below it
// is in the sandbox's leaves, and no thread of the acbox process that runs
// it is. On cgroup v1, pid 1 moves its threads in one by one (each writes
// "0" to a tasks file): a thread missed there would leave pid 1, or a
// member forked from that thread, outside the limits, and a thread of the
// parent moved by mistake would stay in a leaf that then cannot be
// removed. The run ends with `acbox stop`, after which both leaves are
// gone (a SIGKILL of the owner would leave them to `acbox gc`).
func TestEveryTaskInItsCgroup(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root gets a cgroup of its own on this host (v1, not delegated)")
	}
	if !exists("/sys/fs/cgroup/pids") && !exists("/sys/fs/cgroup/cgroup.controllers") {
		t.Skip("no cgroup hierarchy")
	}
	eachUser(t, func(t *testing.T, r *runner) {
		if r.uid != 0 {
			return // rlimits only, no cgroup
		}
		c := r.cmd("run", "--", "sh", "-c", "sleep 30 & sleep 30 & wait")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait(); r.ps(t) }() // ps reaps a killed owner's cgroups
		e := r.waitPs(t, 1)[0]
		leaf := "/acbox-" + e.ID
		dirs := cgroupsOf(e.HelperPid, e.ID)
		var procs []int
		deadline := time.Now().Add(10 * time.Second)
		for len(procs) < 4 && time.Now().Before(deadline) { // pid 1, sh, two sleeps
			time.Sleep(50 * time.Millisecond)
			procs = descendants(e.HelperPid)
		}
		if len(procs) < 4 {
			t.Fatalf("found %d processes below pid 1 (%d); want 4", len(procs), e.HelperPid)
		}
		want := 1 // cgroup v2: one leaf
		if exists("/sys/fs/cgroup/pids") {
			want = 2 // v1: memory and pids
		}
		n := 0
		for _, pid := range procs {
			for _, tid := range tasks(pid) {
				n++
				if got := leaves(pid, tid, leaf); got < want {
					t.Errorf("task %d of pid %d is in %d of the sandbox's %d leaves:\n%s", tid, pid, got, want, taskCgroup(pid, tid))
				}
			}
		}
		for _, tid := range tasks(c.Process.Pid) {
			if got := leaves(c.Process.Pid, tid, leaf); got != 0 {
				t.Errorf("thread %d of the acbox process is in the sandbox's cgroup:\n%s", tid, taskCgroup(c.Process.Pid, tid))
			}
		}
		t.Logf("%d tasks in %d processes checked, all in %s", n, len(procs), leaf)
		stopRemoves(t, r, c, e.ID, dirs)
	})
}

// stopRemoves stops the sandbox id run by c and checks that its cgroup
// directories dirs (memory and pids) are gone once c has exited.
func stopRemoves(t *testing.T, r *runner, c *exec.Cmd, id string, dirs []string) {
	t.Helper()
	if len(dirs) < 1 || (exists("/sys/fs/cgroup/pids") && len(dirs) < 2) {
		t.Fatalf("pid 1 is in %d sandbox cgroups %v; want memory and pids", len(dirs), dirs)
	}
	if _, errs, code := r.run(t, "stop", id); code != 0 {
		t.Fatalf("acbox stop: exit %d: %s", code, errs)
	}
	c.Wait()
	for _, d := range dirs {
		if exists(d) {
			t.Errorf("%s left behind after acbox stop", d)
		}
	}
}

// descendants returns pid and every process below it.
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		for _, tid := range tasks(out[i]) {
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(out[i]), "task", strconv.Itoa(tid), "children"))
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

func tasks(pid int) []int {
	ents, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func taskCgroup(pid, tid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "cgroup"))
	return string(b)
}

// leaves counts the lines of a task's cgroup file that end in leaf.
func leaves(pid, tid int, leaf string) int {
	n := 0
	for _, l := range strings.Split(taskCgroup(pid, tid), "\n") {
		if strings.HasSuffix(l, leaf) {
			n++
		}
	}
	return n
}
