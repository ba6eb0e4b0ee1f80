package egress

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// handoffMarker is the data byte of a handoff (bridge.HandoffMarker; egress
// cannot import the bridge).
const handoffMarker = 0

// handoffRoom is how many descriptors the control buffer holds: one is a
// handoff; room for a second tells a sender of several (the buffer fills,
// then the kernel truncates) from a proxy at its descriptor limit (the
// kernel stops installing early and truncates with the buffer not full).
const handoffRoom = 2

// errHandoff classes a malformed handoff: the bridge sent a descriptor
// that is not one connected TCP socket, or more than one.
var errHandoff = errors.New("malformed socket handoff from the bridge")

// takeClient reads the first message of c. From the bridge on a Unix
// socket it carries the member's connection (SCM_RIGHTS, one marker byte):
// that socket is returned, and the request is read, judged and relayed
// from it directly. From any other client it is the start of the request,
// returned as prefix with c itself. A message with control data, or whose
// control data the kernel cut short, is a handoff: well formed, or refused
// with every descriptor received closed.
// The read runs under the deadline the caller set for the head.
func takeClient(c net.Conn) (client net.Conn, prefix []byte, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return c, nil, nil
	}
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(handoffRoom*4))
	n, oobn, flags, _, err := uc.ReadMsgUnix(buf, oob)
	if oobn == 0 && flags&unix.MSG_CTRUNC == 0 {
		return c, buf[:n], err
	}
	fd, err := handedFD(buf[:n], oob[:oobn], flags)
	if err != nil {
		return nil, nil, err
	}
	client, err = handedTCP(fd)
	return client, nil, err
}

// handedFD returns the one descriptor of a well-formed handoff (data is
// the marker, oob one SCM_RIGHTS message with one descriptor, flags
// without MSG_CTRUNC). Every
// other descriptor in oob is closed, on every path: the kernel installed
// them in this process already, and a client of the proxy's socket (the
// member, under docker) could otherwise repeat the leak until the proxy
// runs out of descriptors.
func handedFD(data, oob []byte, flags int) (int, error) {
	fds, perr := rights(oob)
	var err error
	switch {
	case flags&unix.MSG_CTRUNC != 0 && len(fds) < handoffRoom:
		// The kernel stopped before the buffer was full: it could not
		// install a descriptor here (EMFILE, ENFILE) and dropped it. The
		// member's socket is gone with it; the refusal goes to the event
		// log, and the bridge sees the Unix connection close.
		err = fail(http.StatusServiceUnavailable, "socket handoff from the bridge lost: the proxy could not receive the member's socket (its open-file limit, the host's, or a security module refused it); close some connections or raise acbox's RLIMIT_NOFILE")
	case flags&unix.MSG_CTRUNC != 0:
		err = fmt.Errorf("%w: more than %d descriptors", errHandoff, handoffRoom)
	case perr != nil:
		err = fmt.Errorf("%w: control message: %w", errHandoff, perr)
	case len(fds) != 1 || len(data) != 1 || data[0] != handoffMarker:
		err = fmt.Errorf("%w: %d descriptors and %d bytes; want one and the marker", errHandoff, len(fds), len(data))
	}
	if err != nil {
		closeAll(fds)
		return -1, err
	}
	return fds[0], nil
}

// rights returns the descriptors of every SCM_RIGHTS message in oob. On a
// malformed message it returns those parsed before it, with the error, so
// the caller can close them.
func rights(oob []byte) ([]int, error) {
	var fds []int
	for len(oob) >= unix.CmsgLen(0) {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return fds, err
		}
		m := unix.SocketControlMessage{Header: h, Data: data}
		if f, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
		oob = rest
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
