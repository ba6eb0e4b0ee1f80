package nsjail

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// The child that makes a user's IPC namespace runs no code: pid 1 clones
// it into a new user namespace and a new IPC namespace with
// PTRACE_TRACEME, so its exec of this binary stops at the exec's SIGTRAP
// before the new image runs one instruction (no Go runtime start, which
// cost about 3 ms of each user launch). pid 1 writes the child's id maps
// (uid and gid 0 to the user's), opens its ns/ipc, and a thread of pid 1
// locked for the purpose joins that namespace (setns needs CAP_SYS_ADMIN
// in the namespace's owner, which pid 1 holds as the owner's uid in the
// parent namespace, and in its own) and writes the caps: an IPC sysctl is
// looked up in the writer's IPC namespace and is writable by the euid
// that is that namespace's uid 0, pid 1's own. The child is then killed
// and reaped, and the thread, never unlocked, ends with its goroutine (Go
// discards it): no other code of pid 1 runs in that namespace.
//
// The clone is made while pid 1's building waits (as the exec'd child's
// was): a fork copies pid 1's descriptor table, and until the child's
// exec closes them its copies hold pid 1's files open, so a build step
// running meanwhile found a file still open for writing and could not
// make /dev read-only (mount_setattr: EBUSY, 1 launch in 300 when the
// clone ran beside the whole build). What follows the clone (id maps,
// the writes, the kill) runs beside the rest of the build, and is
// collected before the member starts.

// errTraceRefused: the kernel refused PTRACE_TRACEME (Yama's
// ptrace_scope 3); the child then writes the caps itself (execIPCChild).
var errTraceRefused = errors.New("PTRACE_TRACEME refused")

// ipcMaker is the making of a user's IPC namespace on a thread of its own.
type ipcMaker struct {
	cloned chan struct{} // closed once the child was cloned, or will not be
	done   chan ipcMade  // the result (buffered)
}

type ipcMade struct {
	ns  ipcNamespace
	err error
}

// startIPCMaker makes the namespace for caps through p, and returns once
// its child is cloned; collect has the result.
func startIPCMaker(caps []ipcLimit, p ipcProc) *ipcMaker {
	m := &ipcMaker{cloned: make(chan struct{}), done: make(chan ipcMade, 1)}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends in the new namespace, with this goroutine
		ns, err := m.make(caps, p)
		m.done <- ipcMade{ns, err}
	}()
	<-m.cloned
	return m
}

// collect waits for the namespace, or why there is none.
func (m *ipcMaker) collect() (ipcNamespace, error) {
	r := <-m.done
	if r.err != nil {
		return ipcNamespace{fd: -1}, fmt.Errorf("a user's pid 1 writes them in an IPC namespace of its own, which failed: %w", r.err)
	}
	return r.ns, nil
}

// make runs on the locked thread, the traced child's tracer: the child is
// killed and reaped before the thread can end (a tracer's end would let
// it run on; its Pdeathsig, tied to the thread, would kill it then too).
func (m *ipcMaker) make(caps []ipcLimit, p ipcProc) (ipcNamespace, error) {
	defer closeProc(p)
	none := ipcNamespace{fd: -1}
	args, err := ipcArgs(caps)
	if err == nil {
		err = p.check()
	}
	if err != nil {
		close(m.cloned)
		return none, err
	}
	c, err := startTraced()
	if errors.Is(err, errTraceRefused) {
		defer close(m.cloned) // the whole exec'd child is a clone's time
		return execIPCChild(p, args)
	}
	close(m.cloned)
	if err != nil {
		return none, err
	}
	defer endTraced(c)
	return joinAndWrite(c.pid, p, caps)
}

// startTraced clones the child, stopped at its exec. Any EPERM is taken
// for a refused PTRACE_TRACEME: were the clone itself refused, the
// fallback's clone is refused too and says so.
//
// CLONE_VFORK|CLONE_VM are asked for here: Go adds them itself unless
// the clone makes a user namespace, where its child may wait for the
// parent to write the id maps (UidMappings), a deadlock under vfork. This
// child waits for nothing (no UidMappings: keep it so), and without vfork
// Go copies pid 1's page tables for a child that only execs (about 0.6 ms
// of each user launch).
func startTraced() (*child, error) {
	attr := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWIPC | unix.CLONE_VFORK | unix.CLONE_VM, Ptrace: true, Pdeathsig: syscall.SIGKILL}
	c, err := startChild("/proc/self/exe", []string{ipcChildArg0}, nil, attr)
	if errors.Is(err, syscall.EPERM) {
		err = fmt.Errorf("%w: %w", errTraceRefused, err)
	}
	return c, err
}

// joinAndWrite maps the child's ids, opens its namespace, joins it with
// this thread and writes the caps there.
func joinAndWrite(pid int, p ipcProc, caps []ipcLimit) (ipcNamespace, error) {
	if err := p.writeIDMaps(pid); err != nil {
		return ipcNamespace{fd: -1}, err
	}
	ns, err := p.openNS(pid)
	if err != nil {
		return ns, err
	}
	if err := unix.Setns(ns.fd, unix.CLONE_NEWIPC); err != nil {
		ns.close()
		return ns, fmt.Errorf("pid 1 joining it to write them: %w", err)
	}
	for _, c := range caps {
		if err := writeSysctlAt(p.kernel, kernelSysctlDir, c.Name, c.Cap); err != nil {
			ns.close()
			return ns, err
		}
	}
	return ns, nil
}

// endTraced kills the stopped child and reaps it; a traced child reports
// its stop to wait4 too, so it waits until the child has ended.
func endTraced(c *child) {
	c.Kill()
	for {
		var ws unix.WaitStatus
		if _, err := sys.Wait4(c.pid, &ws, 0, nil); err != nil || ws.Exited() || ws.Signaled() {
			break
		}
	}
	c.release()
}

// closeProc closes the maker's descriptor of the new /proc.
func closeProc(p ipcProc) {
	if p.proc >= 0 {
		sys.Close(p.proc)
	}
}
