//go:build unix

package sys

import "golang.org/x/sys/unix"

// Recvfrom receives into p from a socket (recvfrom(2)). Unlike the rest of
// the package it exists on every Unix: the egress proxy's idle wait (a
// MSG_PEEK|MSG_DONTWAIT probe) works the same on macOS.
func Recvfrom(fd int, p []byte, flags int) (int, unix.Sockaddr, error) {
	var n int
	var from unix.Sockaddr
	err := callErr("recvfrom", func() (err error) { n, from, err = unix.Recvfrom(fd, p, flags); return err })
	return n, from, err
}
