package sys

import "golang.org/x/sys/unix"

// Getdents reads the entries of the directory open at fd (named path in
// its error) into buf (getdents64(2)): the bytes written, 0 at the end.
func Getdents(fd int, path string, buf []byte) (int, error) {
	return pathErrFD("getdents64", path, func() (int, error) { return unix.Getdents(fd, buf) })
}
