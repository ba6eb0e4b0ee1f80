package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// Open opens path (open(2)).
func Open(path string, flags int, perm uint32) (int, error) {
	return pathErrFD("open", path, func() (int, error) { return unix.Open(path, flags, perm) })
}

// Openat opens name relative to dirfd (openat(2)).
func Openat(dirfd int, name string, flags int, perm uint32) (int, error) {
	return pathErrFD("openat", name, func() (int, error) { return unix.Openat(dirfd, name, flags, perm) })
}

// Openat2 opens name relative to dirfd with resolve restrictions (openat2(2)).
func Openat2(dirfd int, name string, how *unix.OpenHow) (int, error) {
	return pathErrFD("openat2", name, func() (int, error) { return unix.Openat2(dirfd, name, how) })
}

// Mkdirat makes directory name under dirfd (mkdirat(2)).
func Mkdirat(dirfd int, name string, mode uint32) error {
	return pathErr("mkdirat", name, func() error { return unix.Mkdirat(dirfd, name, mode) })
}

// Mknodat makes node name under dirfd (mknodat(2)).
func Mknodat(dirfd int, name string, mode uint32, dev int) error {
	return pathErr("mknodat", name, func() error { return unix.Mknodat(dirfd, name, mode, dev) })
}

// Linkat makes name under newdirfd a hard link of old under olddirfd,
// not following a symlink (linkat(2)).
func Linkat(olddirfd int, old string, newdirfd int, name string) error {
	return pathErr("linkat", name, func() error { return unix.Linkat(olddirfd, old, newdirfd, name, 0) })
}

// Symlinkat makes link name under dirfd pointing at target (symlinkat(2)).
func Symlinkat(target string, dirfd int, name string) error {
	return pathErr("symlinkat", name, func() error { return unix.Symlinkat(target, dirfd, name) })
}

// Readlinkat reads link name under dirfd into buf (readlinkat(2)).
func Readlinkat(dirfd int, name string, buf []byte) (int, error) {
	return pathErrFD("readlinkat", name, func() (int, error) { return unix.Readlinkat(dirfd, name, buf) })
}

// Rmdir removes the empty directory path (rmdir(2)).
func Rmdir(path string) error {
	return pathErr("rmdir", path, func() error { return unix.Rmdir(path) })
}

// Stat fills st for path, following links (stat(2)).
func Stat(path string, st *unix.Stat_t) error {
	return pathErr("stat", path, func() error { return unix.Stat(path, st) })
}

// Fstat fills st for fd; name is its path, for the error (fstat(2)).
func Fstat(fd int, name string, st *unix.Stat_t) error {
	return pathErr("fstat", name, func() error { return unix.Fstat(fd, st) })
}

// Fstatfs fills st for the filesystem of fd (fstatfs(2)).
func Fstatfs(fd int, name string, st *unix.Statfs_t) error {
	return pathErr("fstatfs", name, func() error { return unix.Fstatfs(fd, st) })
}

// Dup duplicates fd (dup(2)).
func Dup(fd int) (int, error) {
	n, err := unix.Dup(fd) // dup does not sleep: no EINTR
	if err != nil {
		return -1, os.NewSyscallError("dup", err)
	}
	return n, nil
}

// DupCloexec duplicates fd close-on-exec (fcntl(2) F_DUPFD_CLOEXEC).
func DupCloexec(fd int) (int, error) {
	n, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) // does not sleep: no EINTR
	if err != nil {
		return -1, os.NewSyscallError("fcntl F_DUPFD_CLOEXEC", err)
	}
	return n, nil
}

// Close closes fd (close(2)). It is never retried: on Linux the descriptor
// is gone even when close reports EINTR, and a retry could close a
// descriptor another goroutine has just been given.
func Close(fd int) error {
	return os.NewSyscallError("close", unix.Close(fd))
}

// Chdir changes the working directory to path (chdir(2)).
func Chdir(path string) error {
	return pathErr("chdir", path, func() error { return unix.Chdir(path) })
}

// Fchdir changes the working directory to fd (fchdir(2)).
func Fchdir(fd int, name string) error {
	return pathErr("fchdir", name, func() error { return unix.Fchdir(fd) })
}

// Lstat fills st for path without following a final link (lstat(2)).
func Lstat(path string, st *unix.Stat_t) error {
	return pathErr("lstat", path, func() error { return unix.Lstat(path, st) })
}

// Statfs fills st for the filesystem holding path (statfs(2)).
func Statfs(path string, st *unix.Statfs_t) error {
	return pathErr("statfs", path, func() error { return unix.Statfs(path, st) })
}

// Renameat2 renames oldname under olddirfd to newname under newdirfd
// (renameat2(2)); the error is an *os.LinkError naming both.
func Renameat2(olddirfd int, oldname string, newdirfd int, newname string, flags uint) error {
	if err := retry(func() error { return unix.Renameat2(olddirfd, oldname, newdirfd, newname, flags) }); err != nil {
		return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: err}
	}
	return nil
}
