package egress

import (
	"errors"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// handoffMarker is the data byte of a handoff (bridge.HandoffMarker; egress
// cannot import the bridge).
const handoffMarker = 0

// errHandoff classes a malformed handoff: the bridge sent a descriptor
// that is not one connected TCP socket, or more than one.
var errHandoff = errors.New("malformed socket handoff from the bridge")

// takeClient reads the first message of c. From the bridge on a Unix
// socket it carries the member's connection (SCM_RIGHTS, one marker byte):
// that socket is returned, and the request is read, judged and relayed
// from it directly. From any other client it is the start of the request,
// returned as prefix with c itself. The read runs under the deadline the
// caller set for the head.
func takeClient(c net.Conn) (client net.Conn, prefix []byte, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return c, nil, nil
	}
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	fds, perr := rights(oob[:oobn])
	if len(fds) == 0 && perr == nil {
		return c, buf[:n], err
	}
	if perr != nil {
		return nil, nil, fmt.Errorf("%w: %w", errHandoff, perr)
	}
	if len(fds) != 1 || n != 1 || buf[0] != handoffMarker {
		closeAll(fds)
		return nil, nil, fmt.Errorf("%w: %d descriptors and %d bytes; want one and the marker", errHandoff, len(fds), n)
	}
	client, err = handedTCP(fds[0])
	return client, nil, err
}

// rights returns the descriptors of every SCM_RIGHTS message in oob.
func rights(oob []byte) ([]int, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		if f, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		sys.Close(fd)
	}
}

// handedTCP takes fd, which must be a connected TCP socket (not a listener,
// not MPTCP, not a file), as the client's connection; it closes fd.
func handedTCP(fd int) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "handed client")
	defer f.Close()
	proto, err := sys.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL, "SO_PROTOCOL")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errHandoff, err)
	}
	if proto != unix.IPPROTO_TCP {
		return nil, fmt.Errorf("%w: protocol %d, not TCP", errHandoff, proto)
	}
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errHandoff, err)
	}
	if tc, ok := c.(*net.TCPConn); ok && tc.RemoteAddr() != nil {
		return tc, nil
	}
	c.Close()
	return nil, fmt.Errorf("%w: not a connected TCP stream", errHandoff)
}
