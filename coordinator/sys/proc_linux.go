package sys

import "golang.org/x/sys/unix"

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
	return callErr("prctl "+op, func() error { return unix.Prctl(option, a2, a3, a4, a5) })
}
