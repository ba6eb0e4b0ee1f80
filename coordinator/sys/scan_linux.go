package sys

import (
	"errors"
	"os"
	"strconv"
	"unsafe"

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

// HasXattrAt reports whether the entry name in dirfd carries the extended
// attribute attr, without following name if it is a link (lgetxattr(2) of
// /proc/self/fd/DIRFD/NAME: the directory is exactly the one open at
// dirfd, and name must be one component). An attribute the file system
// does not support (ENOTSUP) is absent.
func HasXattrAt(dirfd int, name, attr string) (bool, error) {
	p := fdName(dirfd) + "/" + name
	_, err := retryFD(func() (int, error) { return unix.Lgetxattr(p, attr, nil) })
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
		return false, nil
	}
	return false, &os.PathError{Op: "lgetxattr", Path: name, Err: err}
}

// HasXattrPath is HasXattrAt for the inode open at fd, which may be an
// O_PATH descriptor (getxattr(2) of the magic link reaches that inode).
func HasXattrPath(fd int, attr string) (bool, error) {
	p := fdName(fd)
	_, err := retryFD(func() (int, error) { return unix.Getxattr(p, attr, nil) })
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
		return false, nil
	}
	return false, &os.PathError{Op: "getxattr", Path: p, Err: err}
}

// RemovexattrPath removes the extended attribute attr of the inode open at
// fd, which may be an O_PATH descriptor, through /proc/self/fd.
func RemovexattrPath(fd int, attr string) error {
	p := fdName(fd)
	return pathErr("removexattr", p, func() error { return unix.Removexattr(p, attr) })
}

// FchownPath changes the owner and group of the inode open at fd, which
// may be an O_PATH descriptor, through /proc/self/fd (as FchmodPath).
func FchownPath(fd, uid, gid int) error {
	p := fdName(fd)
	return pathErr("chown", p, func() error { return unix.Chown(p, uid, gid) })
}

// Getxattrat returns the size of the extended attribute attr of the entry
// name in dirfd (getxattrat(2), Linux 6.13; ENOSYS before), with flags
// (AT_SYMLINK_NOFOLLOW: a link is not followed).
func Getxattrat(dirfd int, name string, flags int, attr string) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, &os.PathError{Op: "getxattrat", Path: name, Err: err}
	}
	a, err := unix.BytePtrFromString(attr)
	if err != nil {
		return -1, &os.PathError{Op: "getxattrat", Path: name, Err: err}
	}
	var args struct { // struct xattr_args: no value buffer, so the size is returned
		value       uint64
		size, flags uint32
	}
	return pathErrFD("getxattrat", name, func() (int, error) {
		r, _, e := unix.Syscall6(unix.SYS_GETXATTRAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags),
			uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args))
		if e != 0 {
			return -1, e
		}
		return int(r), nil
	})
}
