package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// Kill sends sig to pid (kill(2)).
func Kill(pid int, sig unix.Signal) error {
	return callErr("kill", func() error { return unix.Kill(pid, sig) })
}

// Flock applies or removes an advisory lock on fd (flock(2)); name is the
// locked file's path, for the error.
func Flock(fd int, name string, how int) error {
	return pathErr("flock", name, func() error { return unix.Flock(fd, how) })
}

// Prctl is prctl(2) with the option named in the error.
func Prctl(op string, option int, a2, a3, a4, a5 uintptr) error {
	return callErr("prctl("+op+")", func() error { return unix.Prctl(option, a2, a3, a4, a5) })
}

// Wait4 waits for pid (wait4(2)).
func Wait4(pid int, ws *unix.WaitStatus, options int, ru *unix.Rusage) (int, error) {
	n, err := retryFD(func() (int, error) { return unix.Wait4(pid, ws, options, ru) })
	if err != nil {
		return n, os.NewSyscallError("wait4", err)
	}
	return n, nil
}

// Getrlimit reads a resource limit (getrlimit(2)).
func Getrlimit(resource int, lim *unix.Rlimit) error {
	return callErr("getrlimit", func() error { return unix.Getrlimit(resource, lim) })
}

// Setrlimit sets a resource limit (setrlimit(2)).
func Setrlimit(resource int, lim *unix.Rlimit) error {
	return callErr("setrlimit", func() error { return unix.Setrlimit(resource, lim) })
}

// CloseOnExecFrom marks every descriptor from first up close-on-exec
// (close_range(2) with CLOSE_RANGE_CLOEXEC). It changes the whole process:
// call it only in a process that is about to exec something it must not
// leak descriptors to (the sandbox's pid 1), never from a library.
func CloseOnExecFrom(first uint) error {
	return callErr("close_range", func() error { return unix.CloseRange(first, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) })
}

// Sethostname sets the UTS namespace's host name (sethostname(2)).
func Sethostname(name string) error {
	return callErr("sethostname", func() error { return unix.Sethostname([]byte(name)) })
}

// Capset sets the calling thread's capability sets (capset(2)).
func Capset(hdr *unix.CapUserHeader, data *unix.CapUserData) error {
	return callErr("capset", func() error { return unix.Capset(hdr, data) })
}

// Sysinfo reads the system's memory and load figures (sysinfo(2)).
func Sysinfo(info *unix.Sysinfo_t) error {
	return callErr("sysinfo", func() error { return unix.Sysinfo(info) })
}

// Getgroups lists the calling process's supplementary groups (getgroups(2)).
func Getgroups() ([]int, error) {
	var gs []int
	err := callErr("getgroups", func() (err error) { gs, err = unix.Getgroups(); return err })
	return gs, err
}
