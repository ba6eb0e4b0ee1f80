package bridge

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// LoopbackUp sets IFF_UP on lo, as `ip link set lo up` would, with the
// SIOCGIFFLAGS/SIOCSIFFLAGS ioctls on a throwaway datagram socket. It needs
// CAP_NET_ADMIN in the network namespace's owning user namespace.
func LoopbackUp() error {
	fd, err := sys.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bug: ifreq for lo: %w", err)
	}
	if err := sys.IoctlIfreq(fd, unix.SIOCGIFFLAGS, "SIOCGIFFLAGS", ifr); err != nil {
		return fmt.Errorf("read flags of lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := sys.IoctlIfreq(fd, unix.SIOCSIFFLAGS, "SIOCSIFFLAGS", ifr); err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("bring lo up: %w (needs CAP_NET_ADMIN in the sandbox's network namespace)", err)
		}
		return fmt.Errorf("bring lo up: %w", err)
	}
	return nil
}

// DialFile returns a dialer for the Unix socket that f refers to (an O_PATH
// descriptor passed by the parent). Connecting through /proc/self/fd/N
// reaches a socket outside this mount namespace's root. The dialer keeps f
// reachable for as long as it lives: an *os.File dropped after taking its
// number is closed by its finalizer at the next collection, and the number
// is then reused by something else (a burst of connections made that
// happen and left the bridge refusing every later connection).
func DialFile(f *os.File) func() (net.Conn, error) {
	path := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	return func() (net.Conn, error) {
		c, err := net.Dial("unix", path)
		runtime.KeepAlive(f)
		return c, err
	}
}

// handOff passes the client's socket to the proxy when the proxy is at the
// other end of a Unix socket (SCM_RIGHTS, with HandoffMarker as the data):
// the proxy then reads the request and relays the tunnel from the client's
// socket itself, one relay instead of two. The socket is an accepted TCP
// connection of the sandbox's network namespace: the proxy reads and
// writes it, and never binds or connects with it, so the member reaches
// nothing new; its bytes are still policed by the proxy before any dial.
func handOff(c, up net.Conn) int {
	tc, ok := c.(*net.TCPConn)
	uc, ok2 := up.(*net.UnixConn)
	if !ok || !ok2 {
		return notHanded
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return notHanded
	}
	var werr error
	err = rc.Control(func(fd uintptr) {
		_, _, werr = uc.WriteMsgUnix([]byte{HandoffMarker}, unix.UnixRights(int(fd)), nil)
	})
	switch {
	case err == nil && errors.Is(werr, unix.ETOOMANYREFS):
		// The kernel caps the descriptors in flight per user (beyond
		// RLIMIT_NOFILE of the sender). A member can fill that count with
		// its own socket pairs, and the count is its uid's, shared with
		// every other sandbox of the user: with a 502 here one member would
		// cut every sibling sandbox off the proxy. Nothing was sent, so
		// the bytes are relayed instead, and the proxy reads them as from
		// any client on its socket.
		return notHanded
	case err != nil || werr != nil:
		return handFailed
	}
	return handed
}
