//go:build soak

package soak

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acbox/acbox/nsjail"
)

// watchCgroups samples, every millisecond until the returned stop is
// called, the threads of this process (the launching parent) and of every
// sandbox whose pid 1 has forked: no parent thread may sit in a sandbox
// cgroup (acbox-<id>), and every task of such a sandbox must be in both its
// leaves (memory and pids, cgroup v1 as root). This is where moving a
// parent thread (design.md, the fifth session) showed up: idle threads of
// the parent in sandbox cgroups under 20 concurrent launches. stop reports
// what it saw.
func watchCgroups(t *testing.T) (stop func()) {
	if os.Getuid() != 0 {
		return func() {}
	}
	self := strconv.Itoa(os.Getpid())
	var wg sync.WaitGroup
	done := make(chan struct{})
	var bad []string
	parent, sandbox := 0, 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			for _, tid := range threads(self) {
				parent++
				if n, _ := inLeaves(self, tid); n > 0 {
					bad = append(bad, "parent thread "+tid+" is in a sandbox cgroup")
				}
			}
			for _, pid1 := range kidsOf(self) {
				if isHelper(pid1) {
					bad = append(bad, checkSandbox(pid1, &sandbox)...)
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		t.Logf("cgroups sampled: %d parent threads, %d sandbox tasks", parent, sandbox)
		for i, b := range bad {
			if i == 10 {
				t.Errorf("... and %d more", len(bad)-i)
				break
			}
			t.Error(b)
		}
	}
}

// checkSandbox checks every task below pid1 once pid1 has forked (before
// that, pid 1 may not have entered yet).
func checkSandbox(pid1 string, n *int) []string {
	procs := kidsOf(pid1)
	if len(procs) == 0 {
		return nil
	}
	for i := 0; i < len(procs) && len(procs) < 100; i++ {
		procs = append(procs, kidsOf(procs[i])...)
	}
	procs = append(procs, pid1)
	var bad []string
	want := ""
	for _, p := range procs {
		for _, tid := range threads(p) {
			got, leaf := inLeaves(p, tid)
			if got < 0 {
				continue // exiting: v1 shows it in the root cgroup
			}
			*n++
			if want == "" {
				want = leaf
			}
			if got < 2 || leaf != want {
				// A task being forked shows in /proc a moment before the
				// kernel gives it its parent's cgroups: look again.
				time.Sleep(2 * time.Millisecond)
				if got, leaf = inLeaves(p, tid); got < 0 || (got == 2 && leaf == want) {
					continue
				}
				bad = append(bad, "task "+tid+" of pid "+p+" (pid 1 "+pid1+") is in "+strconv.Itoa(got)+" leaves "+leaf+", want 2 of "+want)
			}
		}
	}
	return bad
}

// isHelper says whether pid is a sandbox's pid 1 (argv[0] acbox-init).
func isHelper(pid string) bool {
	b, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	arg0, _, _ := strings.Cut(string(b), "\x00")
	return filepath.Base(arg0) == nsjail.HelperArg0
}

func threads(pid string) []string {
	ents, _ := os.ReadDir(filepath.Join("/proc", pid, "task"))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// children lists the children of every thread of pid.
func kidsOf(pid string) []string {
	var out []string
	for _, tid := range threads(pid) {
		b, _ := os.ReadFile(filepath.Join("/proc", pid, "task", tid, "children"))
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// inLeaves counts the lines of a task's cgroup file in a sandbox cgroup
// and returns the last such cgroup's name; -1 for an exiting task.
func inLeaves(pid, tid string) (int, string) {
	dir := filepath.Join("/proc", pid, "task", tid)
	b, err := os.ReadFile(filepath.Join(dir, "cgroup"))
	st, _ := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil || exiting(string(st)) {
		return -1, ""
	}
	n, leaf := 0, ""
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.LastIndex(l, "/acbox-"); i >= 0 {
			n, leaf = n+1, l[i:]
		}
	}
	return n, leaf
}

// exiting reads PF_EXITING (0x4) and the state from a task's stat.
func exiting(stat string) bool {
	i := strings.LastIndex(stat, ")")
	if i < 0 {
		return true
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 7 {
		return true
	}
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return flags&0x4 != 0 || f[0] == "Z" || f[0] == "X"
}
