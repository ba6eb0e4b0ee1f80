package probe

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// nonDumpableProbe: the listen guard takes the member's socket with
// pidfd_getfd, which needs ptrace access to the member; a member that made
// itself non-dumpable (ssh-agent and gpg-agent do before they listen) had
// every listen refused, Unix sockets too, until pid 1 kept CAP_SYS_PTRACE
// in the sandbox's user namespace (review3, finding 1). The guard must
// still refuse the unbound socket.
func nonDumpableProbe() Probe {
	return Probe{ID: "net.host-listen-nondumpable", Category: Network, HostNet: true,
		Source: "review3, finding 1 (ssh-agent's listen refused under --net host)",
		Expect: "--net host: a non-dumpable process listens on a Unix socket and on the listed bind port; listen on an unbound TCP socket still fails with EACCES",
		Run:    hostListenNonDumpable}
}

func hostListenNonDumpable(e *Env) Outcome {
	if e.BindPort == 0 {
		return skipf("the runner named no bind port")
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return errorf("prctl(PR_SET_DUMPABLE, 0): %s", short(err))
	}
	defer unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0) // the later probes read /proc/self
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		return errorf("still dumpable after prctl(PR_SET_DUMPABLE, 0): %d, %v", d, err)
	}
	return worst(listenUnix(), listenBound(e.BindPort), listenUnbound())
}

// listenUnix listens on a Unix socket in a fresh directory of /tmp.
func listenUnix() Outcome {
	dir, err := os.MkdirTemp("", "nondumpable")
	if err != nil {
		return errorf("a directory for the socket: %s", short(err))
	}
	defer os.RemoveAll(dir)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errorf("unix socket: %s", short(err))
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(dir, "s")}); err != nil {
		return errorf("bind a unix socket: %s", short(err))
	}
	if err := unix.Listen(fd, 1); err != nil {
		return failf("listen on a bound unix socket while non-dumpable: %s", short(err))
	}
	return passf("listened on a unix socket while non-dumpable")
}

// listenBound listens on a TCP socket bound to the listed port.
func listenBound(port int) Outcome {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errorf("tcp4 socket: %s", short(err))
	}
	defer unix.Close(fd)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return errorf("bind the listed port %d: %s", port, short(err))
	}
	if err := unix.Listen(fd, 1); err != nil {
		return failf("listen on the listed port %d while non-dumpable: %s", port, short(err))
	}
	return passf("listened on the listed port %d while non-dumpable", port)
}

// listenUnbound: the guard still refuses the autobind.
func listenUnbound() Outcome {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return skipf("tcp4 socket: %s", short(err))
	}
	defer unix.Close(fd)
	err = unix.Listen(fd, 1)
	op := "listen on an unbound tcp4 socket while non-dumpable"
	if err == nil {
		op += fmt.Sprintf(" (it took port %d)", boundPort(fd))
	}
	return expectErrno(op, err, unix.EACCES)
}
