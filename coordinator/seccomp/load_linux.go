package seccomp

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LoadThread installs the program on the calling OS thread only, setting
// no_new_privs on that thread first if it is not set yet. Children the thread
// forks inherit the filter; the process's other threads are not filtered.
//
// The caller must have called runtime.LockOSThread and must never unlock:
// both no_new_privs and the filter belong to the thread, and an unlocked
// thread would go back to the Go scheduler and filter whatever goroutine ran
// on it next. A goroutine that returns while locked takes its thread with it.
// This is also why the program is not loaded through libseccomp, whose
// NewFilter sets TSYNC and would filter every thread of the process.
func (p *Program) LoadThread() error {
	if p == nil || len(p.bpf) == 0 {
		return errors.New("seccomp: LoadThread on an empty program; use Build (bug)")
	}
	ins := p.insns()
	filter := make([]unix.SockFilter, len(ins))
	for i, in := range ins {
		filter[i] = unix.SockFilter{Code: in.code, Jt: in.jt, Jf: in.jf, K: in.k}
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return loadError(errno)
	}
	return nil
}

// setNoNewPrivs sets PR_SET_NO_NEW_PRIVS on the calling thread. Without it an
// unprivileged seccomp(SET_MODE_FILTER) fails with EACCES.
func setNoNewPrivs() error {
	on, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0, 0)
	if errno == 0 && on == 1 {
		return nil
	}
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("seccomp: %w", os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", errno))
	}
	return nil
}

func loadError(errno unix.Errno) error {
	err := os.NewSyscallError("seccomp(SECCOMP_SET_MODE_FILTER)", errno)
	switch errno {
	case unix.ENOSYS:
		return fmt.Errorf("%w: the kernel was built without CONFIG_SECCOMP (%w); use --backend docker", ErrUnsupported, err)
	case unix.EINVAL:
		// EINVAL is both "no CONFIG_SECCOMP_FILTER" and "bad program";
		// the embedded program is libseccomp's output, checked by its tests.
		return fmt.Errorf("%w: the kernel refused the filter (%w); it may lack CONFIG_SECCOMP_FILTER", ErrUnsupported, err)
	}
	return fmt.Errorf("seccomp: load: %w", err)
}
