package sys

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// The calls of a walk that never follows a link: everything relative to a
// directory descriptor, each error naming the entry.

// Openat opens path relative to dirfd (openat(2)).
func Openat(dirfd int, path string, flags int, mode uint32) (int, error) {
	fd := -1
	err := pathErr("openat", path, func() (err error) { fd, err = unix.Openat(dirfd, path, flags, mode); return })
	return fd, err
}

// Openat2 opens path relative to dirfd with open flags and RESOLVE_*
// flags (openat2(2)).
func Openat2(dirfd int, path string, flags int, resolve uint64) (int, error) {
	fd := -1
	how := &unix.OpenHow{Flags: uint64(flags), Resolve: resolve}
	err := pathErr("openat2", path, func() (err error) { fd, err = unix.Openat2(dirfd, path, how); return })
	return fd, err
}

// Fstat stats the open descriptor fd (fstat(2)).
func Fstat(fd int, st *unix.Stat_t) error {
	return pathErr("fstat", fdName(fd), func() error { return unix.Fstat(fd, st) })
}

// Fstatat stats path relative to dirfd (fstatat(2)).
func Fstatat(dirfd int, path string, st *unix.Stat_t, flags int) error {
	return pathErr("fstatat", path, func() error { return unix.Fstatat(dirfd, path, st, flags) })
}

// Faccessat checks access to path relative to dirfd (faccessat2(2)).
func Faccessat(dirfd int, path string, mode uint32, flags int) error {
	return pathErr("faccessat", path, func() error { return unix.Faccessat(dirfd, path, mode, flags) })
}

// Readlinkat reads the target of the link path relative to dirfd
// (readlinkat(2)).
func Readlinkat(dirfd int, path string, buf []byte) (int, error) {
	n := 0
	err := pathErr("readlinkat", path, func() (err error) { n, err = unix.Readlinkat(dirfd, path, buf); return })
	return n, err
}

// FchmodPath changes the mode of the inode open at fd, which may be an
// O_PATH descriptor, through /proc/self/fd (fchmod(2) refuses O_PATH
// descriptors; chmod(2) of the magic link reaches exactly that inode).
func FchmodPath(fd int, mode uint32) error {
	p := fdName(fd)
	return pathErr("chmod", p, func() error { return unix.Chmod(p, mode) })
}

func fdName(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
