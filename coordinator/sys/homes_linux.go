package sys

import (
	"time"

	"golang.org/x/sys/unix"
)

// Unlinkat removes path relative to dirfd; flags AT_REMOVEDIR for a
// directory (unlinkat(2)).
func Unlinkat(dirfd int, path string, flags int) error {
	return pathErr("unlinkat", path, func() error { return unix.Unlinkat(dirfd, path, flags) })
}

// Touch sets the access and modification times of the file open at fd to
// now (futimes(3)).
func Touch(fd int) error {
	now := unix.NsecToTimeval(time.Now().UnixNano())
	return pathErr("futimes", fdName(fd), func() error { return unix.Futimes(fd, []unix.Timeval{now, now}) })
}
