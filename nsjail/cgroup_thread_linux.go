package nsjail

import "path/filepath"

// On cgroup v1 a process cannot be cloned into a cgroup, and moving one in
// by pid (cgroup.procs) takes the kernel's threadgroup lock for writing,
// which waits for an RCU grace period: 15 ms on the test VM, most of a
// root launch's wall time. A thread that moves only itself ("0" written to
// a v1 tasks file) skips that lock (kernel/cgroup/cgroup.c,
// cgroup_procs_write_start), and a child inherits the cgroups of the thread
// that cloned it. So the locked thread that spawns the helper enters the
// sandbox's leaves, clones the helper, which starts inside (as with
// CLONE_INTO_CGROUP on v2, its cgroup namespace is rooted at its leaf), and
// goes home. If entering fails, place() moves the helper by pid as before.

// enterThread moves the calling thread, which must be locked to its
// goroutine, into every leaf of a v1 cgroup. It reports whether it did; on
// false the thread is where it was.
func (c *cgroup) enterThread() bool {
	if c.mode != "cgroup v1" || len(c.homes) != len(c.dirs) {
		return false
	}
	for i, d := range c.dirs {
		if writeFile(filepath.Join(d, "tasks"), "0") != nil {
			c.leaveThread(i)
			return false
		}
	}
	c.entered = true
	return true
}

// leaveThread moves the calling thread back to its own cgroup in the first
// n hierarchies. On error the caller must let the thread die (exit its
// locked goroutine without unlocking), so no thread of acbox stays counted
// in the sandbox's cgroup.
func (c *cgroup) leaveThread(n int) error {
	var first error
	for i := 0; i < n; i++ {
		if err := writeFile(filepath.Join(c.homes[i], "tasks"), "0"); err != nil && first == nil {
			first = err
		}
	}
	return first
}
