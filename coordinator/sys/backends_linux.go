package sys

import "golang.org/x/sys/unix"

// Open opens path (open(2)) and returns the raw descriptor.
func Open(path string, flags int, mode uint32) (int, error) {
	var fd int
	err := pathErr("open", path, func() (err error) {
		fd, err = unix.Open(path, flags, mode)
		return err
	})
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// Fstat stats the open descriptor fd (fstat(2)); name is its path, for the
// CloseRange is close_range(2) on the descriptors first..last.
func CloseRange(first, last uint, flags uint) error {
	return callErr("close_range", func() error { return unix.CloseRange(first, last, flags) })
}
