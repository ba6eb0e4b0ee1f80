package coordinator

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/coordinator/sys"
)

// sandboxPin holds what ends a running sandbox, taken when the backend
// reports it started, so that a stop can end the sandbox itself, not the
// acbox process that runs the checks after it: a pidfd on its pid 1 (the
// native backend's pid 1, the docker container's init where the backend
// verified its host pid), and the backend's own way to end it without a
// pid (docker: the Engine API), used when there is no pidfd or the signal
// fails. The zero value pins nothing.
type sandboxPin struct {
	mu      sync.Mutex
	fd      int // 0: not pinned (pidfds are never 0: stdin is open)
	backend func() error
}

// set pins the started sandbox; called once, from OnReady. A pidfd the
// backend opened before it verified the pid is duplicated; otherwise one
// is opened on the pid (natively this process's child, not yet reaped).
// Pid 0 (docker without a verified host pid) pins no pid: never a pid
// that may name another process.
func (p *sandboxPin) set(st backend.Started) {
	if p == nil {
		return
	}
	fd, err := -1, error(nil)
	switch {
	case st.Pid > 0 && st.Pidfd > 0:
		fd, err = sys.DupCloexec(st.Pidfd)
	case st.Pid > 0:
		fd, err = sys.PidfdOpen(st.Pid)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backend = st.Kill
	if err != nil || fd <= 0 {
		return
	}
	if p.fd > 0 {
		sys.Close(p.fd)
	}
	p.fd = fd
}

// start is the start time of pid, the pinned pid 1, for its registry
// entry: read, then the pidfd checked not readable (not exited), so the
// time read is the pinned process's. false without a pinned pid 1.
func (p *sandboxPin) start(pid int) (uint64, bool) {
	if p == nil || pid <= 0 {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd <= 0 {
		return 0, false
	}
	start, err := registry.ProcStart(pid)
	if err != nil {
		return 0, false
	}
	gone, err := sys.WaitReadable(p.fd, 0)
	return start, err == nil && !gone
}

// kill SIGKILLs the pinned pid 1, which ends its pid namespace (natively)
// or its container, or, without one or when the signal fails, ends the
// sandbox the backend's way; false if neither could be done.
func (p *sandboxPin) kill() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd > 0 && sys.PidfdSignal(p.fd, unix.SIGKILL) == nil {
		return true
	}
	return p.backend != nil && p.backend() == nil
}

// close releases the pidfd, once the sandbox has ended and no watch can
// use it any more.
func (p *sandboxPin) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd > 0 {
		sys.Close(p.fd)
		p.fd = 0
	}
	p.backend = nil
}
