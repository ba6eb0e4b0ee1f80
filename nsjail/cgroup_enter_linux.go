package nsjail

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// pid 1 enters its cgroup v1 leaves itself. The parent used to write pid
// 1's pid to each leaf's cgroup.procs; moving a whole thread group takes the
// kernel's threadgroup lock for writing, which waits for an RCU grace
// period (6-9 ms of a quiet root launch on the test VM, more than pid 1's
// whole setup). A thread that writes "0" to a v1 tasks file moves only
// itself and skips that lock, so every thread of pid 1 writes "0" (one
// all-thread broadcast per leaf); a thread started later starts in the
// cgroups of the thread that starts it, so nothing of pid 1, and nothing it
// forks, is left outside. No thread of the parent ever leaves its own
// cgroup (design.md). A cgo build (the tests' binaries) has no all-thread
// broadcast this early, and moves its whole thread group through
// cgroup.procs, paying the wait.

// enterCgroups moves every thread of pid 1 into the leaves whose
// directories are fds, closes them, and checks /proc/self/cgroup for id's
// leaves. Any failure ends the launch: a limit reported in force must be.
func enterCgroups(fds []int, id string) error {
	for _, fd := range fds {
		err := enterLeaf(fd)
		sys.Close(fd)
		if err != nil {
			return &stepError{step: "enter cgroup", err: fmt.Errorf("moving pid 1 into the sandbox's cgroup: %w", err)}
		}
	}
	if len(fds) == 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return &stepError{step: "enter cgroup", err: fmt.Errorf("checking pid 1's cgroup: %w", err)}
	}
	if !inLeaves(b, id, len(fds)) {
		return &stepError{step: "enter cgroup", err: fmt.Errorf("pid 1 is not in its cgroup %s%s:\n%s", leafPrefix, id, b)}
	}
	return nil
}

// thisThread is what a thread writes to a v1 tasks file to move itself. A
// package variable: the other threads read it while the caller's stack may
// move, so its address must not be on a stack.
var thisThread = [1]byte{'0'}

// enterLeaf moves every thread of pid 1 into the leaf dir. The kernel
// checks the opener's credentials: pid 1's, the host's root or the
// cgroup's owner, as its parent's.
func enterLeaf(dir int) error {
	fd, err := sys.Openat(dir, "tasks", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	// Raw on purpose: the write must run on every thread, which
	// coordinator/sys cannot do.
	n, _, e := syscall.AllThreadsSyscall(unix.SYS_WRITE, uintptr(fd), ptrByte(&thisThread[0]), 1)
	sys.Close(fd)
	if e == unix.ENOTSUP {
		return enterWhole(dir)
	}
	if e != 0 {
		return os.NewSyscallError("write tasks", e)
	}
	if n != 1 {
		return errors.New("short write to tasks")
	}
	return nil
}

// enterWhole moves pid 1's whole thread group at once (a cgo build).
func enterWhole(dir int) error {
	fd, err := sys.Openat(dir, "cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	_, err = sys.Write(fd, "cgroup.procs", []byte("0"))
	sys.Close(fd)
	return err
}
