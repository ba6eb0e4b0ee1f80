package sys

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// The calls of a walk that never follows a link: everything relative to a
// directory descriptor, each error naming the entry.

// Fstatat stats path relative to dirfd (fstatat(2)).
func Fstatat(dirfd int, path string, st *unix.Stat_t, flags int) error {
	return pathErr("fstatat", path, func() error { return unix.Fstatat(dirfd, path, st, flags) })
}

// Faccessat checks access to path relative to dirfd (faccessat2(2)).
func Faccessat(dirfd int, path string, mode uint32, flags int) error {
	return pathErr("faccessat", path, func() error { return unix.Faccessat(dirfd, path, mode, flags) })
}

// FchmodPath changes the mode of the inode open at fd, which may be an
// O_PATH descriptor, through /proc/self/fd (fchmod(2) refuses O_PATH
// descriptors; chmod(2) of the magic link reaches exactly that inode).
func FchmodPath(fd int, mode uint32) error {
	p := fdName(fd)
	return pathErr("chmod", p, func() error { return unix.Chmod(p, mode) })
}

func fdName(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
