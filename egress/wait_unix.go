//go:build linux || darwin || freebsd || netbsd || openbsd

package egress

import (
	"errors"
	"io"
	"syscall"

	"github.com/acbox/acbox/coordinator/sys"
)

// waitReadable blocks until r, if it is a socket, has data, EOF or an error
// to report, without holding a buffer: an idle tunnel then costs two parked
// goroutines, not two 32 KiB buffers. The peek is needed because Go's poller
// is edge-triggered: waiting without first checking could sleep through
// bytes that are already queued.
func waitReadable(r io.Reader) {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	var b [1]byte
	rc.Read(func(fd uintptr) bool {
		_, _, err := sys.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EWOULDBLOCK) // wrapped: == would never match
	})
}
