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

// RenameatNoReplace renames from (in fromfd) to to (in tofd), failing with
// EEXIST rather than replace what stands at to (renameat2(2),
// RENAME_NOREPLACE).
func RenameatNoReplace(fromfd int, from string, tofd int, to string) error {
	return pathErr("renameat2", from, func() error { return unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE) })
}

// Touch sets the access and modification times of the file open at fd to
// now (futimes(3)).
func Touch(fd int) error {
	now := unix.NsecToTimeval(time.Now().UnixNano())
	return pathErr("futimes", fdName(fd), func() error { return unix.Futimes(fd, []unix.Timeval{now, now}) })
}
