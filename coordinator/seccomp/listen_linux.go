package seccomp

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LoadListener installs p on the calling OS thread, as LoadThread does,
// with SECCOMP_FILTER_FLAG_NEW_LISTENER, and returns the notification
// descriptor (close-on-exec, so a member exec'd from the thread never
// holds it). The caller hands it to a supervisor on another thread.
func (p *Program) LoadListener() (int, error) {
	ins := p.insns()
	filter := make([]unix.SockFilter, len(ins))
	for i, in := range ins {
		filter[i] = unix.SockFilter{Code: in.code, Jt: in.jt, Jf: in.jf, K: in.k}
	}
	if err := setNoNewPrivs(); err != nil {
		return -1, err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		err := os.NewSyscallError("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)", errno)
		if errno == unix.EINVAL || errno == unix.ENOSYS {
			return -1, fmt.Errorf("%w: the kernel has no seccomp user notification (Linux 5.0): %w", ErrUnsupported, err)
		}
		return -1, fmt.Errorf("seccomp: load the listen filter: %w", err)
	}
	return int(fd), nil
}
