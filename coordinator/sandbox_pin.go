package coordinator

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// sandboxPin holds a pidfd on a running sandbox's pid 1 (the native
// backend's pid 1, the docker container's init), opened when the backend
// reports it started, so that a stop can end the sandbox itself, not the
// acbox process that runs the checks after it. The zero value pins
// nothing.
type sandboxPin struct {
	mu sync.Mutex
	fd int // 0: not pinned (pidfds are never 0: stdin is open)
}

// set pins pid; called once, from OnReady.
func (p *sandboxPin) set(pid int) {
	if p == nil || pid <= 0 {
		return
	}
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd > 0 {
		sys.Close(p.fd)
	}
	p.fd = fd
}

// kill SIGKILLs the pinned pid 1, which ends its pid namespace (natively)
// or its container; false if nothing is pinned or the signal failed.
func (p *sandboxPin) kill() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fd > 0 && sys.PidfdSignal(p.fd, unix.SIGKILL) == nil
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
}
