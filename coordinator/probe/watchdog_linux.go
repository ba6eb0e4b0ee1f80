package probe

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
)

// watchdog ends the sandbox if it outlives r.Watchdog: SIGKILL of its
// pid 1 (native: the helper; docker: the container's init, where the
// backend verified its host pid) through a pidfd taken at OnReady, else
// the backend's own kill (docker: through the Engine API). A pid 0 is
// never signalled: kill(0) would reach acbox's own process group. stop
// must be called once Launch returns.
func (r *Runner) watchdog() (onReady func(backend.Started), stop func()) {
	d := r.Watchdog
	if d == 0 {
		d = 2 * time.Minute
	}
	var mu sync.Mutex
	var t *time.Timer
	fd := -1
	onReady = func(st backend.Started) {
		mu.Lock()
		defer mu.Unlock()
		fd = pidfdOf(st)
		t = time.AfterFunc(d, func() {
			mu.Lock()
			defer mu.Unlock()
			if fd >= 0 && unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
				return
			}
			if st.Kill != nil {
				st.Kill()
			}
		})
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if t != nil {
			t.Stop()
		}
		if fd >= 0 {
			unix.Close(fd)
			fd = -1
		}
	}
	return onReady, stop
}

// pidfdOf is a pidfd of the started sandbox's pid 1: the backend's,
// duplicated, else one opened on its pid; -1 without a pid.
func pidfdOf(st backend.Started) int {
	if st.Pid <= 0 {
		return -1
	}
	if st.Pidfd > 0 {
		if fd, err := unix.FcntlInt(uintptr(st.Pidfd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
			return fd
		}
		return -1
	}
	fd, err := unix.PidfdOpen(st.Pid, 0)
	if err != nil {
		return -1
	}
	return fd
}
