//go:build unix

package policy

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// fileIdent returns the device and inode of a stat result.
func fileIdent(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// fileOwner returns the owner's uid, or -1 when it cannot be told.
func fileOwner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// fileGroup returns the group's gid, or -1 when it cannot be told.
func fileGroup(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Gid)
	}
	return -1
}

// openNoFollow opens a file for reading without following a final symlink
// and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// isSymlinkErr reports the error of openNoFollow on a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
