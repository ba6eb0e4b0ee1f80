package sys

import "golang.org/x/sys/unix"

// The calls on an open descriptor's contents. name is the descriptor's
// path, for the error only.

// Read reads into p from fd; name is its path, for the error (read(2)).
func Read(fd int, name string, p []byte) (int, error) {
	return pathErrFD("read", name, func() (int, error) { return unix.Read(fd, p) })
}

// Write writes p to fd; name is its path, for the error (write(2)). Like
// write(2) it may write less than p: the count says how much.
func Write(fd int, name string, p []byte) (int, error) {
	return pathErrFD("write", name, func() (int, error) { return unix.Write(fd, p) })
}

// Fsync flushes fd to its device; name is its path, for the error (fsync(2)).
func Fsync(fd int, name string) error {
	return pathErr("fsync", name, func() error { return unix.Fsync(fd) })
}

// Seek moves fd's offset (lseek(2)); name is its path, for the error.
func Seek(fd int, name string, offset int64, whence int) (int64, error) {
	var off int64
	err := pathErr("lseek", name, func() (err error) { off, err = unix.Seek(fd, offset, whence); return err })
	return off, err
}

// Getdents reads directory entries of fd into buf (getdents64(2)); name is
// its path, for the error. 0 means the end of the directory.
func Getdents(fd int, name string, buf []byte) (int, error) {
	return pathErrFD("getdents64", name, func() (int, error) { return unix.Getdents(fd, buf) })
}
