package nsjail

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// child is pid 1 as the parent holds it: its pid, a pidfd that names it
// until the launch ends (so a signal never reaches a process that reused
// its pid), and its wait status once reaped.
//
// pid 1 is started with syscall.ForkExec, not os/exec: os.StartProcess
// first probes the kernel's pidfd support by cloning and reaping a
// throwaway child, one more process per launch (about 1 ms of CPU on the
// test VM), and the parent needs none of os/exec's plumbing: every
// descriptor it passes is an *os.File already.
type child struct {
	pid int
	ws  syscall.WaitStatus

	mu    sync.Mutex
	pidfd int // -1 once closed
}

// startChild execs path as argv[0] with files as descriptors 0, 1, 2, ...
// under attr (its PidFD is set here).
func startChild(path string, argv []string, files []*os.File, attr *syscall.SysProcAttr) (*child, error) {
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	c := &child{pidfd: -1}
	attr.PidFD = &c.pidfd
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: []string{}, Files: fds, Sys: attr})
	runtime.KeepAlive(files)
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	c.pid = pid
	if c.pidfd < 0 {
		// A kernel without CLONE_PIDFD (before 5.2, which Landlock's ABI
		// 6 rules out) returns none: without it no signal could reach pid
		// 1 safely, so it is ended by its pid, still unreaped, and the
		// launch refused.
		sys.Kill(pid, syscall.SIGKILL)
		var ws unix.WaitStatus
		sys.Wait4(pid, &ws, 0, nil)
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: errNoPidfd}
	}
	return c, nil
}

// errNoPidfd: the clone gave no pidfd.
var errNoPidfd = errors.New("the kernel returned no pidfd for the sandbox's pid 1 (CLONE_PIDFD needs Linux 5.2; acbox needs Landlock ABI 6, Linux 6.12)")

// Signal sends sig through the pidfd: after the child is reaped it fails
// with ESRCH and reaches nobody.
func (c *child) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return os.ErrInvalid
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pidfd < 0 {
		return os.ErrProcessDone
	}
	return sys.PidfdSignal(c.pidfd, unix.Signal(s))
}

// Kill is Signal(SIGKILL).
func (c *child) Kill() error { return c.Signal(syscall.SIGKILL) }

// Wait reaps the child (once; only the spawning goroutine calls it) and
// keeps its status; a failure is reported like os/exec's.
func (c *child) Wait() error {
	var ws unix.WaitStatus
	_, err := sys.Wait4(c.pid, &ws, 0, nil)
	c.ws = syscall.WaitStatus(ws)
	if err != nil {
		return err
	}
	if c.ws.Exited() && c.ws.ExitStatus() == 0 {
		return nil
	}
	return &exitError{ws: c.ws}
}

// fd is the pidfd (valid until the launch returns), or 0 once closed.
func (c *child) fd() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(c.pidfd, 0)
}

// release closes the pidfd once nothing can signal the child any more.
func (c *child) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pidfd >= 0 {
		sys.Close(c.pidfd)
		c.pidfd = -1
	}
}

// exitError is how pid 1 ended when it did not exit 0, worded as os/exec
// words it ("exit status 2", "signal: killed").
type exitError struct{ ws syscall.WaitStatus }

func (e *exitError) Error() string {
	switch {
	case e.ws.Exited():
		return "exit status " + strconv.Itoa(e.ws.ExitStatus())
	case e.ws.Signaled():
		return "signal: " + e.ws.Signal().String()
	}
	return "ended with wait status " + strconv.Itoa(int(e.ws))
}
