package egress

import (
	"net"

	"github.com/acbox/acbox/coordinator/sys"
)

// tcpActivity returns a counter of the bytes c's socket has received and
// had acknowledged, read from the kernel (TCP_INFO), or nil when c is not a
// TCP socket. Every byte of a tunnel passes the upstream socket one way or
// the other, so an unchanged counter means an idle tunnel, whoever copies.
func tcpActivity(c net.Conn) func() uint64 {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() uint64 {
		var n uint64
		rc.Control(func(fd uintptr) {
			if ti, err := sys.GetsockoptTCPInfo(int(fd)); err == nil {
				n = ti.Bytes_acked + ti.Bytes_received
			}
		})
		return n
	}
}
