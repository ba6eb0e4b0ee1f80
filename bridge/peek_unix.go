//go:build unix

package bridge

import (
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/acbox/acbox/coordinator/sys"
)

// firstByte waits up to FirstByteTimeout for the client's first byte and
// leaves it unread (MSG_PEEK), for whoever reads the request: the proxy
// itself once the socket is handed to it. false when the client closed,
// failed or stayed silent.
func firstByte(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	c.SetReadDeadline(time.Now().Add(firstByteTimeout()))
	defer c.SetReadDeadline(time.Time{})
	var b [1]byte
	var n int
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, perr = sys.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return !errors.Is(perr, syscall.EAGAIN) && !errors.Is(perr, syscall.EWOULDBLOCK)
	})
	return err == nil && perr == nil && n > 0
}
